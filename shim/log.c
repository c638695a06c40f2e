#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Long enough for the activation line with a long reason; longer
 * messages are cut, never allocated. */
enum { AFX_LOG_MAX = 512 };

void afx_log(const char *fmt, ...)
{
    int saved = errno;
    char line[AFX_LOG_MAX];
    static const char prefix[] = "arenafix: ";
    size_t len = sizeof prefix - 1;

    memcpy(line, prefix, len);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + len, sizeof line - len - 1, fmt, ap);
    va_end(ap);
    if (n > 0)
        len += (size_t)n < sizeof line - len - 1 ? (size_t)n : sizeof line - len - 2;
    line[len++] = '\n';

    /* One write: lines from several processes do not interleave. */
    ssize_t w;
    do
        w = write(STDERR_FILENO, line, len);
    while (w < 0 && errno == EINTR);
    errno = saved;
}
