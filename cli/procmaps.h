/* What /proc/PID/maps says about a process's malloc.  Pure. */
#ifndef AFX_PROCMAPS_H
#define AFX_PROCMAPS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* glibc's HEAP_MAX_SIZE (2 x DEFAULT_MMAP_THRESHOLD_MAX): every heap of
 * a non-main arena is a reservation this big, aligned to its size. */
#define AFX_HEAP_MAX (sizeof(long) == 8 ? 64UL << 20 : 1UL << 20)

#define AFX_MAX_HEAPS 4096

struct afx_maps {
    bool arenafix;              /* libarenafix is mapped */
    char libc[PATH_MAX];        /* path of libc.so.6, "" if none */
    char loader[PATH_MAX];      /* path of ld.so, "" if none */
    char foreign[PATH_MAX];     /* jemalloc, tcmalloc or mimalloc, "" if none */
    long heaps;                 /* non-main arena heaps seen */
    unsigned long heap_at[AFX_MAX_HEAPS];   /* their start addresses */
};

/* Scan the text of /proc/PID/maps. */
void afx_maps_scan(const char *text, struct afx_maps *m);

/* The value of field "Name:" in a /proc status text, without leading
 * blanks, into out.  False if absent. */
bool afx_status_field(const char *text, const char *name, char *out, size_t size);

#endif
