#include "livecount.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "annotate.h"

/* A thread is counted from its creation until its kernel task is gone
 * (tgkill(pid, tid, 0) fails with ESRCH).  glibc gives the thread's arena
 * back before the task ends, never after: a count that ended at a
 * thread-specific value's destructor would drop while a later key's
 * destructor still holds the arena, and let glibc fix its limit first.
 * Nothing is allocated and nothing freed in the new thread (its first
 * free would attach it to an arena, as a malloc does): the routine and
 * its argument travel in a static slot, which a later count frees. */
enum { SLOTS = 1024 };
/* A slot's state: what it holds (low bits), and how many times it was
 * claimed (the rest), so that a count that found a thread gone frees its
 * slot only if no other thread has claimed it since. */
enum { FREE, CLAIMED, STARTED, KIND = 3, CLAIM = 4 };

struct slot {
    atomic_uint state;
    pid_t tid;
    void *(*routine)(void *);
    int (*routine_c11)(void *);
    void *arg;
};

static struct slot slots[SLOTS];
/* Slots at or past this one were never claimed: a count looks no further
 * (a scan of all 1024 cost 4,000 instructions a creation). */
static atomic_int slots_used;
static atomic_bool counting;
/* Threads created while every slot was taken: counted for good, which
 * sets the limit early, never late. */
static atomic_long uncounted;

void afx_live_begin(long running)
{
    /* A slot passes from a thread that is gone to a new one through its
     * atomic state and the kernel's word that the old task is gone,
     * neither of which valgrind's DRD sees as an order. */
    AFX_ATOMIC(slots);
    atomic_fetch_add(&uncounted, running);
    atomic_store(&counting, true);
}

void afx_live_end(void)
{
    atomic_store(&counting, false);
}

static bool gone(pid_t pid, pid_t tid)
{
    int saved = errno;
    bool ended = syscall(SYS_tgkill, pid, tid, 0) != 0 && errno == ESRCH;
    errno = saved;
    return ended;
}

long afx_live_threads(void)
{
    if (!atomic_load(&counting))
        return -1;
    long n = 1 + atomic_load(&uncounted);
    pid_t pid = getpid();
    int used = atomic_load_explicit(&slots_used, memory_order_acquire);
    for (int i = 0; i < used; i++) {
        struct slot *s = &slots[i];
        unsigned state = atomic_load_explicit(&s->state, memory_order_acquire);
        if ((state & KIND) == FREE)
            continue;
        /* In a child forked since, its parent's threads are gone too. */
        if ((state & KIND) == STARTED && gone(pid, s->tid)) {
            atomic_compare_exchange_strong(&s->state, &state, (state & ~KIND) | FREE);
            continue;
        }
        n++;
    }
    return n;
}

static struct slot *started(void *p)
{
    struct slot *s = p;
    s->tid = (pid_t)syscall(SYS_gettid);
    unsigned state = atomic_load_explicit(&s->state, memory_order_relaxed);
    atomic_store_explicit(&s->state, (state & ~KIND) | STARTED, memory_order_release);
    return s;
}

static void *trampoline(void *p)
{
    struct slot *s = started(p);
    return s->routine(s->arg);
}

static int trampoline_c11(void *p)
{
    struct slot *s = started(p);
    return s->routine_c11(s->arg);
}

/* A free slot, claimed; NULL when every slot is taken. */
static struct slot *claim(void)
{
    if (!atomic_load(&counting))
        return NULL;
    for (int i = 0; i < SLOTS; i++) {
        unsigned state = atomic_load_explicit(&slots[i].state, memory_order_relaxed);
        if ((state & KIND) == FREE
            && atomic_compare_exchange_strong(&slots[i].state, &state,
                                              ((state + CLAIM) & ~KIND) | CLAIMED)) {
            int used = atomic_load(&slots_used);
            while (used <= i && !atomic_compare_exchange_weak(&slots_used, &used, i + 1))
                ;
            return &slots[i];
        }
    }
    atomic_fetch_add(&uncounted, 1);
    return NULL;
}

bool afx_live_wrap(void *(**routine)(void *), void **arg)
{
    struct slot *s = claim();
    if (s == NULL)
        return false;
    s->routine = *routine;
    s->arg = *arg;
    *routine = trampoline;
    *arg = s;
    return true;
}

bool afx_live_wrap_c11(int (**routine)(void *), void **arg)
{
    struct slot *s = claim();
    if (s == NULL)
        return false;
    s->routine_c11 = *routine;
    s->arg = *arg;
    *routine = trampoline_c11;
    *arg = s;
    return true;
}

void afx_live_unwrap(void *arg)
{
    struct slot *s = arg;
    unsigned state = atomic_load_explicit(&s->state, memory_order_relaxed);
    atomic_store_explicit(&s->state, (state & ~KIND) | FREE, memory_order_release);
}
