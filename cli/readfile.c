#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void afx_deadline_in(struct afx_deadline *d, long seconds)
{
    clock_gettime(CLOCK_MONOTONIC, &d->at);
    d->at.tv_sec += seconds;
}

bool afx_deadline_passed(const struct afx_deadline *d)
{
    struct timespec now;
    if (d == NULL)
        return false;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > d->at.tv_sec || (now.tv_sec == d->at.tv_sec && now.tv_nsec >= d->at.tv_nsec);
}

/* Read fd to its end (at most max bytes, until by), close it. */
static char *slurp_fd(int fd, size_t max, const struct afx_deadline *by, size_t *len)
{
    /* /proc files report size 0: grow as we go. */
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (used > max || afx_deadline_passed(by)) {
            free(buf);
            buf = NULL;
            errno = used > max ? EFBIG : ETIME;
            break;
        }
        if (used + 1 >= cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL) {
                free(buf);
                buf = NULL;
                errno = ENOMEM;
                break;
            }
            buf = bigger;
        }
        ssize_t n = read(fd, buf + used, cap - used - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            free(buf);
            buf = NULL;
            errno = err;
            break;
        }
        if (n == 0) {
            buf[used] = '\0';
            if (len != NULL)
                *len = used;
            break;
        }
        used += (size_t)n;
    }
    int err = errno;
    close(fd);
    errno = err;
    return buf;
}

char *afx_slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    return slurp_fd(fd, (size_t)-1 / 2, NULL, len);
}

char *afx_slurp_max(const char *path, size_t max, const struct afx_deadline *by, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    return slurp_fd(fd, max, by, len);
}

bool afx_read_pieces(const char *path, size_t max, const struct afx_deadline *by,
                     void (*feed)(void *ctx, const char *piece, size_t len), void *ctx)
{
    char buf[1 << 16];
    size_t total = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return false;
    for (;;) {
        /* Past max, no more is read: the kernel writes a file such as
         * maps as it is read, so what is not read costs nothing. */
        if (total > max || afx_deadline_passed(by)) {
            close(fd);
            errno = total > max ? EFBIG : ETIME;
            return false;
        }
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = errno;
            close(fd);
            errno = err;
            return n == 0;
        }
        total += (size_t)n;
        feed(ctx, buf, (size_t)n);
    }
}

bool afx_same_bytes(int a, int b, off_t size)
{
    static char x[1 << 16], y[1 << 16];
    for (off_t at = 0; at < size;) {
        size_t want = size - at < (off_t)sizeof x ? (size_t)(size - at) : sizeof x;
        if (pread(a, x, want, at) != (ssize_t)want || pread(b, y, want, at) != (ssize_t)want
            || memcmp(x, y, want) != 0)
            return false;
        at += (off_t)want;
    }
    return true;
}

void afx_first_line(const char *path, char *out, size_t size)
{
    char *text = afx_slurp(path, NULL);
    out[0] = '\0';
    if (text == NULL)
        return;
    /* The kernel pads some files ("          (null)" in nohz_full when it
     * is off, as wide as a CPU mask): keep the words only. */
    const char *start = text + strspn(text, " \t");
    size_t n = strcspn(start, "\n");
    while (n > 0 && (start[n - 1] == ' ' || start[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(out, start, n);
    out[n] = '\0';
    free(text);
}

const char *afx_path_join(char *out, size_t size, const char *dir, const char *tail)
{
    size_t a = strlen(dir), b = strlen(tail);
    if (size == 0)
        return out;
    if (a + b >= size) {
        out[0] = '\0';
        return out;
    }
    memmove(out, dir, a);
    memcpy(out + a, tail, b + 1);
    return out;
}

const char *afx_proc_path(char *out, size_t size, long pid, const char *tail)
{
    char digits[24], dir[32] = "/proc/";
    size_t n = 0;
    unsigned long v = pid > 0 ? (unsigned long)pid : 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    for (size_t i = 0; i < n; i++)
        dir[6 + i] = digits[n - 1 - i];
    dir[6 + n] = '\0';
    return afx_path_join(out, size, dir, tail);
}

char *afx_read_fd_max(int fd, size_t max, size_t *len)
{
    char *buf = malloc(max + 1);
    size_t n = 0;
    while (buf != NULL) {
        ssize_t got = read(fd, buf + n, max + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 || n + (size_t)got > max)
            break;
        if (got == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}
