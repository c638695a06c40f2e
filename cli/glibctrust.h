/* Whether inspect may execute the glibc another process has mapped.
 * Only files root alone controls are ever run: a loader or libc that the
 * process, its user or anyone but root could have written is read for
 * its version and never executed. */
#ifndef AFX_GLIBCTRUST_H
#define AFX_GLIBCTRUST_H

#include <stdbool.h>
#include <stddef.h>

#include "procmaps.h"

/* True if fd, opened from mapping m of process pid (mappedfile.h), is a
 * file that only root can have written, at a path only root can change:
 * the file is root's and no group or other may write it; m's path,
 * walked from the process's root directory without following a link,
 * names that very file (device and inode), and every directory on the
 * way, that root directory included, is root's and writable by no one
 * else (no exception for sticky directories: the file is found by name
 * again when the loader loads libc).  The process's mount namespace
 * must belong to this command's user namespace: in a namespace of its
 * own a user may mount anything over root's directories.  Otherwise
 * false, with why ("owned by uid 1000") naming the first thing that
 * failed. */
bool afx_glibc_trusted(long pid, const struct afx_mapping *m, int fd, char *why, size_t size);

/* The same walk for a file that need not be there, ROOT/etc/ld.so.preload
 * that the loader reads at start: true if it is absent, or root's alone
 * as above. */
bool afx_preload_list_trusted(long pid, char *why, size_t size);

#endif
