#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static int open_log(void)
{
    if (path[0] == '\0')
        return STDERR_FILENO;
    int fd;
    do
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0644);
    while (fd < 0 && errno == EINTR);
    /* Never through a symbolic link (a root service logging into a
     * shared directory); a log that cannot be opened must not lose the
     * line. */
    return fd >= 0 ? fd : STDERR_FILENO;
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
