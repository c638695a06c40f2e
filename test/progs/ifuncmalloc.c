/* A preload whose malloc is an IFUNC, as allocators that pick an
 * implementation for the CPU define it: the dynamic symbol is of type
 * STT_GNU_IFUNC, not STT_FUNC, and is a definition all the same.  It
 * forwards to glibc's own allocator, so the arenas stay countable, but
 * the malloc the program calls is this library's: arenafix must see
 * that and stand down, as for jemalloc. */
#include <stddef.h>

void *__libc_malloc(size_t size);

typedef void *malloc_fn(size_t size);

static void *forward_malloc(size_t size)
{
    return __libc_malloc(size);
}

/* Run by the dynamic linker while it relocates: nothing to look at. */
static malloc_fn *resolve_malloc(void)
{
    return forward_malloc;
}

void *malloc(size_t size) __attribute__((ifunc("resolve_malloc")));
