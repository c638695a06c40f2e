#include "marks.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* A thread's mark is its thread pointer with the mark in its low bits
 * (the thread pointer is aligned), in one slot of a window of the
 * table that its hash picks.  Each lookup reads the whole window, so a
 * slot emptied meanwhile leaves no hole; a window with no empty slot is
 * taken as held: the interposer then forwards, as from arenafix's own
 * code.  HELD counts the marks held, so that a process where no thread
 * is inside arenafix's code (the rule) reads nothing else. */
enum { SLOTS = 1024, WINDOW = 64 };
static _Atomic uintptr_t slots[SLOTS];
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

static _Atomic uintptr_t *find(uintptr_t k)
{
    size_t first = window_of(k);
    for (size_t i = 0; i < WINDOW; i++) {
        _Atomic uintptr_t *slot = &slots[(first + i) % SLOTS];
        if (atomic_load_explicit(slot, memory_order_relaxed) == k)
            return slot;
    }
    return NULL;
}

/* A new thread's descriptor may be one glibc reuses (its stack cache):
 * marks its last owner held when it ended inside arenafix's code
 * (pthread_exit from a signal handler), or when another thread forked
 * (the child has only the forking thread), would make the new thread
 * one inside arenafix for ever.  Dropped as the thread starts. */
void afx_marks_forget_mine(void)
{
    if (atomic_load(&held) == 0)
        return;
    uintptr_t mine = (uintptr_t)afx_thread_id();
    for (size_t i = 0; i < SLOTS; i++) {
        uintptr_t k = atomic_load_explicit(&slots[i], memory_order_relaxed);
        if (k != 0 && (k & ~(uintptr_t)3) == mine
            && atomic_compare_exchange_strong(&slots[i], &k, 0))
            atomic_fetch_sub(&held, 1);
    }
}

bool afx_mark(enum afx_mark mark)
{
    uintptr_t k = key(mark);
    if (atomic_load(&held) > 0 && find(k) != NULL)
        return false;
    /* Counted before it is stored: a signal handler that interrupts
     * between the two then looks, and finds nothing of this thread's
     * yet, as no code of arenafix's has run under the mark. */
    atomic_fetch_add(&held, 1);
    size_t first = window_of(k);
    for (size_t i = 0; i < WINDOW; i++) {
        uintptr_t empty = 0;
        if (atomic_compare_exchange_strong(&slots[(first + i) % SLOTS], &empty, k))
            return true;
    }
    atomic_fetch_sub(&held, 1);
    return false;
}

void afx_unmark(enum afx_mark mark)
{
    _Atomic uintptr_t *slot = atomic_load(&held) > 0 ? find(key(mark)) : NULL;
    if (slot == NULL)
        return;
    atomic_store(slot, 0);
    atomic_fetch_sub(&held, 1);
}

bool afx_marked(enum afx_mark mark)
{
    return atomic_load(&held) > 0 && find(key(mark)) != NULL;
}
