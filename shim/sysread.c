#include "sysread.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#include <sys/syscall.h>

#include "mask.h"
#include "sysparse.h"

typedef void afx_feed_fn(void *parser, const char *text, size_t len);

/* Stream a file through a parser.  False if it cannot be read.  By
 * the system calls themselves (mask.c), errno untouched: this runs in
 * the constructor of every process, where binding open, read and close
 * lazily would cost more than the read. */
static bool feed_file(const char *path, afx_feed_fn *feed, void *parser)
{
    char buf[512];
    long fd;
    do
        fd = afx_sysraw(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
    while (fd == -EINTR);
    if (fd < 0)
        return false;
    bool ok = true;
    for (;;) {
        long n = afx_sysraw(SYS_read, fd, (long)buf, sizeof buf, 0, 0, 0);
        if (n == -EINTR)
            continue;
        if (n < 0)
            ok = false;
        if (n <= 0)
            break;
        feed(parser, buf, (size_t)n);
    }
    afx_sysraw(SYS_close, fd, 0, 0, 0, 0, 0);
    return ok;
}

static void feed_cpulist(void *p, const char *text, size_t len)
{
    afx_cpulist_feed(p, text, len);
}

static void feed_statcpus(void *p, const char *text, size_t len)
{
    afx_statcpus_feed(p, text, len);
}

/* The last count read from a file.  It is read once, at startup; but
 * a process forked by another thread meanwhile starts again in the
 * child, where no descriptor may be left (EMFILE): that read uses it. */
static atomic_long last_online;

long afx_online_cpus(const char **source)
{
    struct afx_cpulist list;
    afx_cpulist_begin(&list);
    if (feed_file("/sys/devices/system/cpu/online", feed_cpulist, &list)) {
        long n = afx_cpulist_end(&list);
        if (n > 0) {
            *source = "/sys/devices/system/cpu/online";
            atomic_store_explicit(&last_online, n, memory_order_relaxed);
            return n;
        }
    }

    struct afx_statcpus stat;
    afx_statcpus_begin(&stat);
    if (feed_file("/proc/stat", feed_statcpus, &stat) && afx_statcpus_end(&stat) > 0) {
        *source = "/proc/stat";
        atomic_store_explicit(&last_online, afx_statcpus_end(&stat), memory_order_relaxed);
        return afx_statcpus_end(&stat);
    }

    long n = atomic_load_explicit(&last_online, memory_order_relaxed);
    if (n > 0) {
        *source = "an earlier read (the files cannot be read now)";
        return n;
    }
    *source = NULL;
    return -1;
}

/* Read up to SIZE bytes of a small file.  -1 if it cannot be opened. */
static long read_small(const char *path, char *buf, size_t size)
{
    int fd;
    do
        fd = open(path, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return -1;
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, size - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (len += (size_t)n) == size)
            break;
    }
    close(fd);
    return (long)len;
}

/* Apart, so that only this rare path pays for its 4 KiB of stack: the
 * count is taken on every pthread_create until the limit is set, and
 * in verbose mode from the affinity calls, which a signal handler on a
 * small alternate stack may make. */
static __attribute__((noinline)) long thread_count_from_status(void)
{
    char buf[4096];
    long len = read_small("/proc/self/status", buf, sizeof buf);
    return len >= 0 ? afx_status_threads(buf, (size_t)len) : -1;
}

long afx_thread_count(void)
{
    char buf[1024];
    long len = read_small("/proc/self/stat", buf, sizeof buf);
    long n = len >= 0 ? afx_stat_num_threads(buf, (size_t)len) : -1;
    if (n >= 0 || len < 0)
        return n;
    /* Read, but no count in it (qemu-user): the status file's. */
    return thread_count_from_status();
}

long afx_thread_cpus(void)
{
    /* Room for 8192 CPUs, as glibc's own first try.  The kernel fills
     * what it returns, the rest is cleared here. */
    unsigned long mask[8192 / (8 * sizeof(unsigned long))];
    long got = afx_sysraw(SYS_sched_getaffinity, 0, sizeof mask, (long)mask, 0, 0, 0);
    if (got <= 0)
        return -1;
    return afx_mask_count(mask, (size_t)got);
}
