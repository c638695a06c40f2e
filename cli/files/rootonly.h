/* Files only root can have written: an engine's state, a shim's
 * program, a bundle's config.json, read only when root alone owns them
 * and every directory on their way, no link followed; what they say,
 * root wrote.  For target/container.c, engines.c and pods.c. */
#ifndef AFX_ROOTONLY_H
#define AFX_ROOTONLY_H

#include <stddef.h>

/* path (absolute) opened for reading if it and every directory on its
 * way are root's and no one else may write them, no link followed, a
 * regular file of at most 16 MiB; -1 if not. */
int afx_open_root_only(const char *path);
/* The same for a program, of any size. */
int afx_open_root_program(const char *path);
/* The whole of fd (at most 16 MiB), malloc'd; NULL if more or unreadable. */
char *afx_read_root_only(int fd, size_t *len);

#endif
