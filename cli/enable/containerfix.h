/* What arenafix changed for containers in a tree (/, or --root DIR), for
 * arenafix status: the OCI hook's hooks.d entries, the CDI specs of its
 * device, the engines' configurations that name arenafix-runtime, and
 * what the hook last said in its log.  Read as status reads the rest of
 * the tree (rootdir.c): inside the root, regular files only, bounded. */
#ifndef AFX_CONTAINERFIX_H
#define AFX_CONTAINERFIX_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "files/rootdir.h"

enum { AFX_FIX_MAX = 8 };

struct afx_container_fixes {
    /* Paths relative to the root ("usr/share/...") of what was found. */
    char hooks[AFX_FIX_MAX][PATH_MAX];
    size_t nhooks;
    char cdi[AFX_FIX_MAX][PATH_MAX];
    size_t ncdi;
    char runtimes[AFX_FIX_MAX][PATH_MAX];
    size_t nruntimes;
    /* The name docker's daemon.json gives arenafix-runtime in its
     * "runtimes" ("" if none): docker run --runtime NAME. */
    char docker_runtime[64];
    /* The hooks.d entry a rootful podman here runs ("" if none): one
     * in the directory podman reads by default, which no
     * containers.conf replaces with a list that does not name it. */
    char podman_hook[PATH_MAX];
    /* The hook's log: the first hooks.d entry's --log, else the
     * package's default; whether it exists, its lines, its last one. */
    char log[PATH_MAX];
    bool log_exists;
    long log_lines;
    char log_last[512];
};

void afx_container_fixes_read(const struct afx_root *r, struct afx_container_fixes *f);

#endif
