/* Whether inspect may execute the glibc another process has mapped.
 * Only files root alone controls are ever run: a loader or libc that the
 * process, its user or anyone but root could have written is read for
 * its version and never executed. */
#ifndef AFX_GLIBCTRUST_H
#define AFX_GLIBCTRUST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "proc/procmaps.h"

/* A process's root directory and mount namespace, opened once: every
 * check below and the jail that runs its glibc (jail.h) see the same
 * ones, however the process changes its root meanwhile (chroot in a
 * user namespace of its own). */
struct afx_proc_root {
    long pid;                   /* whose mounts name a file system (userfs.h) */
    int root;                   /* O_PATH, its root directory */
    int mnt;                    /* its mount namespace */
    char prefix[PATH_MAX];      /* that root as our root sees it ("" for /) */
};

/* Open them.  False with why set. */
bool afx_proc_root_open(long pid, struct afx_proc_root *pr, char *why, size_t size);
void afx_proc_root_close(struct afx_proc_root *pr);

/* What the loader reads besides the files checked below may be
 * trusted: its mounts belong to this command's user namespace (in a user
 * namespace of its own a user may mount anything over root's
 * directories); its root directory is root's alone; its /proc is a
 * procfs (the probe's program is /proc/self/fd/N); its
 * /etc/ld.so.preload is absent or root's alone.  False with why set. */
bool afx_root_trusted(const struct afx_proc_root *pr, char *why, size_t size);

/* True if fd, opened from mapping m (mappedfile.h), is a file only root
 * can have written, at a path only root can change: the file is root's
 * and no group or other may write it; m's path (less pr->prefix),
 * walked from pr->root without following a link, names that very file
 * (device and inode), and every directory on the way is root's and
 * writable by no one else (no exception for sticky directories: anyone
 * may add a name there).  Otherwise false, with why ("owned by uid
 * 1000") naming the first thing that failed.  Nothing on a file system
 * a user serves (FUSE, userfs.h) is looked at or looked up in: each
 * directory's and file's file system is found from what the kernel
 * holds before it is stat'ed or walked, as are its root's and /proc's
 * (afx_root_trusted): a stat or a lookup there waits on that user's
 * program, which need never answer. */
bool afx_glibc_trusted(const struct afx_proc_root *pr, const struct afx_mapping *m, int fd, char *why, size_t size);

#endif
