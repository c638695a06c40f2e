/* Where libarenafix.so is, and how to name it in LD_PRELOAD. */
#ifndef AFX_LIBRARY_H
#define AFX_LIBRARY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct afx_library {
    char file[PATH_MAX];      /* the library for this architecture */
    char preload[PATH_MAX];   /* the LD_PRELOAD entry; may hold a literal $LIB */
    const char *found_by;     /* "ARENAFIX_LIBRARY", "build tree", "installation" */
};

/* Look in order: $ARENAFIX_LIBRARY, the build tree beside this program
 * (build/cli/arenafix finds shim/libarenafix.so), the installation.
 * The path must be absolute, of printable ASCII, without white space,
 * ':' or '$' (but "$LIB" in the installation's entry): ld.so would
 * split or expand it, a drop-in would carry it over several lines.
 * On failure, prints one line naming the places tried and the fix. */
bool afx_find_library(struct afx_library *lib);

/* Run as root, true only if lib->file and every directory on its way
 * (as given and as resolved) are root's and no one else may write to
 * them: what enable names in a service stays the file root checked.
 * Otherwise prints one line naming the culprit and the fix.  Always
 * true for other users (the kernel keeps them to their own files). */
bool afx_library_trusted(const struct afx_library *lib);

/* The same test for any file (a program a spec makes root run): NULL
 * if path and every directory on its way are root's alone, otherwise
 * why, with the culprit in where[size].  Whoever runs it. */
const char *afx_root_only_file(const char *path, char *where, size_t size);

#endif
