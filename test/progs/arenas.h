/* Shared by the test programs: count glibc malloc arenas. */
#ifndef AFX_TEST_ARENAS_H
#define AFX_TEST_ARENAS_H

#include <malloc.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "<heap nr=" element per arena in malloc_info's XML. */
static inline int count_arenas(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return -1;
    malloc_info(0, f);
    fclose(f);
    int n = 0;
    for (const char *p = buf; (p = strstr(p, "<heap nr=")) != NULL; p++)
        n++;
    free(buf);
    return n;
}

/* A set with only the first CPU this process may use (pinned, steps).
 * False if the affinity cannot be read. */
static inline bool first_allowed_cpu(cpu_set_t *allowed, cpu_set_t *one)
{
    if (sched_getaffinity(0, sizeof *allowed, allowed) != 0)
        return false;
    CPU_ZERO(one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, allowed)) {
            CPU_SET(c, one);
            break;
        }
    return true;
}

#endif
