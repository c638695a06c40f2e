#include "userns.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel nests user namespaces 32 deep at most. */
#define NESTING_MAX 33

static bool same_ns(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Of the user namespace fd names, the outermost one below ours (fd
 * itself, or a parent): its fd, fd closed if another; -1 if fd is ours
 * or not below it (NS_GET_PARENT refuses to leave the caller's
 * namespace: EPERM). */
static int outermost_below(int fd, const struct stat *ours)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || same_ns(&st, ours)) {
        close(fd);
        return -1;
    }
    for (int depth = 0; depth < NESTING_MAX; depth++) {
        int parent = ioctl(fd, NS_GET_PARENT);
        if (parent < 0) {
            close(fd);
            return -1;
        }
        bool top = fstat(parent, &st) == 0 && same_ns(&st, ours);
        if (top) {
            close(parent);
            return fd;
        }
        close(fd);
        fd = parent;
    }
    close(fd);
    return -1;
}

bool afx_userns_of(long pid, struct afx_userns *u)
{
    char path[64];
    struct stat ours, mnt;
    int saved = errno;
    *u = (struct afx_userns){ 0 };
    if (stat("/proc/self/ns/user", &ours) != 0)
        return false;
    afx_proc_path(path, sizeof path, pid, "/ns/user");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    fd = outermost_below(fd, &ours);
    if (fd < 0)
        return false;
    uid_t owner;
    bool ok = ioctl(fd, NS_GET_OWNER_UID, &owner) == 0;
    close(fd);
    afx_proc_path(path, sizeof path, pid, "/ns/mnt");
    ok = ok && stat(path, &mnt) == 0;
    if (ok) {
        u->owner = owner;
        u->mnt = (unsigned long long)mnt.st_ino;
    }
    errno = saved;
    return ok;
}

bool afx_uid_map_identity(const char *text)
{
    unsigned long inside, outside, count;
    int used = 0;
    return sscanf(text, " %lu %lu %lu %n", &inside, &outside, &count, &used) == 3 && text[used] == '\0'
           && inside == 0 && outside == 0 && count == 4294967295UL;
}

bool afx_userns_initial(void)
{
    char text[256];
    int saved = errno;
    int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        errno = saved;
        return true;
    }
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    errno = saved;
    if (n < 0)
        return true;
    text[n] = '\0';
    return afx_uid_map_identity(text);
}

char *afx_user_name(uid_t uid, char *out, size_t size)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (size > 0)
        out[0] = '\0';
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != NULL && strlen(pw.pw_name) < size)
        snprintf(out, size, "%s", pw.pw_name);
    return out;
}
