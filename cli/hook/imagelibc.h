/* A container image's glibc, read from the host for the OCI hook
 * before the container runs.  The image's files are its tenant's: every
 * path is resolved inside its root (a link, absolute or not, never
 * leaves it; no /proc magic link is followed), only regular files are
 * opened, every read is bounded, and nothing of it is executed. */
#ifndef AFX_IMAGELIBC_H
#define AFX_IMAGELIBC_H

#include <stddef.h>

#include "hookpolicy.h"

/* The container's root file system as the runtime mounted it, in the
 * mount namespace of its first process pid (before pivot_root: rootfs
 * is a path there), opened O_PATH.  -1 with why set. */
int afx_image_root_open(long pid, const char *rootfs, char *why, size_t size);

/* path (relative to root, any links resolved inside it), O_PATH;
 * flags adds O_DIRECTORY.  -1 with errno set. */
int afx_image_path(int root, const char *path, int flags);

/* The regular file at O_PATH fd opened for reading, never blocking;
 * -1 with errno set (EINVAL if it is not a regular file). */
int afx_image_reopen(int fd);

/* The facts about its libc (hookpolicy.h) but the host's state: the
 * libc probe --root finds too (libc/rootlibc.h), its ELF header
 * compared with the library's (lib, open), its bytes with the host's
 * libc.so.6 (host_libc, -1 if unknown); and the first loader of
 * another ABI the image holds (/lib/ld-linux.so.2). */
void afx_image_facts_read(int root, int lib, int host_libc, struct afx_image_facts *f);

#endif
