/* The CPU mask the process had before the first narrowing arenafix saw:
 * touch mode lets threads born into a narrowed mask malloc on it. */
#ifndef AFX_MASK_H
#define AFX_MASK_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* Room for 8192 CPUs, as glibc's own first sched_getaffinity try. */
enum { AFX_MASK_BYTES = 1024 };

/* Around a call that sets the calling thread's own mask: before it,
 * afx_mask_before saves the mask into buf[AFX_MASK_BYTES] and returns
 * its CPU count (-1: nothing to do, a mask is recorded already); after a
 * call that succeeded, afx_mask_after records the saved mask if the new
 * one is narrower.  The caller's set is never read (the kernel reads only
 * what it needs of it, glibc nothing).  System calls and atomics only:
 * async-signal-safe. */
long afx_mask_before(unsigned char *buf);
void afx_mask_after(const unsigned char *buf, long before);

/* The libc functions the affinity interposers call, through pointers the
 * dynamic linker fills when it loads the library: a first call through
 * the PLT resolves the symbol then, and saves every register on the
 * stack to do it (2 KiB or more), which a signal handler on a small
 * alternate stack cannot spare. */
/* The system call itself: its result, or -errno; errno untouched. */
long afx_sysraw(long number, long a1, long a2, long a3, long a4, long a5, long a6);

#if defined(__x86_64__)
long afx_syscall(long number, ...);
/* Once bound: syscall() as the process finds it. */
void afx_bind_syscall(long (*fn)(long, ...));
#else
extern long (*afx_syscall)(long, ...);
#endif
#if defined(__x86_64__) || defined(__i386__)
/* The calling thread: glibc's pthread_t is the address of the thread's
 * descriptor, which the thread pointer holds on x86 (no symbol to look
 * up at load). */
static inline pthread_t afx_pthread_self(void)
{
    return (pthread_t)__builtin_thread_pointer();
}
#else
extern pthread_t (*afx_pthread_self)(void);
#endif

/* CPUs in a mask of SIZE bytes (no libc call, for the same reason). */
long afx_mask_count(const void *mask, size_t size);

/* The recorded mask, if any. */
bool afx_mask_wide(const cpu_set_t **set, size_t *size);

/* CPUs in the calling thread's mask, copied into buf[AFX_MASK_BYTES];
 * -1 if unknown (a host with more CPUs than that, or an error). */
long afx_mask_get(unsigned char *buf);

#endif
