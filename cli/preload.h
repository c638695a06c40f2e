/* LD_PRELOAD as a list: add to it, never replace it.  Pure. */
#ifndef AFX_PRELOAD_H
#define AFX_PRELOAD_H

#include <stdbool.h>

/* True if the list (items separated by spaces or colons, as ld.so
 * reads it) holds an item equal to name. */
bool afx_preload_has(const char *list, const char *name);

/* A new malloc'd list: list with entry appended after a colon, or a
 * copy of list if it already holds entry or alias (the same library
 * under another name; may be NULL).  NULL or empty list: just entry.
 * NULL if out of memory. */
char *afx_preload_append(const char *list, const char *entry, const char *alias);

/* Why path cannot stand in LD_PRELOAD or a drop-in as one library, or
 * NULL if it can: it must be absolute, of printable ASCII, without the
 * separators ld.so splits LD_PRELOAD at (white space, ':').  A '$' is
 * allowed only as the "$LIB" that ld.so expands, and only when
 * allow_lib is set (a file's own path has none). */
const char *afx_preload_entry_problem(const char *path, bool allow_lib);

#endif
