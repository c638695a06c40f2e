#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mask.h"

/* Long enough for the activation line with a long reason; longer
 * messages are cut, never allocated. */
enum { AFX_LOG_MAX = 640, AFX_PROGRAM_MAX = 48, AFX_PATH_MAX = 512 };

static char program[AFX_PROGRAM_MAX];
static char path[AFX_PATH_MAX];

/* Copies, not pointers: a program may overwrite its argv and
 * environment (setproctitle) after startup. */
void afx_log_setup(const char *prog, const char *log_path)
{
    if (prog != NULL) {
        const char *slash = strrchr(prog, '/');
        snprintf(program, sizeof program, "%s", slash != NULL ? slash + 1 : prog);
    }
    if (log_path != NULL && strlen(log_path) < sizeof path)
        memcpy(path, log_path, strlen(log_path) + 1);
}

/* A log file we may write to: a regular file of our own effective user
 * with one name.  A log path in a shared sticky directory may hold what
 * another user put there before us: a FIFO (it would block us until they
 * read it, then feed them every line), their own file (root appending
 * to a file they read), or, where fs.protected_hardlinks is 0, a second
 * name for a file of ours (root's lines appended to /etc/shadow).  Every
 * user is guarded, not only root: the same plant works against any
 * victim, as the kernel's protected_fifos and protected_regular say.
 * statx, by the system call: a 32-bit build's fstat fails with EOVERFLOW
 * on a 64-bit inode number (XFS, overlayfs), which would refuse every
 * log there, and libc's fstat64 carries a symbol version (GLIBC_2.33)
 * that every process would pay a check for at load. */
static bool is_own_log(int fd)
{
    struct statx st;
    return afx_syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_UID | STATX_NLINK, &st)
               == 0
           && (st.stx_mask & (STATX_TYPE | STATX_UID | STATX_NLINK)) == (STATX_TYPE | STATX_UID | STATX_NLINK)
           && S_ISREG(st.stx_mode) && st.stx_uid == geteuid() && st.stx_nlink == 1;
}

static int open_log(void)
{
    if (path[0] == '\0')
        return STDERR_FILENO;
    /* O_NONBLOCK: the library must never block its host, and open(2)
     * blocks on a FIFO without a reader (non-blocking, it fails with
     * ENXIO) and on a file under a lease.  O_NOFOLLOW: never through a
     * symbolic link. */
    int fd;
    do
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
                  0644);
    while (fd < 0 && errno == EINTR);
    /* Refused or unopenable, the line is not lost: it goes where it
     * goes without ARENAFIX_LOG.  Then blocking again (F_SETFL with
     * O_APPEND alone clears O_NONBLOCK): a non-blocking write to a
     * regular file may still fail with EAGAIN on some file systems, and
     * the one write must land. */
    if (fd < 0)
        return STDERR_FILENO;
    if (!is_own_log(fd) || fcntl(fd, F_SETFL, O_APPEND) != 0) {
        close(fd);
        return STDERR_FILENO;
    }
    return fd;
}

void afx_log(const char *fmt, ...)
{
    int saved = errno;
    char line[AFX_LOG_MAX];
    int head = snprintf(line, sizeof line, "arenafix: %s[%ld]: ",
                        program[0] != '\0' ? program : "?", (long)getpid());
    size_t len = head > 0 && (size_t)head < sizeof line ? (size_t)head : 0;

    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + len, sizeof line - len - 1, fmt, ap);
    va_end(ap);
    if (n > 0)
        len += (size_t)n < sizeof line - len - 1 ? (size_t)n : sizeof line - len - 2;
    line[len++] = '\n';

    /* One write: lines from several processes do not interleave. */
    int fd = open_log();
    ssize_t w;
    do
        w = write(fd, line, len);
    while (w < 0 && errno == EINTR);
    if (fd != STDERR_FILENO)
        close(fd);
    errno = saved;
}
