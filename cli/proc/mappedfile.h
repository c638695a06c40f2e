/* Files another process has mapped, opened without trusting a name it
 * controls. */
#ifndef AFX_MAPPEDFILE_H
#define AFX_MAPPEDFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "procmaps.h"

/* Open the file of mapping m in process pid for reading.  Through
 * /proc/PID/map_files/, which holds the mapped object itself (this
 * needs CAP_SYS_ADMIN); without that right, by its path inside the
 * process's root, opened as O_PATH first and taken only if it is the
 * mapped file (its device and inode), so that nothing else is ever
 * opened.  Only a regular file, never blocking, and only one the
 * kernel serves: a file of a user's FUSE file system is never opened
 * (userfs.h), errno AFX_ERR_USER_FS or AFX_ERR_UNSEEN_FS.  -1 with
 * errno set. */
int afx_mapped_open(long pid, const struct afx_mapping *m);

/* The same for the file process pid runs (/proc/PID/exe). */
int afx_exe_open(long pid);

/* The largest prefix of a file afx_glibc_version reads. */
#define AFX_GLIBC_SCAN_MAX (16L << 20)

/* The version in glibc's banner ("... release version 2.36.") within
 * the first AFX_GLIBC_SCAN_MAX bytes of fd, read in pieces.  False if
 * there is none. */
bool afx_glibc_version(int fd, char *out, size_t size);

/* fd holds glibc's own malloc, linked in: the name of its arena limit's
 * tunable ("glibc.malloc.arena_max", in every glibc since 2.26, static
 * or not) within its first AFX_GLIBC_SCAN_MAX bytes.  What a static
 * glibc program carries in place of a banner. */
bool afx_glibc_malloc_in(int fd);

#endif
