/* The OCI hook's mounts: a host file, cloned read-only, attached over
 * a file of the container's root file system in its mount namespace,
 * through file descriptors only (no path is resolved again, so no
 * link the tenant placed can redirect a mount). */
#ifndef AFX_HOOKMOUNT_H
#define AFX_HOOKMOUNT_H

#include <stdbool.h>
#include <stddef.h>

/* A detached read-only, nosuid, nodev bind mount of the file fd.  -1
 * with why set. */
int afx_hook_clone(int fd, char *why, size_t size);

/* The regular file name in the directory dir (O_PATH, of the image),
 * created empty if absent, as an O_PATH descriptor: never through a
 * link.  -1 with why set. */
int afx_hook_target(int dir, const char *name, char *why, size_t size);

/* The directory name in dir, made if absent, O_PATH; never a link. */
int afx_hook_target_dir(int dir, const char *name, char *why, size_t size);

/* Enter the mount namespace of process pid (for good). */
bool afx_hook_enter(long pid, char *why, size_t size);

/* Attach the detached mount tree over target (in the namespace
 * entered).  False with why set. */
bool afx_hook_attach(int tree, int target, char *why, size_t size);

#endif
