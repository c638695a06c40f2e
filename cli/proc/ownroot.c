#include "proc/ownroot.h"

#include <sys/stat.h>

#include "readfile.h"

static bool same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The host's mount namespace or root (tail "/ns/mnt" or "/root"): PID
 * 1's, else, where PID 1's cannot be read, this command's own. */
static bool host_has(const char *tail, struct stat *st)
{
    char path[64];
    afx_proc_path(path, sizeof path, 1, tail);
    if (stat(path, st) == 0)
        return true;
    afx_path_join(path, sizeof path, "/proc/self", tail);
    return stat(path, st) == 0;
}

bool afx_own_root(long pid)
{
    char path[64];
    struct stat host, its;
    afx_proc_path(path, sizeof path, pid, "/ns/mnt");
    if (stat(path, &its) != 0 || !host_has("/ns/mnt", &host) || same(&its, &host))
        return false;
    afx_proc_path(path, sizeof path, pid, "/root");
    return stat(path, &its) == 0 && host_has("/root", &host) && !same(&its, &host);
}
