#include "memreader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc/procmaps.h"
#include "readfile.h"
#include "textbuf.h"

/* Addresses asked for at once: a process's heaps, as the maps keep them. */
#define BATCH AFX_MAX_HEAPS
/* How often a helper past its budget is looked at: abandoned once it
 * has slept a whole slice, using no CPU. */
#define SLICE_MS 100
/* What the helper reads of a file at a time: a process's whole maps or
 * environment, most often, in one request. */
#define CHUNK (256 << 10)

/* Shared with the helper (MAP_SHARED, its own for each helper: one
 * abandoned may still write to its own when it wakes). */
struct shared {
    enum { WORDS, FILE_OPEN, FILE_MORE } kind;
    size_t count;               /* WORDS: addresses in at[] */
    bool has_by;
    struct afx_deadline by;
    long done;                  /* the helper's answer: read whole, or bytes in buf */
    int err;                    /* ETIME if its deadline passed; a file's read's errno */
    bool eof;                   /* the file read to its end */
    unsigned long at[BATCH];
    unsigned long words[BATCH * AFX_MEM_WORDS];
    char path[128];             /* FILE_OPEN: the file the helper opens */
    size_t want;                /* FILE_*: bytes to read this time, at most CHUNK */
    char buf[CHUNK];
};

static struct {
    pid_t pid;                  /* 0: none started */
    int sock;
    struct shared *sh;
} helper;

/* ---- the helper --------------------------------------------------------- */

/* Its one file descriptor, sent with each request. */
static int received_fd(int sock)
{
    char byte, control[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { &byte, 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                          .msg_controllen = sizeof control };
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -2;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS
        || c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* Every descriptor but keep closed: close_range where the kernel has it
 * (5.9) and a seccomp filter lets it through, else one close each up to
 * the limit.  Standard input, output and error go whatever happens: a
 * helper asleep past SIGKILL must hold no pipe a reader waits on. */
static void close_all_but(int keep)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fd != keep)
            close(fd);
    bool closed = true;
#ifdef SYS_close_range
    if (keep > 3 && syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U) != 0)
        closed = false;
    if (closed && syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U) != 0)
        closed = false;
#else
    closed = false;
#endif
    if (closed)
        return;
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 1 << 20)
        max = 1 << 20;
    for (long fd = 3; fd < max; fd++)
        if (fd != keep)
            close((int)fd);
}

/* A file's next sh->want bytes at most into sh->buf, opening sh->path
 * first (FILE_OPEN, the one before closed), closed once read to its end
 * or failed. */
