/* The little of systemd's unit syntax that enable/disable need.  Pure. */
#ifndef AFX_UNITFILE_H
#define AFX_UNITFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Apply the [Service] section's Environment= lines of one unit file or
 * drop-in to *value, the LD_PRELOAD they leave (malloc'd, or NULL when
 * unset): a later assignment replaces an earlier one, an empty
 * "Environment=" clears everything.  *environment_files is set when
 * the text has EnvironmentFile= lines. */
void afx_unit_ld_preload(const char *text, char **value, bool *environment_files);

/* True if name is a unit name we accept ("foo", "foo.service",
 * "foo@bar.service"); *service gets it with .service added if it had
 * no suffix.  False for empty names, slashes, other unit types. */
bool afx_unit_name(const char *name, char *service, size_t size);

/* The drop-in's text for an LD_PRELOAD value (quoted for systemd). */
char *afx_dropin_text(const char *unit, const char *ld_preload);

#endif
