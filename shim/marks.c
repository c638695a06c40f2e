#include "marks.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>

#include "mask.h"

/* A thread's mark is its thread pointer with the mark in its low bits
 * (the thread pointer is aligned), in one slot of a window of the
 * table that its hash picks, beside the kernel's id of the thread that
 * took it.  Each lookup reads the whole window, so a slot emptied
 * meanwhile leaves no hole; a window with no empty slot is taken as
 * held: the interposer then forwards, as from arenafix's own code.  HELD
 * counts the slots taken, so that a process where no thread is inside
 * arenafix's code (the rule) reads nothing else.
 *
 * glibc gives a new thread the descriptor, and so the thread pointer, of
 * one that has ended (its stack cache): a thread that ended inside
 * arenafix (pthread_exit from a signal handler), or one gone in a child
 * forked meanwhile, leaves a slot whose id is not the new thread's.  Such
 * a slot is freed when the new thread looks, not taken for its own. */
enum { SLOTS = 1024, WINDOW = 64 };
static _Atomic uintptr_t slots[SLOTS];
/* 0 while the slot is empty, or taken and its id not yet written. */
static _Atomic long tids[SLOTS];
/* Taken while the process had never had a second thread: by its main
 * thread, whose descriptor glibc never gives another, so that no system
 * call is needed to tell it (the constructor takes a mark in every
 * process). */
enum { ONLY_THREAD = -1 };
static atomic_int held;

static uintptr_t key(enum afx_mark mark)
{
    return (uintptr_t)afx_thread_id() | (uintptr_t)mark;
}

static size_t window_of(uintptr_t k)
{
    uintptr_t h = (k >> 4) * (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> (sizeof h * 8 - 10)) % SLOTS;
}

static void release(size_t i)
{
    atomic_store(&tids[i], 0);
    atomic_store(&slots[i], 0);
    atomic_fetch_sub(&held, 1);
}

/* Whether thread TID holds K; the slots of K another thread left (its
 * descriptor is this thread's now) are freed.  Only threads with this
 * thread pointer write slots of K: this one, and a signal handler that
 * interrupts it. */
static bool holds(uintptr_t k, long tid)
{
    size_t first = window_of(k);
    bool mine = false;
    for (size_t i = 0; i < WINDOW; i++) {
        size_t at = (first + i) % SLOTS;
        if (atomic_load_explicit(&slots[at], memory_order_relaxed) != k)
            continue;
        long t = atomic_load(&tids[at]);
        /* Taken by this thread, its id not yet written: a handler that
         * interrupted the taking, before arenafix's code began. */
        if (t == 0)
            continue;
        if (t == tid || t == ONLY_THREAD || tid == ONLY_THREAD)
            mine = true;
        else
            release(at);
    }
    return mine;
}

int afx_mark_try(enum afx_mark mark)
{
    uintptr_t k = key(mark);
    long tid = afx_single_threaded() ? ONLY_THREAD : afx_sysraw(SYS_gettid, 0, 0, 0, 0, 0, 0);
    if (atomic_load(&held) > 0 && holds(k, tid))
        return AFX_MARK_WAS_HELD;
    /* Counted before it is taken, and the id written after: a signal
     * handler that interrupts meanwhile finds nothing of this thread's
     * held, as no code of arenafix's has run under the mark. */
    atomic_fetch_add(&held, 1);
    size_t first = window_of(k);
    for (size_t i = 0; i < WINDOW; i++) {
        size_t at = (first + i) % SLOTS;
        uintptr_t empty = 0;
        if (atomic_compare_exchange_strong(&slots[at], &empty, k)) {
            atomic_store(&tids[at], tid);
            return AFX_MARK_TAKEN;
        }
    }
    atomic_fetch_sub(&held, 1);
    return AFX_MARK_NO_ROOM;
}

bool afx_mark(enum afx_mark mark)
{
    return afx_mark_try(mark) == AFX_MARK_TAKEN;
}

/* The thread's slot of the mark: after afx_mark, the only one of its key
 * (it freed any other thread's). */
void afx_unmark(enum afx_mark mark)
{
    if (atomic_load(&held) == 0)
        return;
    uintptr_t k = key(mark);
    size_t first = window_of(k);
    for (size_t i = 0; i < WINDOW; i++) {
        size_t at = (first + i) % SLOTS;
        if (atomic_load_explicit(&slots[at], memory_order_relaxed) == k
            && atomic_load(&tids[at]) != 0) {
            release(at);
            return;
        }
    }
}