static void read_file(struct shared *sh, int *file)
{
    sh->done = 0;
    sh->err = 0;
    sh->eof = false;
    if (sh->kind == FILE_OPEN) {
        if (*file >= 0)
            close(*file);
        *file = open(sh->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    }
    if (*file < 0) {
        sh->err = sh->kind == FILE_OPEN ? errno : EBADF;
        return;
    }
    size_t got = 0, want = sh->want < CHUNK ? sh->want : CHUNK;
    while (got < want) {
        if (sh->has_by && afx_deadline_passed(&sh->by)) {
            sh->err = ETIME;
            break;
        }
        ssize_t n = read(*file, sh->buf + got, want - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            sh->err = n < 0 ? errno : 0;
            sh->eof = n == 0;
            break;
        }
        got += (size_t)n;
    }
    sh->done = (long)got;
    if (sh->eof || sh->err != 0) {
        close(*file);
        *file = -1;
    }
}

/* Holds nothing but its socket: asleep on a user's file, it must keep
 * no pipe of ours (the output a reader waits on) open.  Ends as its
 * parent does, killed, with nothing to flush (and nothing of its own
 * for a profiler to report). */
static _Noreturn void serve(int sock, struct shared *sh, pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        raise(SIGKILL);
    close_all_but(sock);
    int file = -1;              /* the file being read, between requests */
    for (;;) {
        int fd = received_fd(sock);
        if (fd == -2)
            raise(SIGKILL);
        if (sh->kind != WORDS) {
            if (fd >= 0)
                close(fd);
            read_file(sh, &file);
            if (send(sock, "", 1, MSG_NOSIGNAL) != 1)
                raise(SIGKILL);
            continue;
        }
        long done = 0;
        int err = 0;
        for (size_t i = 0; fd >= 0 && i < sh->count; i++) {
            if (sh->has_by && afx_deadline_passed(&sh->by)) {
                err = ETIME;
                break;
            }
            size_t size = AFX_MEM_WORDS * sizeof(unsigned long);
            if (pread(fd, &sh->words[i * AFX_MEM_WORDS], size, (off_t)sh->at[i]) != (ssize_t)size)
                break;
            done++;
        }
        if (fd >= 0)
            close(fd);
        sh->done = done;
        sh->err = err;
        if (send(sock, "", 1, MSG_NOSIGNAL) != 1)
            raise(SIGKILL);
    }
}

/* ---- its parent's side -------------------------------------------------- */

static bool start(void)
{
    int sv[2];
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return false;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        munmap(sh, sizeof *sh);
        return false;
    }
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        close(sv[0]);
        serve(sv[1], sh, parent);
    }
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        munmap(sh, sizeof *sh);
        return false;
    }
    helper.pid = pid;
    helper.sock = sv[0];
    helper.sh = sh;
    return true;
}

/* Killed and forgotten, never waited for: asleep on a user's file it
 * may not end until that file system's program answers. */
static void abandon(void)
{
    kill(helper.pid, SIGKILL);
    close(helper.sock);
    munmap(helper.sh, sizeof *helper.sh);
    helper.pid = 0;
}

static bool send_fd(int fd)
{
    char control[CMSG_SPACE(sizeof(int))] = { 0 };
    struct iovec iov = { "", 1 };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                          .msg_controllen = sizeof control };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(helper.sock, &msg, MSG_NOSIGNAL) == 1;
}

struct sample {
    bool asleep;                /* S or D: waiting in the kernel */
    unsigned long long cpu;     /* utime + stime */
};

