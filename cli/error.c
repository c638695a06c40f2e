#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void vline(const char *fmt, va_list ap)
{
    /* Built first, written once: no interleaving with the child's output. */
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "arenafix: %s\n", line);
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
