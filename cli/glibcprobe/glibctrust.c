#include "glibctrust.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "proc/userfs.h"

/* A file only root can have written: root's, and no one else's to write. */
static bool root_only_file(const struct stat *st, char *why, size_t size)
{
    if (!S_ISREG(st->st_mode))
        snprintf(why, size, "not a regular file");
    else if (st->st_uid != 0)
        snprintf(why, size, "owned by uid %lu", (unsigned long)st->st_uid);
    else if ((st->st_mode & 022) != 0)
        snprintf(why, size, "writable by its group or others (mode %04o)", (unsigned)(st->st_mode & 07777));
    else
        return true;
    return false;
}

/* A directory only root can change.  Sticky (as /tmp) is not enough:
 * anyone may add a name there, and libc is looked up by name. */
static bool root_only_dir(const struct stat *st, const char *where, char *why, size_t size)
{
    if (!S_ISDIR(st->st_mode))
        snprintf(why, size, "%s is not a directory", where);
    else if (st->st_uid != 0)
        snprintf(why, size, "its directory %s is owned by uid %lu", where, (unsigned long)st->st_uid);
    else if ((st->st_mode & 022) != 0)
        snprintf(why, size, "its directory %s is writable by its group or others (mode %04o)", where,
                 (unsigned)(st->st_mode & 07777));
    else
        return true;
    return false;
}

/* The file behind fd (O_PATH) is on a file system the kernel serves
 * itself, by its mount or device as the kernel holds them (a statx that
 * asks no FUSE server): else false, with why naming where. */
static bool kernel_served(const struct afx_proc_root *pr, int fd, const char *where, char *why, size_t size)
{
    struct statx sx;
    unsigned major, minor;
    if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_MNT_ID, &sx) != 0) {
        snprintf(why, size, "cannot read %s: %s", where, strerror(errno));
        return false;
    }
    /* By its mount (btrfs's stat shows a subvolume's device, which no
     * mountinfo lists). */
    enum afx_fs_server s = afx_file_fs_server(pr->pid, &sx, &major, &minor);
    if (s == AFX_FS_KERNEL)
        return true;
    snprintf(why, size, "%s is %s", where, afx_user_fs_note(s == AFX_FS_USER ? AFX_ERR_USER_FS : AFX_ERR_UNSEEN_FS));
    return false;
}

/* The identity of a namespace file. */
static bool same_ns(int a, const char *b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Walk path from root without following links, each directory root's
 * alone; the last component's status into *last.  False with why set;
 * *absent when a component is missing. */
static bool walk(const struct afx_proc_root *pr, const char *path, struct stat *last, bool *absent, char *why, size_t size)
{
    char where[PATH_MAX];
    struct stat st;
    *absent = false;
    if (path[0] != '/') {
        snprintf(why, size, "mapped from no path in its root");
        return false;
    }
    int dir = dup(pr->root);
    if (dir < 0) {
        snprintf(why, size, "cannot open its root directory: %s", strerror(errno));
        return false;
    }
    snprintf(where, sizeof where, "/");
    const char *p = path;
    for (;;) {
        if (!kernel_served(pr, dir, where, why, size))
            break;
        if (fstat(dir, &st) != 0) {
            snprintf(why, size, "cannot read %s: %s", where, strerror(errno));
            break;
        }
        if (!root_only_dir(&st, where, why, size))
            break;
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        if (n == 0 || n > NAME_MAX) {
            snprintf(why, size, "mapped from no path in its root");
            break;
        }
        char name[NAME_MAX + 1];
        memcpy(name, p, n);
        name[n] = '\0';
        snprintf(where, sizeof where, "%.*s", (int)(p + n - path), path);
        bool is_last = p[n + strspn(p + n, "/")] == '\0';
        int next = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (is_last ? 0 : O_DIRECTORY));
        if (next < 0) {
            *absent = errno == ENOENT;
            snprintf(why, size, "%s %s", where,
                     errno == ENOENT    ? "is not there (deleted or renamed since it was mapped)"
                     : errno == ELOOP   ? "is a symbolic link"
                     : errno == ENOTDIR ? "goes through a symbolic link or a file"
                                        : strerror(errno));
            break;
        }
        close(dir);
        dir = next;
        p += n;
        if (!is_last)
            continue;
        if (!kernel_served(pr, dir, where, why, size))
            break;
        bool ok = fstat(dir, last) == 0;
        if (!ok)
            snprintf(why, size, "cannot read %s: %s", where, strerror(errno));
        close(dir);
        return ok;
    }
    close(dir);
    return false;
}

