#include "library.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Set by cli.mk from the install directories.  AFX_PRELOAD_ENTRY has a
 * literal $LIB when the library sits in the multiarch directory, so
 * that ld.so picks the 32- or 64-bit build for each program, as
 * faketime does. */
#ifndef AFX_PKGLIBDIR
#define AFX_PKGLIBDIR "/usr/local/lib/arenafix"
#endif
#ifndef AFX_PRELOAD_ENTRY
#define AFX_PRELOAD_ENTRY AFX_PKGLIBDIR "/libarenafix.so"
#endif

static bool readable(const char *path)
{
    return access(path, R_OK) == 0;
}

static bool copy(char *dst, const char *src)
{
    size_t n = strlen(src);
    if (n >= PATH_MAX)
        return false;
    memcpy(dst, src, n + 1);
    return true;
}

/* build/cli/arenafix -> build/cli/../../shim/libarenafix.so, only when
 * this program runs from a directory named cli (the build tree). */
static bool in_build_tree(char *out)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    size_t len = strlen(exe);
    if (len < 4 || strcmp(exe + len - 4, "/cli") != 0)
        return false;
    char rel[PATH_MAX + 32];
    snprintf(rel, sizeof rel, "%s/../../shim/libarenafix.so", exe);
    return readable(rel) && realpath(rel, out) != NULL;
}

bool afx_find_library(struct afx_library *lib)
{
    const char *env = getenv("ARENAFIX_LIBRARY");
    if (env != NULL && *env != '\0') {
        if (env[0] != '/' || !readable(env)) {
            afx_error("ARENAFIX_LIBRARY=%s: not a readable absolute path; "
                      "point it at libarenafix.so or unset it", env);
            return false;
        }
        lib->found_by = "ARENAFIX_LIBRARY";
        return copy(lib->file, env) && copy(lib->preload, env);
    }
    if (in_build_tree(lib->file)) {
        lib->found_by = "build tree";
        return copy(lib->preload, lib->file);
    }
    if (readable(AFX_PKGLIBDIR "/libarenafix.so")) {
        lib->found_by = "installation";
        return copy(lib->file, AFX_PKGLIBDIR "/libarenafix.so") && copy(lib->preload, AFX_PRELOAD_ENTRY);
    }
    afx_error("cannot find libarenafix.so in %s nor in the build tree; "
              "install it (make install) or set ARENAFIX_LIBRARY=/path/to/libarenafix.so",
              AFX_PKGLIBDIR);
    return false;
}
