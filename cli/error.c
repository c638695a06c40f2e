#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "escape.h"

static void vline(const char *fmt, va_list ap)
{
    /* Built first, written once: no interleaving with the child's output.
     * Escaped: a message may quote what another user named (a process,
     * a file), and only one line may reach the terminal. */
    char line[1024], safe[AFX_ESCAPED_SIZE(1024)];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "arenafix: %s\n", afx_escape(line, safe, sizeof safe));
}

void afx_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void afx_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
    exit(AFX_EXIT_USAGE);
}
