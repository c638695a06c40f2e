/* Whole small files (/proc, /sys, unit files) into memory. */
#ifndef AFX_READFILE_H
#define AFX_READFILE_H

#include <stdbool.h>
#include <stddef.h>

/* The file's contents, NUL-terminated, malloc'd; *len (if not NULL) its
 * length.  NULL with errno set on failure. */
char *afx_slurp(const char *path, size_t *len);

/* The same for a file another process controls: at most max bytes
 * (NULL with errno EFBIG past that), never blocking, only a regular
 * file (as /proc's are). */
char *afx_slurp_max(const char *path, size_t max, size_t *len);

/* Read a file to its end in pieces of a fixed buffer, handing each to
 * feed.  False with errno set if it cannot be opened or read. */
bool afx_read_pieces(const char *path, void (*feed)(void *ctx, const char *piece, size_t len), void *ctx);

/* The first line of a file, without its newline, into out.  Empty
 * string if the file cannot be read. */
void afx_first_line(const char *path, char *out, size_t size);

#endif
