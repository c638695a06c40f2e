/* systemd's unit-file syntax, read as systemd 252 reads it (conf-parser.c,
 * extract-word.c, escape.c, specifier.c, dropin.c), for the one thing
 * enable and disable need: what LD_PRELOAD a service gets.  Where the
 * answer depends on what only systemd knows at load time (specifiers
 * such as %h), the result says "unsure" and why, rather than guess.
 * Pure. */
#ifndef AFX_UNITFILE_H
#define AFX_UNITFILE_H

#include <stdbool.h>
#include <stddef.h>

/* What the [Service] sections applied so far leave in LD_PRELOAD. */
enum afx_env_state { AFX_ENV_UNSET, AFX_ENV_SET, AFX_ENV_UNSURE };

struct afx_unit_env {
    enum afx_env_state state;
    char *preload;              /* AFX_ENV_SET: the value (malloc'd) */
    char unsure[512];           /* AFX_ENV_UNSURE: why, naming the file */
    char broken[512];           /* non-empty: systemd would not load the unit, and why */
    bool environment_files;     /* an EnvironmentFile= is in force */
    bool unsets_preload;        /* an UnsetEnvironment= names LD_PRELOAD */
};

void afx_unit_env_init(struct afx_unit_env *e);
void afx_unit_env_free(struct afx_unit_env *e);
/* *dst := a copy of src (dst uninitialised).  False if out of memory. */
bool afx_unit_env_copy(struct afx_unit_env *dst, const struct afx_unit_env *src);
/* Set LD_PRELOAD to value, as a drop-in holding only that would. */
bool afx_unit_env_set(struct afx_unit_env *e, const char *value);
/* True if both leave the service the same LD_PRELOAD (both known). */
bool afx_unit_env_same(const struct afx_unit_env *a, const struct afx_unit_env *b);

/* Apply one unit file or drop-in, len bytes (NULs allowed, as systemd
 * reads them: a NUL ends a line), named file in messages. */
void afx_unit_env_apply(struct afx_unit_env *e, const char *text, size_t len, const char *file);

/* The LD_PRELOAD in the output of `systemctl show -p Environment`
 * (values quoted as systemd's shell_maybe_quote() does).  Returns 1 and
 * *value (malloc'd) when set, 0 when not, -1 if the text cannot be read. */
int afx_show_preload(const char *show, char **value);

/* True if name is a unit name we accept ("foo", "foo.service",
 * "foo@bar.service", "foo@.service"); *service gets it with .service
 * added if it had no suffix.  False for empty names, slashes, other unit
 * types. */
bool afx_unit_name(const char *name, char *service, size_t size);

/* True for a template ("foo@.service"). */
bool afx_unit_is_template(const char *service);

/* Calls fn for each name whose NAME.d directories systemd searches for
 * the unit's drop-ins, in systemd's order: the unit, its template,
 * its "-" prefixes ("a-b-c.service": "a-b-.service", "a-.service"), each
 * with its template.  The type's own "service.d" is not included: it
 * comes after all names, aliases included.  Stops early and returns
 * false if fn does. */
bool afx_unit_dropin_names(const char *service, bool (*fn)(const char *name, void *arg), void *arg);

/* The drop-in's text for an LD_PRELOAD value: its first line is
 * AFX_DROPIN_HEADER.  NULL if out of memory, or if systemd would ignore
 * the value (empty, not UTF-8). */
#define AFX_DROPIN_HEADER "# Written by arenafix enable"
char *afx_dropin_text(const char *unit, const char *ld_preload);

/* True if text (a file's first bytes) starts as afx_dropin_text's. */
bool afx_dropin_is_ours(const char *text, size_t len);

/* True if s (len bytes) is UTF-8 as systemd accepts it: no overlong
 * forms, no surrogates, nothing above U+10FFFF. */
bool afx_utf8_valid(const char *s, size_t len);

#endif
