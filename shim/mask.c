#include "mask.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate.h"

/* The mask is written into a slot of the writer's own, then published:
 * no thread waits for another (a writer a fork left behind, or one a
 * signal handler interrupted), and no pid is asked for (a first-time
 * PLT call costs a handler on a small alternate stack 1 KiB or more). */
enum { SLOTS = 4 };
static unsigned char slots[SLOTS][AFX_MASK_BYTES];
static atomic_uint next_slot;
static _Atomic(const unsigned char *) wide;

long (*afx_syscall)(long, ...) = syscall;
pthread_t (*afx_pthread_self)(void) = pthread_self;

long afx_mask_count(const void *mask, size_t size)
{
    long n = 0;
    for (size_t i = 0; i + sizeof(unsigned long) <= size; i += sizeof(unsigned long)) {
        unsigned long word;
        __builtin_memcpy(&word, (const unsigned char *)mask + i, sizeof word);
        /* Most of a mask is zeros: no count for them (a library call
         * where the compiler may not use popcnt). */
        if (word != 0)
            n += __builtin_popcountl(word);
    }
    return n;
}

/* The calling thread's mask into BUF[SIZE] (the system call itself, as
 * glibc's sched_getaffinity, which also zeroes what the kernel did not
 * write).  Its CPUs, or -1. */
static long get_mask(unsigned char *buf, size_t size)
{
    int saved = errno;
    long got = afx_syscall(SYS_sched_getaffinity, 0, size, buf);
    errno = saved;
    if (got <= 0)
        return -1;
    __builtin_memset(buf + got, 0, size - (size_t)got);
    return afx_mask_count(buf, (size_t)got);
}

long afx_mask_get(unsigned char *buf)
{
    return get_mask(buf, AFX_MASK_BYTES);
}

/* CPUs in the calling thread's mask where the kernel's mask needs more
 * than 128 bytes (over 1024 CPUs): apart, so that only such hosts pay
 * for its buffer on the stack. */
__attribute__((noinline)) static long count_large(void)
{
    unsigned char buf[AFX_MASK_BYTES];
    return afx_mask_get(buf);
}

/* CPUs in the calling thread's mask, in a small buffer first: the
 * affinity interposers run in signal handlers on alternate stacks of a
 * few KiB. */
static long count_now(void)
{
    unsigned char small[128];
    long n = get_mask(small, sizeof small);
    return n >= 0 ? n : count_large();
}

long afx_mask_before(unsigned char *buf)
{
    AFX_ATOMIC(wide);
    if (atomic_load_explicit(&wide, memory_order_relaxed) != NULL)
        return -1;
    return afx_mask_get(buf);
}

void afx_mask_after(const unsigned char *buf, long before)
{
    if (before < 0)
        return;
    long after = count_now();
    if (after < 0 || after >= before)
        return;
    AFX_ATOMIC(wide);
    /* More writers at once than slots: one of the others publishes. */
    unsigned slot = atomic_fetch_add(&next_slot, 1);
    if (slot >= SLOTS)
        return;
    __builtin_memcpy(slots[slot], buf, AFX_MASK_BYTES);
    AFX_PUBLISHED(wide);
    const unsigned char *none = NULL;
    atomic_compare_exchange_strong(&wide, &none, slots[slot]);
}

bool afx_mask_wide(const cpu_set_t **set, size_t *size)
{
    AFX_ATOMIC(wide);
    const unsigned char *recorded = atomic_load_explicit(&wide, memory_order_acquire);
    if (recorded == NULL)
        return false;
    AFX_SEEN(wide);
    *set = (const cpu_set_t *)recorded;
    *size = AFX_MASK_BYTES;
    return true;
}
