#include "touch.h"

#include <errno.h>
#include <pthread.h>
#include <linux/futex.h>
#include <signal.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "annotate.h"
#include "mask.h"
#include "marks.h"

/* Set once this thread has attached its arena on a wide mask, or needs
 * no touch: a later narrowing of its own mask then mallocs nothing, so
 * the affinity calls stay async-signal-safe from then on.  A value of a
 * key of glibc's, made at the first touch, not thread-local storage,
 * which every new thread of every process would pay for (marks.h). */
static atomic_bool key_made;
static pthread_key_t touched_key;

/* The thread that ran arenafix's constructor as the process's only
 * thread: the main one, which owns glibc's main arena (its descriptor is
 * never another thread's). */
static unsigned long constructor_thread;

bool afx_touch_prepare(void)
{
    if (atomic_load(&key_made))
        return true;
    if (pthread_key_create(&touched_key, NULL) != 0)
        return false;
    /* Bound now, off any signal handler's stack: the affinity
     * interposers read the key from then on. */
    (void)pthread_getspecific(touched_key);
    pthread_setspecific(touched_key, NULL);
    atomic_store_explicit(&key_made, true, memory_order_release);
    return true;
}

/* After the touch's malloc, on the wide mask: glibc allocates the value's
 * block for a key past its first 32, which would otherwise be the
 * thread's first malloc. */
static void mark_touched(void)
{
    if (atomic_load_explicit(&key_made, memory_order_acquire))
        pthread_setspecific(touched_key, (void *)1);
}

void afx_touch_constructor_thread(void)
{
    if (afx_single_threaded())
        constructor_thread = afx_thread_id();
    else
        mark_touched();
}

bool afx_touch_pending(void)
{
    if (afx_thread_id() == constructor_thread)
        return false;
    /* Without the key (before the settings are read) the thread is not
     * marked: each narrowing then touches. */
    return !atomic_load_explicit(&key_made, memory_order_acquire)
           || pthread_getspecific(touched_key) == NULL;
}

/* A thread's first malloc attaches it to an arena, and glibc sizes the
 * arena limit from the affinity of the thread that needs the ninth: do
 * it while the mask is wide.  volatile keeps the pair alive. */
static void touch_malloc(void)
{
    int saved = errno;
    void *volatile p = malloc(1);
    free(p);
    errno = saved;
}

/* glibc 2.35 as released (its bug 28850) counts CPUs over the whole
 * 4 KiB buffer it gives sched_getaffinity, stack bytes the kernel did not
 * write included: a first malloc made where arenafix's own frames (masks)
 * were would size the limit from them (31 arenas where a fixed glibc
 * gives 16).  A new thread's first malloc runs on a clean stack without
 * arenafix; give the touch one too.  Not inlined, and its zeros are
 * written: the malloc's frames come where they were. */
__attribute__((noinline)) static void clean_stack_below(void)
{
    volatile unsigned char below[6144];
    memset((unsigned char *)below, 0, sizeof below);
    __asm__ volatile("" : : "r"(below) : "memory");
}

/* The calling thread's own mask, set as glibc sets a new thread's from
 * its attribute: the system call itself, which no interposer sees.
 * Returns 0 or an error number. */
static int set_own_mask(size_t size, const void *set)
{
    return afx_syscall(SYS_sched_setaffinity, 0, size, set) == 0 ? 0 : errno;
}

/* ---- born narrow: the trampoline ---------------------------------- */

/* Allocated by the creator and freed by it once the thread has handed
 * off: nothing of the touch stays on the stack under the routine, and a
 * creator that never comes back from its wait (a handler that jumps out
 * of pthread_create) leaves a block behind, not a write into a dead
 * frame. */
struct start {
    union {
        void *(*posix)(void *);
        int (*c11)(void *);
    } routine;
    void *arg;
    atomic_uint handed;                     /* set once the thread is back on its birth mask */
    unsigned char wide[AFX_MASK_BYTES];     /* the mask to malloc on */
    unsigned char birth[AFX_MASK_BYTES];    /* the one glibc gave the thread */
};

