/* What a run of inspect knows of each process from its /proc/PID/status,
 * read once a run however often it is asked for (the scan's own row and
 * the report's uid, the ancestors of a container's processes, the search
 * for dockerd): its real uid, its parent, whether every uid is root's.
 * And, for the walk from a container's process up to the shim it runs
 * under (engines.c), what that walk found, so that a process under 200
 * nested shells is not walked past each of them again. */
#ifndef AFX_PROCTABLE_H
#define AFX_PROCTABLE_H

#include <stdbool.h>

#include "readfile.h"

struct afx_proc_entry {
    long pid;
    int err;                /* 0 read; else the errno of its read */
    long ppid;              /* its parent, -1 if unread */
    long uid;               /* its real uid, -1 if unread */
    bool root;              /* every one of its uids is 0 */
    signed char ours;       /* in this command's mount namespace: 1 or 0; -1 not yet asked (engines.c) */
    long top, below;        /* the walk's end from it: the first ancestor in this command's mount
                             * namespace and its child on the way; -1 none, 0 not yet walked (engines.c) */
    int shim;               /* as a containerd shim: what engines.c found, by its index + 1; 0 not yet */
};

/* pid's entry, its status read the first time it is asked for (by, that
 * read's deadline; NULL none).  A read the deadline cut short is tried
 * again when asked next; another failure stands for the run (err).
 * NULL, with errno ENOMEM, only where no memory is left.  What it says
 * stands for the run: a PID reused within it is taken for the process
 * first read.  An entry stays where it is until another PID is asked
 * for. */
struct afx_proc_entry *afx_proc_entry(long pid, const struct afx_deadline *by);

#endif
