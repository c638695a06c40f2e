#include "mappedfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "userfs.h"

/* Device major:minor as process pid's mounts name it is the kernel's:
 * 0, or -1 with errno AFX_ERR_USER_FS (a user's FUSE file system) or
 * AFX_ERR_UNSEEN_FS (mounted nowhere it or we can see). */
static int served(enum afx_fs_server s)
{
    switch (s) {
    case AFX_FS_KERNEL:
        return 0;
    case AFX_FS_USER:
        errno = AFX_ERR_USER_FS;
        return -1;
    default:
        errno = AFX_ERR_UNSEEN_FS;
        return -1;
    }
}

static int dev_kernel_served(long pid, unsigned major, unsigned minor)
{
    return served(afx_fs_server(pid, major, minor));
}

/* The file system of the file behind pathfd (O_PATH), from what the
 * kernel holds: statx syncs nothing from a FUSE server with
 * AT_STATX_DONT_SYNC, and the open pathfd keeps that file system's
 * mount (and device number) its own while it is looked up.  0, or -1
 * with errno (AFX_ERR_USER_FS or AFX_ERR_UNSEEN_FS where it is not the
 * kernel's); *major:*minor the device its mount lists (userfs.h). */
static int file_kernel_served(long pid, int pathfd, struct statx *sx, unsigned *major, unsigned *minor)
{
    if (statx(pathfd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE | STATX_INO | STATX_MNT_ID, sx) != 0)
        return -1;
    return served(afx_file_fs_server(pid, sx, major, minor));
}

/* The file sx describes, on the mount that lists major:minor, is the
 * one mapped: the same inode, and the device maps shows, as stat shows
 * it or as its mount's line lists it (btrfs's stat shows a subvolume's
 * own device, maps the file system's). */
static bool same_file(const struct statx *sx, unsigned major, unsigned minor, const struct afx_mapping *m)
{
    bool dev = (sx->stx_dev_major == m->dev_major && sx->stx_dev_minor == m->dev_minor)
               || (major == m->dev_major && minor == m->dev_minor);
    return dev && sx->stx_ino == m->inode;
}

/* pathfd (O_PATH, closed here) opened for reading, if it is a regular
 * file the kernel serves (an open of a FUSE file waits on its server)
 * and, where same is given, that very file: its device and inode. */
static int reopen_checked(long pid, int pathfd, const struct afx_mapping *same)
{
    char fdpath[64];
    struct statx sx;
    unsigned major, minor;
    int fd = -1;
    if (file_kernel_served(pid, pathfd, &sx, &major, &minor) != 0)
        goto out;
    if (!S_ISREG(sx.stx_mode)) {
        errno = EINVAL;
        goto out;
    }
    if (same != NULL && !same_file(&sx, major, minor, same)) {
        errno = ESTALE;     /* another file than the one mapped */
        goto out;
    }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", pathfd);
    fd = open(fdpath, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
out:;
    int err = errno;
    close(pathfd);
    errno = err;
    return fd;
}

/* By path, for a caller that may not use map_files: never a path that
 * crosses a FUSE mount, whose every lookup goes to its server. */
static int open_by_path(long pid, const struct afx_mapping *m)
{
    char path[PATH_MAX + 64];
    if (m->path[0] != '/' || snprintf(path, sizeof path, "/proc/%ld/root%s", pid, m->path) >= (int)sizeof path) {
        errno = ENOENT;
        return -1;
    }
    if (afx_path_crosses_user_fs(pid, m->path)) {
        errno = AFX_ERR_USER_FS;
        return -1;
    }
    int pathfd = open(path, O_PATH | O_CLOEXEC);
    if (pathfd < 0)
        return -1;
    return reopen_checked(pid, pathfd, m);
}

int afx_mapped_open(long pid, const struct afx_mapping *m)
{
    char path[128];
    /* Its device as maps shows it: an overlay's file is its layer's, a
     * FUSE one's as well as any. */
    if (dev_kernel_served(pid, m->dev_major, m->dev_minor) != 0)
        return -1;
    /* map_files' link leads to the mapped file itself: an O_PATH open
     * of it looks nothing up and opens nothing in its file system. */
    snprintf(path, sizeof path, "/proc/%ld/map_files/%lx-%lx", pid, m->start, m->end);
    int pathfd = open(path, O_PATH | O_CLOEXEC);
    if (pathfd < 0 && (errno == EPERM || errno == EACCES))
        return open_by_path(pid, m);
    if (pathfd < 0)
        return -1;
    return reopen_checked(pid, pathfd, NULL);
}

int afx_exe_open(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    int pathfd = open(path, O_PATH | O_CLOEXEC);
    if (pathfd < 0)
        return -1;
    return reopen_checked(pid, pathfd, NULL);
}

bool afx_glibc_version(int fd, char *out, size_t size)
{
    static const char marker[] = "release version ";
    enum { CHUNK = 1 << 16, KEEP = sizeof marker - 1 + 32 };
    static char buf[KEEP + CHUNK + 1];
    size_t kept = 0;
    off_t offset = 0;
    bool last = false;
    while (!last) {
        ssize_t n = pread(fd, buf + kept, CHUNK, offset);
        if (n < 0 && errno == EINTR)
            continue;
        last = n <= 0 || offset + n >= AFX_GLIBC_SCAN_MAX;
        offset += n > 0 ? n : 0;
        size_t len = kept + (size_t)(n > 0 ? n : 0);
        buf[len] = '\0';
        char *hit = memmem(buf, len, marker, sizeof marker - 1);
        if (hit != NULL && ((size_t)(hit - buf) + KEEP <= len || last)) {
            hit += sizeof marker - 1;
            size_t v = strspn(hit, "0123456789.");
            while (v > 0 && hit[v - 1] == '.')
                v--;
            if (v == 0 || v >= size)
                return false;
            memcpy(out, hit, v);
            out[v] = '\0';
            return true;
        }
        /* Keep the tail: the marker and its version may straddle reads. */
        kept = len < KEEP ? len : KEEP;
        memmove(buf, buf + len - kept, kept);
    }
    return false;
}

bool afx_glibc_malloc_in(int fd)
{
    static const char marker[] = "glibc.malloc.arena_max";
    enum { CHUNK = 1 << 16, KEEP = sizeof marker - 1 };
    static char buf[KEEP + CHUNK];
    size_t kept = 0;
    for (off_t offset = 0; offset < AFX_GLIBC_SCAN_MAX;) {
        ssize_t n = pread(fd, buf + kept, CHUNK, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        offset += n;
        size_t len = kept + (size_t)n;
        if (memmem(buf, len, marker, sizeof marker - 1) != NULL)
            return true;
        /* The name may straddle reads. */
        kept = len < KEEP ? len : KEEP;
        memmove(buf, buf + len - kept, kept);
    }
    return false;
}
