#include "glibctrust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The identity of a namespace file. */
static bool same_ns(int a, const char *b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Its mount namespace is owned by our user namespace: no one without
 * root's capabilities can mount over what the walk below sees. */
static bool mounts_root_only(long pid, char *why, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", pid);
    int mnt = open(path, O_RDONLY | O_CLOEXEC);
    if (mnt < 0) {
        snprintf(why, size, "cannot open its mount namespace: %s", strerror(errno));
        return false;
    }
    int owner = ioctl(mnt, NS_GET_USERNS);
    bool same;
    if (owner >= 0) {
        same = same_ns(owner, "/proc/self/ns/user");
        close(owner);
    } else {
        /* Before Linux 4.9: the process's own user namespace, which
         * owns any mount namespace it could have made. */
        snprintf(path, sizeof path, "/proc/%ld/ns/user", pid);
        int user = open(path, O_RDONLY | O_CLOEXEC);
        same = user >= 0 && same_ns(user, "/proc/self/ns/user");
        if (user >= 0)
            close(user);
    }
    close(mnt);
    if (!same)
        snprintf(why, size, "its mounts belong to another user namespace, whose owner may change them");
    return same;
}

/* Walk path from the process's root without following links, each
 * directory root's alone; the last component's status into *last.
 * False with why set; *absent when only the last component is missing. */
static bool walk(long pid, const char *path, struct stat *last, bool *absent, char *why, size_t size)
{
    char link[64], where[PATH_MAX];
    struct stat st;
    *absent = false;
    if (path[0] != '/') {
        snprintf(why, size, "mapped from no path in its root");
        return false;
    }
    snprintf(link, sizeof link, "/proc/%ld/root", pid);
    int dir = open(link, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        snprintf(why, size, "cannot open its root directory: %s", strerror(errno));
        return false;
    }
    snprintf(where, sizeof where, "/");
    const char *p = path;
    for (;;) {
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
            *absent = is_last && errno == ENOENT;
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
        bool ok = fstat(dir, last) == 0;
        if (!ok)
            snprintf(why, size, "cannot read %s: %s", where, strerror(errno));
        close(dir);
        return ok;
    }
    close(dir);
    return false;
}

bool afx_glibc_trusted(long pid, const struct afx_mapping *m, int fd, char *why, size_t size)
{
    struct stat st, named;
    bool absent;
    if (fstat(fd, &st) != 0) {
        snprintf(why, size, "cannot read it: %s", strerror(errno));
        return false;
    }
    if (!root_only_file(&st, why, size) || !mounts_root_only(pid, why, size)
        || !walk(pid, m->path, &named, &absent, why, size))
        return false;
    if (named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
        snprintf(why, size, "%s names another file than the one it maps (replaced since it was mapped)", m->path);
        return false;
    }
    return true;
}

bool afx_preload_list_trusted(long pid, char *why, size_t size)
{
    struct stat st;
    bool absent;
    if (walk(pid, "/etc/ld.so.preload", &st, &absent, why, size))
        return root_only_file(&st, why, size);
    return absent;
}
