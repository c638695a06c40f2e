#include "heaps.h"

#include "procmaps.h"

#define WORD (sizeof(unsigned long))
#define PAGE 4096UL     /* the smallest page: glibc rounds sizes to its own */

static bool pages(unsigned long n)
{
    return n > 0 && n % PAGE == 0;
}

bool afx_heap_is_first(const struct afx_heap_header *h, unsigned long at, unsigned long rw)
{
    unsigned long header = h->ar_ptr - at;   /* wraps to huge below at */
    return h->prev == 0 && h->ar_ptr > at && header >= 4 * WORD && header <= 8 * WORD
           && header % WORD == 0 && pages(h->size) && pages(h->mprotect_size)
           && h->size <= h->mprotect_size && h->mprotect_size <= rw && h->mprotect_size <= AFX_HEAP_MAX;
}
