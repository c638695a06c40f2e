#include "mappedfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static bool is_mapped_file(const struct stat *st, const struct afx_mapping *m)
{
    return S_ISREG(st->st_mode) && major(st->st_dev) == m->dev_major && minor(st->st_dev) == m->dev_minor
           && st->st_ino == m->inode;
}

/* By path, for a caller that may not use map_files. */
static int open_by_path(long pid, const struct afx_mapping *m)
{
    char path[PATH_MAX + 64], fdpath[64];
    struct stat st;
    if (m->path[0] != '/' || snprintf(path, sizeof path, "/proc/%ld/root%s", pid, m->path) >= (int)sizeof path) {
        errno = ENOENT;
        return -1;
    }
    int pathfd = open(path, O_PATH | O_CLOEXEC);
    if (pathfd < 0)
        return -1;
    if (fstat(pathfd, &st) != 0 || !is_mapped_file(&st, m)) {
        close(pathfd);
        errno = ESTALE;     /* another file than the one mapped */
        return -1;
    }
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", pathfd);
    int fd = open(fdpath, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    close(pathfd);
    return fd;
}

int afx_mapped_open(long pid, const struct afx_mapping *m)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/%ld/map_files/%lx-%lx", pid, m->start, m->end);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && (errno == EPERM || errno == EACCES))
        fd = open_by_path(pid, m);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
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
