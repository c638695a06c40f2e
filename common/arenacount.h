/* How many malloc arenas this process has: one "<heap nr=" element per
 * arena in malloc_info's XML.  The one counter of the library, the
 * command's probe, the benchmark and every test program.
 *
 * It allocates and takes each arena's lock in turn: call it only where
 * malloc may be called.  A header, so that each test program (built
 * from one file, for several glibcs and architectures) has it without
 * a second object to link. */
#ifndef AFX_ARENACOUNT_H
#define AFX_ARENACOUNT_H

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The count, or -1 if it cannot be had; errno is left as it was. */
static inline long afx_count_arenas(void)
{
    int saved = errno;
    char *xml = NULL;
    size_t len = 0;
    long n = -1;
    FILE *f = open_memstream(&xml, &len);
    if (f != NULL) {
        int rc = malloc_info(0, f);
        if (fclose(f) == 0 && rc == 0 && xml != NULL) {
            n = 0;
            for (const char *p = xml; (p = strstr(p, "<heap nr=")) != NULL; p++)
                n++;
        }
        free(xml);
    }
    errno = saved;
    return n;
}

#endif
