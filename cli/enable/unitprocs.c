#include "unitprocs.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/ownroot.h"
#include "proc/proccgroup.h"
#include "readfile.h"

/* A cgroup file is a few lines; a longer one is no kernel's. */
#define CGROUP_MAX (64 << 10)

/* The process whose /proc directory is dir runs in unit, a system
 * service. */
static bool in_unit(int dir, const char *unit)
{
    size_t len = 0;
    struct afx_unit u;
    int fd = openat(dir, "cgroup", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    char *text = fd >= 0 ? afx_read_fd_max(fd, CGROUP_MAX, &len) : NULL;
    bool in = text != NULL && afx_cgroup_unit(text, len, &u) && !u.user && strcmp(u.name, unit) == 0;
    free(text);
    if (fd >= 0)
        close(fd);
    return in;
}

/* Process pid, its /proc directory opened once (a PID used again in
 * between is never read as the same process), runs in unit and in a
 * root of its own. */
static bool own_root_in(long pid, const char *unit)
{
    char path[64];
    int dir = open(afx_proc_path(path, sizeof path, pid, ""), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return false;
    bool own = in_unit(dir, unit) && afx_own_root_at(dir);
    close(dir);
    return own;
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
        if (*end != '\0' || pid < 1 || !own_root_in(pid, unit))
            continue;
        if (found < max)
            pids[found] = pid;
        found++;
    }
    if (d != NULL)
        closedir(d);
    return found;
}
