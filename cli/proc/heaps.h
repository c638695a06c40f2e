/* Telling glibc's heaps from other memory by their headers.  Pure. */
#ifndef AFX_HEAPS_H
#define AFX_HEAPS_H

#include <stdbool.h>

/* The start of glibc's heap_info (malloc/arena.c, 2.26 to 2.38), at the
 * start of every heap of a non-main arena. */
struct afx_heap_header {
    unsigned long ar_ptr;           /* its arena */
    unsigned long prev;             /* the arena's previous heap, 0 in its first */
    unsigned long size;             /* bytes in use */
    unsigned long mprotect_size;    /* bytes made writable */
};

/* True if the header at address `at`, followed by `rw` writable bytes,
 * is the first heap of an arena: no previous heap, the arena's
 * malloc_state right after the header (heap_info is 4 to 8 words with
 * its padding, as glibc's versions lay it out), and sizes glibc could
 * have set: whole pages, size <= mprotect_size <= the writable bytes,
 * within one heap.  Other memory that happens to sit where a heap
 * could (a large zeroed buffer ending on a heap boundary) is not. */
bool afx_heap_is_first(const struct afx_heap_header *h, unsigned long at, unsigned long rw);

#endif