/* The helper's state and CPU time, from its stat; false if unread. */
static bool sample(struct sample *s)
{
    char path[64];
    afx_proc_path(path, sizeof path, helper.pid, "/stat");
    char *text = afx_slurp_max(path, 4096, NULL, NULL);
    char *p = text != NULL ? strrchr(text, ')') : NULL;
    unsigned long long utime, stime;
    char state;
    /* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime" */
    bool ok = p != NULL
              && sscanf(p, ") %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &state, &utime, &stime) == 3;
    if (ok)
        *s = (struct sample){ state == 'S' || state == 'D', utime + stime };
    free(text);
    return ok;
}

/* Milliseconds left to by: AFX_READ_SECONDS without one, 0 past it. */
static int budget_ms(const struct afx_deadline *by)
{
    long ms = AFX_READ_SECONDS * 1000L;
    if (by != NULL) {
        struct afx_deadline now;
        afx_deadline_in(&now, 0);
        long left = (long)(by->at.tv_sec - now.at.tv_sec) * 1000L + (by->at.tv_nsec - now.at.tv_nsec) / 1000000L;
        ms = left < 0 ? 0 : left < ms ? left : ms;
    }
    return (int)ms;
}

/* True once the helper has answered.  Its budget is measured by the
 * kernel's timer, not by a clock this command reads (which a profiler's
 * run may stop); past it, the helper is given up only if it sleeps in
 * the kernel a whole slice through: one at work, or waiting for a CPU,
 * however slow, is waited for. */
static bool answered(const struct afx_deadline *by)
{
    struct pollfd p = { .fd = helper.sock, .events = POLLIN };
    if (poll(&p, 1, budget_ms(by)) > 0)
        return true;
    for (;;) {
        struct sample a, b;
        if (!sample(&a))
            return false;
        if (poll(&p, 1, SLICE_MS) > 0)
            return true;
        if (!sample(&b) || (a.asleep && b.asleep && a.cpu == b.cpu))
            return false;
    }
}

/* One request of the helper's (sh filled in, the memory open as fd
 * with WORDS), answered in time: false with errno ETIME if it was left
 * asleep past its budget, another if none could be started or it is
 * gone, and then it is abandoned, a fresh one started for the next. */
static bool ask(int fd, const struct afx_deadline *by)
{
    char byte;
    bool sent = fd >= 0 ? send_fd(fd) : send(helper.sock, "", 1, MSG_NOSIGNAL) == 1;
    bool in_time = sent && answered(by);
    if (!in_time || recv(helper.sock, &byte, 1, 0) != 1) {
        /* Asleep past its budget, or gone. */
        abandon();
        errno = sent && !in_time ? ETIME : EIO;
        return false;
    }
    return true;
}

/* The helper, started if none is, with the deadline of a request. */
static struct shared *ready(const struct afx_deadline *by)
{
    if (afx_deadline_passed(by)) {
        errno = ETIME;
        return NULL;
    }
    if (helper.pid == 0 && !start())
        return NULL;
    struct shared *sh = helper.sh;
    sh->has_by = by != NULL;
    if (by != NULL)
        sh->by = *by;
    return sh;
}

long afx_mem_read_words(int fd, const unsigned long *at, size_t count, unsigned long *words,
                        const struct afx_deadline *by)
{
    long total = 0;
    for (size_t from = 0; from < count;) {
        struct shared *sh = ready(by);
        if (sh == NULL)
            return -1;
        size_t n = count - from < BATCH ? count - from : BATCH;
        sh->kind = WORDS;
        sh->count = n;
        memcpy(sh->at, at + from, n * sizeof *at);
        if (!ask(fd, by))
            return -1;
        memcpy(words + from * AFX_MEM_WORDS, sh->words, (size_t)sh->done * AFX_MEM_WORDS * sizeof *words);
        total += sh->done;
        if (sh->err != 0) {
            errno = sh->err;
            return -1;
        }
        if ((size_t)sh->done < n)
            break;
        from += n;
    }
    return total;
}

bool afx_mem_read_pieces(const char *path, size_t max, const struct afx_deadline *by,
                         void (*feed)(void *ctx, const char *piece, size_t len), void *ctx)
{
    if (strlen(path) >= sizeof helper.sh->path) {
        errno = ENAMETOOLONG;
        return false;
    }
    size_t total = 0;
    for (bool first = true;; first = false) {
        struct shared *sh = ready(by);
        if (sh == NULL)
            return false;
        sh->kind = first ? FILE_OPEN : FILE_MORE;
        if (first)
            memcpy(sh->path, path, strlen(path) + 1);
        /* One byte past max at most: enough to tell that there is more. */
        sh->want = max - total < CHUNK ? max - total + 1 : CHUNK;
        if (!ask(-1, by))
            return false;
        total += (size_t)sh->done;
        if (sh->done > 0)
            feed(ctx, sh->buf, (size_t)sh->done);
        if (total > max || sh->err != 0) {
            errno = total > max ? EFBIG : sh->err;
            return false;
        }
        if (sh->eof)
            return true;
    }
}

static void grow(void *ctx, const char *piece, size_t len)
{
    afx_textbuf_add(ctx, piece, len);
}

char *afx_mem_slurp(const char *path, size_t max, const struct afx_deadline *by, size_t *len)
{
    struct afx_textbuf t = { 0 };
    bool read = afx_mem_read_pieces(path, max, by, grow, &t);
    int err = errno;
    afx_textbuf_add(&t, "", 0);     /* "" for an empty file */
    if (!read || t.oom) {
        err = t.oom ? ENOMEM : err;
        free(t.data);
        errno = err;
        return NULL;
    }
    if (len != NULL)
        *len = t.len;
    return t.data;
}
