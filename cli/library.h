/* Where libarenafix.so is, and how to name it in LD_PRELOAD. */
#ifndef AFX_LIBRARY_H
#define AFX_LIBRARY_H

#include <limits.h>
#include <stdbool.h>

struct afx_library {
    char file[PATH_MAX];      /* the library for this architecture */
    char preload[PATH_MAX];   /* the LD_PRELOAD entry; may hold a literal $LIB */
    const char *found_by;     /* "ARENAFIX_LIBRARY", "build tree", "installation" */
};

/* Look in order: $ARENAFIX_LIBRARY, the build tree beside this program
 * (build/cli/arenafix finds shim/libarenafix.so), the installation.
 * On failure, prints one line naming the places tried and the fix. */
bool afx_find_library(struct afx_library *lib);

#endif