bool afx_proc_root_open(long pid, struct afx_proc_root *pr, char *why, size_t size)
{
    char path[64];
    pr->mnt = -1;
    pr->pid = pid;
    pr->prefix[0] = '\0';
    afx_proc_path(path, sizeof path, pid, "/root");
    pr->root = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (pr->root < 0) {
        snprintf(why, size, "cannot open its root directory: %s", strerror(errno));
        return false;
    }
    /* A process chrooted in our mount namespace: maps shows its files
     * by our paths, which start with its root's.  Only a hint for the
     * walk; the walk itself starts at the directory opened above. */
    ssize_t n = readlink(path, pr->prefix, sizeof pr->prefix - 1);
    pr->prefix[n > 1 ? n : 0] = '\0';
    afx_proc_path(path, sizeof path, pid, "/ns/mnt");
    pr->mnt = open(path, O_RDONLY | O_CLOEXEC);
    if (pr->mnt < 0) {
        snprintf(why, size, "cannot open its mount namespace: %s", strerror(errno));
        afx_proc_root_close(pr);
        return false;
    }
    return true;
}

void afx_proc_root_close(struct afx_proc_root *pr)
{
    if (pr->root >= 0)
        close(pr->root);
    if (pr->mnt >= 0)
        close(pr->mnt);
    pr->root = pr->mnt = -1;
}

/* Its mount namespace is owned by our user namespace. */
static bool mounts_root_only(int mnt, char *why, size_t size)
{
    int owner = ioctl(mnt, NS_GET_USERNS);
    bool same = owner >= 0 && same_ns(owner, "/proc/self/ns/user");
    if (owner >= 0)
        close(owner);
    else
        snprintf(why, size, "cannot tell who owns its mounts (NS_GET_USERNS: %s)", strerror(errno));
    if (owner >= 0 && !same)
        snprintf(why, size, "its mounts belong to another user namespace, whose owner may change them");
    return same;
}

bool afx_root_trusted(const struct afx_proc_root *pr, char *why, size_t size)
{
    struct stat st;
    struct statfs fs;
    bool absent;
    if (!mounts_root_only(pr->mnt, why, size))
        return false;
    if (!kernel_served(pr, pr->root, "its root directory", why, size))
        return false;
    if (fstat(pr->root, &st) != 0) {
        snprintf(why, size, "cannot read its root directory: %s", strerror(errno));
        return false;
    }
    if (!root_only_dir(&st, "/", why, size))
        return false;
    int proc = openat(pr->root, "proc", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
    char unused[8];
    bool procfs = proc >= 0 && kernel_served(pr, proc, "/proc", unused, sizeof unused) && fstatfs(proc, &fs) == 0
                  && fs.f_type == PROC_SUPER_MAGIC;
    if (proc >= 0)
        close(proc);
    if (!procfs) {
        snprintf(why, size, "its /proc is not the kernel's");
        return false;
    }
    if (walk(pr, "/etc/ld.so.preload", &st, &absent, why, size)) {
        char what[160];
        if (root_only_file(&st, what, sizeof what))
            return true;
        snprintf(why, size, "its /etc/ld.so.preload, which the loader reads, is %s", what);
        return false;
    }
    return absent;
}

bool afx_glibc_trusted(const struct afx_proc_root *pr, const struct afx_mapping *m, int fd, char *why, size_t size)
{
    struct stat st, named;
    bool absent;
    const char *path = m->path;
    size_t n = strlen(pr->prefix);
    if (n > 0 && strncmp(path, pr->prefix, n) == 0 && path[n] == '/')
        path += n;
    if (fstat(fd, &st) != 0) {
        snprintf(why, size, "cannot read it: %s", strerror(errno));
        return false;
    }
    if (!root_only_file(&st, why, size) || !walk(pr, path, &named, &absent, why, size))
        return false;
    if (named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
        snprintf(why, size, "%s names another file than the one it maps (replaced since it was mapped)", path);
        return false;
    }
    return true;
}