/* The attribute's CPU set, if it has one.  *set is buf, or a heap copy
 * for sets larger than buf (hosts with more than 8192 CPUs) that the
 * caller frees. */
static bool attr_cpuset(const pthread_attr_t *attr, unsigned char *buf, unsigned char **set,
                        size_t *size)
{
    if (attr == NULL)
        return false;
    /* glibc fails a read shorter than the attribute's set only where a
     * byte beyond it has a CPU: a read of zero bytes succeeds for an
     * attribute without a set (most of them), at the cost of a call,
     * where a full one would fill the buffer with ones to be compared.
     * A set with no CPU at all fails the create in the kernel, touched
     * or not. */
    if (pthread_attr_getaffinity_np(attr, 0, (cpu_set_t *)buf) == 0)
        return false;
    size_t n = AFX_MASK_BYTES;
    unsigned char *p = buf;
    int rc;
    while ((rc = pthread_attr_getaffinity_np(attr, n, (cpu_set_t *)p)) == EINVAL
           && n < ((size_t)1 << 20)) {
        if (p != buf)
            free(p);
        n *= 2;
        if ((p = malloc(n)) == NULL)
            return false;
    }
    if (rc != 0) {
        if (p != buf)
            free(p);
        return false;
    }
    *set = p;
    *size = n;
    return true;
}

/* The CPU set the new thread is born with, if any: the attribute's, or
 * without one the process default's (pthread_setattr_default_np), which
 * glibc also applies to C11 threads. */
static bool birth_cpuset(const pthread_attr_t *attr, unsigned char *buf, unsigned char **set,
                         size_t *size)
{
    pthread_attr_t defaults;
    if (attr != NULL)
        return attr_cpuset(attr, buf, set, size);
    if (pthread_getattr_default_np(&defaults) != 0)
        return false;
    bool found = attr_cpuset(&defaults, buf, set, size);
    pthread_attr_destroy(&defaults);
    return found;
}

/* CPUs of WIDE (AFX_MASK_BYTES) that SET (SIZE bytes) also has, a word
 * at a time: a byte at a time over a whole mask costs thousands of
 * instructions a thread. */
static long common(const unsigned char *wide, const unsigned char *set, size_t size)
{
    long n = 0;
    size_t end = size < AFX_MASK_BYTES ? size : AFX_MASK_BYTES;
    size_t i = 0;
    for (; i + sizeof(unsigned long) <= end; i += sizeof(unsigned long)) {
        unsigned long w, t;
        __builtin_memcpy(&w, wide + i, sizeof w);
        __builtin_memcpy(&t, set + i, sizeof t);
        if ((w & t) != 0)
            n += __builtin_popcountl(w & t);
    }
    for (; i < end; i++)
        n += __builtin_popcount((unsigned)(wide[i] & set[i]));
    return n;
}

/* The block for a thread that would be born on a mask narrower than the
 * wide one (the recorded mask, else the creator's), or NULL: born wide,
 * or no memory (it is created without).  ATTR_APPLIES: attr, or the
 * process default, may carry a CPU set. */
static struct start *block_if_born_narrow(const pthread_attr_t *attr, bool attr_applies)
{
    unsigned char buf[AFX_MASK_BYTES], mine[AFX_MASK_BYTES], *set = NULL;
    size_t size = 0;
    const cpu_set_t *recorded;
    size_t recorded_size;
    bool has_set = attr_applies && birth_cpuset(attr, buf, &set, &size);
    bool known = afx_mask_wide(&recorded, &recorded_size);
    long creator = -1;
    /* Born on the creator's mask, which no narrowing seen made narrow. */
    if (!has_set && !known)
        return NULL;
    if (!known || !has_set)
        creator = afx_mask_get(mine);
    const unsigned char *wide = known ? (const unsigned char *)recorded : mine;
    long wide_cpus = known || creator >= 0 ? afx_mask_count(wide, AFX_MASK_BYTES) : -1;
    long born_cpus = has_set ? common(wide, set, size) : creator;
    struct start *s = NULL;
    if (wide_cpus > 0 && born_cpus >= 0 && born_cpus < wide_cpus
        && (s = malloc(sizeof *s)) != NULL)
        memcpy(s->wide, wide, sizeof s->wide);
    if (set != buf)
        free(set);
    return s;
}

