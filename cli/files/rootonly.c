#include "rootonly.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "readfile.h"
/* A few hundred bytes a container: room for tens of thousands. */
#define STATE_MAX (16L << 20)

static bool root_only(const struct stat *st)
{
    return st->st_uid == 0 && (st->st_mode & 022) == 0;
}

/* path (absolute), opened only if it and every directory on its way are
 * root's alone, no link followed: what it says, root wrote.  -1 if not,
 * or if larger than max. */
static int open_root_only_max(const char *path, off_t max)
{
    struct stat st;
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *p = path;
    while (dir >= 0) {
        if (fstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !root_only(&st))
            break;
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        if (n == 0 || n > NAME_MAX)
            break;
        memcpy(name, p, n);
        name[n] = '\0';
        p += n;
        bool last = *p == '\0';
        int next = openat(dir, name, last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                                          : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dir);
        dir = next;
        if (last && dir >= 0) {
            if (fstat(dir, &st) == 0 && S_ISREG(st.st_mode) && root_only(&st) && st.st_size <= max)
                return dir;
            break;
        }
    }
    if (dir >= 0)
        close(dir);
    return -1;
}

static int open_root_only(const char *path)
{
    return open_root_only_max(path, STATE_MAX);
}

/* The whole of fd, at most STATE_MAX bytes; NULL if more or unreadable. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n == cap) {
            char *bigger = cap < (size_t)STATE_MAX ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        if (got == 0) {
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}

int afx_open_root_only(const char *path)
{
    return open_root_only(path);
}

int afx_open_root_program(const char *path)
{
    return open_root_only_max(path, INT64_MAX);
}

char *afx_read_root_only(int fd, size_t *len)
{
    return read_all(fd, len);
}
