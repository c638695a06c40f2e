/* Whole small files (/proc, /sys, unit files) into memory. */
#ifndef AFX_READFILE_H
#define AFX_READFILE_H

#include <stddef.h>

/* The file's contents, NUL-terminated, malloc'd; *len (if not NULL) its
 * length.  NULL with errno set on failure. */
char *afx_slurp(const char *path, size_t *len);

/* The first line of a file, without its newline, into out.  Empty
 * string if the file cannot be read. */
void afx_first_line(const char *path, char *out, size_t size);

#endif
