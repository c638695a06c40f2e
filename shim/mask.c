#include "mask.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* Valgrind's DRD does not model C11 atomics: tell it that state is one
 * and that recording it publishes wide (client requests, no-ops outside
 * valgrind; without valgrind's headers, nothing). */
#if defined(__has_include)
#if __has_include(<valgrind/drd.h>)
#include <valgrind/drd.h>
#define AFX_ATOMIC(var) DRD_IGNORE_VAR(var)
#define AFX_PUBLISHED(var) ANNOTATE_HAPPENS_BEFORE(&(var))
#define AFX_SEEN(var) ANNOTATE_HAPPENS_AFTER(&(var))
#endif
#endif
#ifndef AFX_ATOMIC
#define AFX_ATOMIC(var) ((void)0)
#define AFX_PUBLISHED(var) ((void)0)
#define AFX_SEEN(var) ((void)0)
#endif

static unsigned char wide[AFX_MASK_BYTES];
/* NONE, RECORDED (never changes again), or the pid of the process whose
 * thread is writing it: a child forked meanwhile finds its parent's pid
 * there, with no thread left to finish, and writes it itself. */
enum { NONE = 0, RECORDED = -1 };
static atomic_int state;

long afx_mask_get(unsigned char *buf)
{
    int saved = errno;
    long n = -1;
    if (sched_getaffinity(0, AFX_MASK_BYTES, (cpu_set_t *)buf) == 0)
        n = CPU_COUNT_S(AFX_MASK_BYTES, (cpu_set_t *)buf);
    errno = saved;
    return n;
}

long afx_mask_before(unsigned char *buf)
{
    AFX_ATOMIC(state);
    if (atomic_load_explicit(&state, memory_order_relaxed) == RECORDED)
        return -1;
    return afx_mask_get(buf);
}

void afx_mask_after(const unsigned char *buf, long before)
{
    unsigned char now[AFX_MASK_BYTES];
    if (before < 0)
        return;
    long after = afx_mask_get(now);
    if (after < 0 || after >= before)
        return;
    AFX_ATOMIC(state);
    int pid = getpid();
    int seen = atomic_load(&state);
    do {
        /* Recorded, or being recorded by another thread of this process. */
        if (seen == RECORDED || seen == pid)
            return;
    } while (!atomic_compare_exchange_weak(&state, &seen, pid));
    memcpy(wide, buf, sizeof wide);
    AFX_PUBLISHED(state);
    atomic_store_explicit(&state, RECORDED, memory_order_release);
}

bool afx_mask_wide(const cpu_set_t **set, size_t *size)
{
    AFX_ATOMIC(state);
    if (atomic_load_explicit(&state, memory_order_acquire) != RECORDED)
        return false;
    AFX_SEEN(state);
    *set = (const cpu_set_t *)wide;
    *size = sizeof wide;
    return true;
}
