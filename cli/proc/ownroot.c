#include "proc/ownroot.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/rootdir.h"
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

/* The kernel's name of link ("exe", "root") of the process whose /proc
 * directory is dir: a path from the top of its mount namespace, the
 * same for both.  False if unreadable or not a plain path (" (deleted)"
 * is then a part of the name, which no lookup below finds). */
static bool link_of(int dir, const char *link, char *out, size_t size)
{
    ssize_t n = readlinkat(dir, link, out, size - 1);
    if (n <= 0 || (size_t)n >= size - 1 || out[0] != '/')
        return false;
    out[n] = '\0';
    return true;
}

/* path is root or below it. */
static bool within(const char *path, const char *root)
{
    size_t n = strlen(root);
    return strcmp(root, "/") == 0 || (strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0'));
}

/* The regular file at path in the host's root (PID 1's, else this
 * command's), resolved without a symlink leading out of it. */
static bool host_file(const char *path, struct stat *st)
{
    struct afx_root host = {.fd = open("/proc/1/root", O_PATH | O_DIRECTORY | O_CLOEXEC)};
    if (host.fd < 0)
        host.fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (host.fd < 0)
        return false;
    int rc = afx_root_stat(&host, path + strspn(path, "/"), st);
    close(host.fd);
    return rc == 0 && S_ISREG(st->st_mode);
}

/* The process (its /proc directory dir) runs a program it was started
 * with before it entered its root: the kernel's file of its executable
 * lies outside its root, and is the host's file of that name.  A daemon
 * that chroots itself (HAProxy, postfix, named -t) after its unit
 * started it: the unit's LD_PRELOAD was loaded before that.  A
 * container's program lies in its root (an engine's pivot_root: "/",
 * a chroot: below its root's name), or is none of the host's files
 * (its image's, on an overlay: another device or inode). */
static bool started_outside(int dir)
{
    char exe[PATH_MAX], root[PATH_MAX];
    struct stat runs, host;
    if (!link_of(dir, "exe", exe, sizeof exe) || !link_of(dir, "root", root, sizeof root) || within(exe, root))
        return false;
    return fstatat(dir, "exe", &runs, 0) == 0 && host_file(exe, &host) && same(&runs, &host);
}

bool afx_own_root_at(int dir)
{
    struct stat host, its;
    if (fstatat(dir, "ns/mnt", &its, 0) != 0 || !host_has("/ns/mnt", &host) || same(&its, &host))
        return false;
    if (fstatat(dir, "root", &its, 0) != 0 || !host_has("/root", &host) || same(&its, &host))
        return false;
    return !started_outside(dir);
}

bool afx_own_root(long pid)
{
    char path[64];
    int dir = open(afx_proc_path(path, sizeof path, pid, ""), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return false;
    bool own = afx_own_root_at(dir);
    close(dir);
    return own;
}
