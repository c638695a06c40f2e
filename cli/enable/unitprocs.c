#include "unitprocs.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proc/ownroot.h"
#include "proc/proccgroup.h"
#include "readfile.h"

/* A cgroup file is a few lines; a longer one is no kernel's. */
#define CGROUP_MAX (64 << 10)

/* Process pid runs in unit, a system service. */
static bool in_unit(long pid, const char *unit)
{
    char path[64];
    size_t len = 0;
    struct afx_unit u;
    afx_proc_path(path, sizeof path, pid, "/cgroup");
    char *text = afx_slurp_max(path, CGROUP_MAX, NULL, &len);
    bool in = text != NULL && afx_cgroup_unit(text, len, &u) && !u.user && strcmp(u.name, unit) == 0;
    free(text);
    return in;
}

size_t afx_unit_own_roots(const char *unit, long *pids, size_t max)
{
    size_t found = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        char *end;
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid < 1 || !in_unit(pid, unit) || !afx_own_root(pid))
            continue;
        if (found < max)
            pids[found] = pid;
        found++;
    }
    if (d != NULL)
        closedir(d);
    return found;
}
