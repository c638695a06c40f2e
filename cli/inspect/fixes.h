/* The commands that fix what inspect found, printed after its report as
 * needrestart lists its restarts: per system service, arenafix enable,
 * one systemctl daemon-reload, systemctl restart; a process in no
 * system service is named, to be restarted under arenafix CMD; a
 * process in a container, by its container, with the options that run
 * it again with the library: the host's library mounted read-only in the
 * image's own libc directory and named first in LD_PRELOAD (before the
 * one the process has). */
#ifndef AFX_FIXES_H
#define AFX_FIXES_H

#include <stdio.h>

#include "target/procreport.h"

struct afx_fix;

struct afx_fixes {
    struct afx_fix *list;
    size_t count, cap;
    long online;        /* the host's online CPUs, for a static program's limit */
};

/* Note r if it is hit or at risk (nothing otherwise). */
void afx_fixes_add(struct afx_fixes *f, const struct afx_report *r);

/* The commands and the processes left, each unit once; nothing if
 * nothing was noted.  Frees the list. */
void afx_fixes_print(struct afx_fixes *f, FILE *out);

/* Where the fix for r is the options that mount the library (no
 * installed fix applies) and r is in root's podman container: the whole
 * command that runs it again with them, the line inspect prints after
 * the options, as words (malloc'd, one block, NULL after the last).
 * NULL otherwise, or if podman's record of it cannot be read. */
char **afx_fix_command(const struct afx_report *r);

#endif
