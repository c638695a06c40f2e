/* Asking the running systemd about a unit: `systemctl show`, run with
 * a time limit and read bounded.  enable checks its reading of the unit
 * files against the answer; status asks whether a drop-in is loaded. */
#ifndef AFX_SYSTEMCTL_H
#define AFX_SYSTEMCTL_H

#include <stdbool.h>
#include <stddef.h>

#include "files/rootdir.h"

/* systemd runs the tree: it is this host's / (not --root) and
 * /run/systemd/system is a directory, as sd_booted() checks. */
bool afx_systemd_running(const struct afx_root *r);

/* The output of `systemctl show --no-pager -p NAME... -- unit` for the
 * NULL-terminated names: malloc'd, NUL-terminated.  NULL when systemctl
 * could not be run, failed, or said nothing for 30 s: why in why. */
char *afx_systemctl_show(const char *unit, const char *const *names, char *why, size_t size);

/* The value of name in show's text, up to its newline, into out ("" if
 * absent).  Returns out. */
const char *afx_show_value(const char *text, const char *name, char *out, size_t size);

#endif
