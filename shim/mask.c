#include "mask.h"

#include <errno.h>
#include <stdarg.h>
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

#if !defined(__x86_64__)
long (*afx_syscall)(long, ...) = syscall;
#endif
#if !defined(__x86_64__) && !defined(__i386__)
pthread_t (*afx_pthread_self)(void) = pthread_self;
#endif

#if defined(__x86_64__)
/* The system call itself: -errno on failure, errno untouched, no
 * symbol of glibc's to look up (the constructor reads the CPUs online
 * with it in every process). */
long afx_sysraw(long number, long a1, long a2, long a3, long a4, long a5, long a6)
{
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"(number), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}

/* syscall() as the process finds it, from the binding (real.c): until
 * then, the system call itself. */
static _Atomic(long (*)(long, ...)) bound_syscall;

void afx_bind_syscall(long (*fn)(long, ...))
{
    atomic_store_explicit(&bound_syscall, fn, memory_order_release);
}

/* As glibc's syscall(): six arguments taken whatever the call passes
 * (those it does not pass are never read by the kernel), errno set on
 * failure.  A pointer filled at load would cost every process a symbol
 * lookup. */
long afx_syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    long (*fn)(long, ...) = atomic_load_explicit(&bound_syscall, memory_order_acquire);
    if (fn != NULL)
        return fn(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    long ret = afx_sysraw(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if ((unsigned long)ret > -4096UL) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}

#else
long afx_sysraw(long number, long a1, long a2, long a3, long a4, long a5, long a6)
{
    int saved = errno;
    long ret = afx_syscall(number, a1, a2, a3, a4, a5, a6);
    if (ret == -1)
        ret = -errno;
    errno = saved;
    return ret;
}
#endif

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