/* The hand-off between a thread born narrow and its creator: the
 * creator returns from pthread_create only once the thread is back on
 * its birth mask, as glibc's returns once it has set it.  A creator's
 * pthread_setaffinity_np on the new thread, or its reading of the mask,
 * then comes after the touch, never inside it.  The thread reads nothing
 * of the block once the word is set: the creator may free it at once (a
 * private wake-up reads no memory, and one on an address no one waits on
 * wakes no one). */
enum { PENDING, HANDED, CREATOR_GONE };

/* The creator waits this long at most: a thread born onto a CPU that
 * never runs it (a real-time poller's, throttling off) must not hold its
 * creator in pthread_create for ever.  Past it, the placement is as
 * without the hand-off, and the thread frees its block itself. */
enum { HAND_OFF_WAIT_MS = 1000 };

/* The thread's side.  True: the creator has gone, the block is the
 * thread's to free. */
static bool hand_off(atomic_uint *handed)
{
    AFX_PUBLISHED(*handed);
    unsigned was = atomic_exchange_explicit(handed, HANDED, memory_order_acq_rel);
    if (was == CREATOR_GONE)
        return true;
    afx_syscall(SYS_futex, handed, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    return false;
}

/* The creator's side.  True: the thread has handed off, the block is
 * the creator's to free. */
/* By the system call: the libc function's symbol version (GLIBC_2.17)
 * would cost every process a check at load, for a wait that few make.
 * The kernel's clock_gettime takes the struct glibc defines wherever
 * time_t is a long. */
static void monotonic_now(struct timespec *t)
{
    _Static_assert(sizeof t->tv_sec == sizeof(long), "a 64-bit time_t needs clock_gettime64");
    afx_syscall(SYS_clock_gettime, CLOCK_MONOTONIC, t);
}

static bool wait_for_hand_off(atomic_uint *handed)
{
    int saved = errno;
    struct timespec start, now;
    monotonic_now(&start);
    for (;;) {
        if (atomic_load_explicit(handed, memory_order_acquire) == HANDED)
            break;
        monotonic_now(&now);
        long spent_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        unsigned pending = PENDING;
        if (spent_ms >= HAND_OFF_WAIT_MS
            && atomic_compare_exchange_strong(handed, &pending, CREATOR_GONE)) {
            errno = saved;
            return false;
        }
        long left_ms = HAND_OFF_WAIT_MS - spent_ms;
        struct timespec left = { .tv_sec = left_ms / 1000, .tv_nsec = (left_ms % 1000) * 1000000 };
        afx_syscall(SYS_futex, handed, FUTEX_WAIT_PRIVATE, PENDING, left_ms > 0 ? &left : NULL,
                    NULL, 0);
    }
    AFX_SEEN(*handed);
    errno = saved;
    return true;
}

/* In the new thread, before its routine: malloc on the wide mask, take
 * the birth mask back, hand off to the creator.  Signals
 * are blocked meanwhile: a handler that sets the thread's mask would
 * otherwise see it taken back.  Not inlined, so that its frame is gone
 * when the routine runs. */
__attribute__((noinline)) static void touch_at_birth(struct start *s)
{
    int saved = errno;
    sigset_t all, old;
    sigfillset(&all);
    bool blocked = pthread_sigmask(SIG_BLOCK, &all, &old) == 0;
    /* A signal handler's affinity call in this window only forwards. */
    if (afx_enter()) {
        if (afx_mask_get(s->birth) > 0 && set_own_mask(sizeof s->wide, s->wide) == 0) {
            clean_stack_below();
            touch_malloc();
            mark_touched();
            set_own_mask(sizeof s->birth, s->birth);
        }
        afx_leave();
    }
    if (blocked)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (hand_off(&s->handed))
        free(s);
    errno = saved;
}

static void *posix_trampoline(void *p)
{
    struct start *s = p;
    void *(*routine)(void *) = s->routine.posix;
    void *arg = s->arg;
    touch_at_birth(s);
    return routine(arg);
}

/* glibc's start_thread calls a C11 routine as int (*)(void *) and keeps
 * its result for thrd_join: so does this one. */
static int c11_trampoline(void *p)
{
    struct start *s = p;
    int (*routine)(void *) = s->routine.c11;
    void *arg = s->arg;
    touch_at_birth(s);
    return routine(arg);
}

/* After the real create: wait for the hand-off of a thread that was
 * created, then free its block, keeping the create's errno. */
static void after_create(struct start *s, bool created)
{
    int saved = errno;
    if (!created || wait_for_hand_off(&s->handed))
        free(s);
    errno = saved;
}

int afx_touch_create(afx_create_fn *create, bool old_attr, pthread_t *thread,
                     const pthread_attr_t *attr, void *(*routine)(void *), void *arg, int errno_in)
{
    /* glibc applies the attribute itself, the CPU set at birth (failing
     * the create on a set the kernel refuses, with no thread left), and
     * the detach state, stack, guard and scheduling from the start. */
    struct start *s = block_if_born_narrow(attr, !old_attr);
    errno = errno_in;
    if (s == NULL)
        return create(thread, attr, routine, arg);
    s->routine.posix = routine;
    s->arg = arg;
    AFX_ATOMIC(s->handed);
    atomic_init(&s->handed, 0);
    int rc = create(thread, attr, posix_trampoline, s);
    after_create(s, rc == 0);
    return rc;
}

int afx_touch_thrd_create(afx_thrd_create_fn *create, thrd_t *thread, thrd_start_t routine,
                          void *arg, int errno_in)
{
    struct start *s = block_if_born_narrow(NULL, true);
    errno = errno_in;
    if (s == NULL)
        return create(thread, routine, arg);
    s->routine.c11 = routine;
    s->arg = arg;
    AFX_ATOMIC(s->handed);
    atomic_init(&s->handed, 0);
    int rc = create(thread, c11_trampoline, s);
    after_create(s, rc == thrd_success);
    return rc;
}

/* ---- born wide: the touch when a thread narrows itself --------------- */

/* In a signal handler that runs on an alternate stack (the kernel says
 * so): a malloc there could find the thread's own malloc interrupted, and
 * the stack small.  The thread stays untouched: its next narrowing, in
 * normal code, touches. */
bool afx_on_alternate_stack(void)
{
    stack_t ss;
    int saved = errno;
    bool on = afx_syscall(SYS_sigaltstack, NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
    errno = saved;
    return on;
}

void afx_touch_after_narrowing(const unsigned char *before, long cpus)
{
    unsigned char now[AFX_MASK_BYTES];
    if (cpus <= 0 || afx_on_alternate_stack() || !afx_enter())
        return;
    int saved = errno;
    long after = afx_mask_get(now);
    if (after >= 0 && after < cpus) {
        /* Back on the mask it had before the call for the malloc: the
         * caller's set is never read, and a narrowing is judged by the
         * mask the kernel made of it. */
        if (set_own_mask(AFX_MASK_BYTES, before) == 0) {
            /* The touch may be the malloc that fixes glibc's limit:
             * glibc 2.35 as released counts stack bytes as CPUs there. */
            clean_stack_below();
            touch_malloc();
            mark_touched();
            set_own_mask(sizeof now, now);
        }
    }
    errno = saved;
    afx_leave();
}
