#include "library.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "preload.h"
#include "selfexe.h"

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
/* The build's library, relative to the command's directory: shim/ in
 * the source tree for a native build into build/, BUILDDIR/shim for a
 * cross build (cli.mk, from SHIM_LIB). */
#ifndef AFX_BUILD_LIBRARY
#define AFX_BUILD_LIBRARY "../../shim/libarenafix.so"
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

/* build/cli/arenafix -> build/cli/../../shim/libarenafix.so (the
 * build's AFX_BUILD_LIBRARY), only when this program runs from a
 * directory named cli (the build tree). */
static bool in_build_tree(char *out)
{
    /* Where this program's code is mapped from, not /proc/self/exe,
     * which names ld.so when the command runs through an explicit one. */
    char exe[PATH_MAX];
    if (!afx_self_path(exe, sizeof exe))
        return false;
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return false;
    *slash = '\0';
    size_t len = strlen(exe);
    if (len < 4 || strcmp(exe + len - 4, "/cli") != 0)
        return false;
    char rel[PATH_MAX + 32];
    snprintf(rel, sizeof rel, "%s/%s", exe, AFX_BUILD_LIBRARY);
    return readable(rel) && realpath(rel, out) != NULL;
}

/* The entry goes into LD_PRELOAD and drop-ins as it is: refuse what
 * ld.so would split or systemd would read as more than one line. */
static bool usable(const struct afx_library *lib)
{
    const char *why = afx_preload_entry_problem(lib->file, false);
    const char *which = lib->file;
    if (why == NULL) {
        why = afx_preload_entry_problem(lib->preload, true);
        which = lib->preload;
    }
    if (why == NULL)
        return true;
    if (strcmp(lib->found_by, "ARENAFIX_LIBRARY") == 0)
        afx_error("ARENAFIX_LIBRARY=%s: %s; point it at a libarenafix.so whose path has no white "
                  "space, ':', '$' or control characters, or unset it", which, why);
    else
        afx_error("the library found in the %s, %s, cannot go into LD_PRELOAD: %s; install it "
                  "elsewhere or set ARENAFIX_LIBRARY", lib->found_by, which, why);
    return false;
}

bool afx_find_library(struct afx_library *lib)
{
    const char *env = getenv("ARENAFIX_LIBRARY");
    if (env != NULL && *env != '\0') {
        lib->found_by = "ARENAFIX_LIBRARY";
        if (!copy(lib->file, env) || !copy(lib->preload, env)) {
            afx_error("ARENAFIX_LIBRARY: longer than a path can be; point it at libarenafix.so or unset it");
            return false;
        }
        if (!usable(lib))
            return false;
        if (!readable(env)) {
            afx_error("ARENAFIX_LIBRARY=%s: not readable (%s); point it at libarenafix.so or unset it",
                      env, strerror(errno));
            return false;
        }
        return true;
    }
    if (in_build_tree(lib->file)) {
        lib->found_by = "build tree";
        return copy(lib->preload, lib->file) && usable(lib);
    }
    if (readable(AFX_PKGLIBDIR "/libarenafix.so")) {
        lib->found_by = "installation";
        return copy(lib->file, AFX_PKGLIBDIR "/libarenafix.so") && copy(lib->preload, AFX_PRELOAD_ENTRY)
               && usable(lib);
    }
    afx_error("cannot find libarenafix.so in %s nor in the build tree; "
              "install it (make install) or set ARENAFIX_LIBRARY=/path/to/libarenafix.so",
              AFX_PKGLIBDIR);
    return false;
}

/* A directory only root can change: owned by root, and writable by no
 * one else unless sticky (as /tmp: only root may then rename or remove
 * what root put there). */
static const char *root_only_dir(const struct stat *st)
{
    if (!S_ISDIR(st->st_mode))
        return "is not a directory";
    if (st->st_uid != 0)
        return "is a directory not owned by root";
    if ((st->st_mode & 022) != 0 && !(st->st_mode & S_ISVTX))
        return "is a directory its group or others may write to";
    return NULL;
}

/* canon ("/a/b/lib.so", no symlinks) walked from / without following
 * anything: each directory root's alone, the file root's and writable
 * by no one else.  NULL, or why not with the culprit in where. */
static const char *walk_root_only(const char *canon, char *where, size_t size)
{
    const char *why = NULL, *p = canon;
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    snprintf(where, size, "/");
    while (why == NULL) {
        struct stat st;
        if (dir < 0 || fstat(dir, &st) != 0 || (why = root_only_dir(&st)) != NULL) {
            why = why != NULL ? why : strerror(errno);
            break;
        }
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        snprintf(where, size, "%.*s", (int)(p + n - canon), canon);
        bool last = p[n] == '\0';
        int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
        close(dir);
        dir = next;
        p += n;
        if (!last)
            continue;
        if (dir < 0 || fstat(dir, &st) != 0)
            why = strerror(errno);
        else if (!S_ISREG(st.st_mode))
            why = "is not a regular file";
        else if (st.st_uid != 0)
            why = "is not owned by root";
        else if ((st.st_mode & 022) != 0)
            why = "is writable by its group or others";
        break;
    }
    if (dir >= 0)
        close(dir);
    return why;
}

/* Each directory ld.so goes through to reach path, as given (every
 * prefix, symlinks followed) and as resolved: root's alone. */
static const char *root_only_path(const char *path, char *where, size_t size)
{
    char canon[PATH_MAX], prefix[PATH_MAX];
    struct stat st;
    for (const char *p = path; (p = strchr(p + 1, '/')) != NULL;) {
        snprintf(prefix, sizeof prefix, "%.*s", (int)(p - path), path);
        snprintf(where, size, "%s", prefix);
        const char *why = stat(prefix, &st) != 0 ? strerror(errno) : root_only_dir(&st);
        if (why != NULL)
            return why;
    }
    snprintf(where, size, "%s", path);
    if (realpath(path, canon) == NULL)
        return strerror(errno);
    return walk_root_only(canon, where, size);
}

bool afx_library_trusted(const struct afx_library *lib)
{
    if (geteuid() != 0)
        return true;
    char where[PATH_MAX];
    const char *why = root_only_path(lib->file, where, sizeof where);
    if (why == NULL)
        return true;
    afx_error("%s: %s; as root, arenafix puts into a service only a library that only root can "
              "change (a root-owned file in root-owned directories no one else may write to): "
              "install it (make install, or the package), or set ARENAFIX_LIBRARY to such a copy",
              where, why);
    return false;
}

const char *afx_root_only_file(const char *path, char *where, size_t size)
{
    return root_only_path(path, where, size);
}
