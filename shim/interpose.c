/* The interposed functions.  Only the symbols defined here are exported
 * (see the libarenafix*.map of the architecture); touch mode's work is
 * in touch.c.
 *
 * glibc makes sched_setaffinity and pthread_setaffinity_np
 * async-signal-safe: their interposers take no lock and never wait; they
 * forward at once when reached from arenafix's own code (a signal
 * handler interrupting it).  In touch mode a thread's first narrowing
 * of its own mask mallocs once (docs/internals.md, "Async-signal
 * safety"). */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>

#include "activate.h"
#include "livecount.h"
#include "mask.h"
#include "real.h"
#include "marks.h"
#include "touch.h"

#define AFX_EXPORT __attribute__((visibility("default")))

/* ---- thread creation ---------------------------------------------- */

/* The real function for a call: the default version, or the GLIBC_2.0
 * one for an old attribute (with none, that one calls the default). */
static afx_create_fn *real_create(const struct afx_real *real, bool old_attr)
{
    if (real == NULL)
        return NULL;
#ifdef AFX_HAVE_OLD_PTHREAD_CREATE
    if (old_attr)
        return real->pthread_create_2_0.fn;
#else
    (void)old_attr;
#endif
    return real->pthread_create.fn;
}

/* One creation, through pthread_create or C11's thrd_create: the
 * arguments of either, and one skeleton for both. */
struct creation {
    bool c11;
    bool old_attr;                  /* pthread_create@GLIBC_2.0's attribute */
    pthread_t *thread;
    const pthread_attr_t *attr;
    void *(*routine)(void *);
    thrd_t *c11_thread;
    thrd_start_t c11_routine;
    void *arg;
};

/* The real call, or the error it returns when it cannot be had. */
static int forward_create(const struct afx_real *real, const struct creation *c)
{
    if (c->c11)
        return real != NULL && real->thrd_create.fn != NULL
                   ? real->thrd_create.fn(c->c11_thread, c->c11_routine, c->arg)
                   : thrd_error;
    afx_create_fn *create = real_create(real, c->old_attr);
    return create != NULL ? create(c->thread, c->attr, c->routine, c->arg) : EAGAIN;
}

static bool bound(const struct afx_real *real, const struct creation *c)
{
    return c->c11 ? real != NULL && real->thrd_create.fn != NULL
                  : real_create(real, c->old_attr) != NULL;
}

static int create_thread(struct creation *c)
{
    int saved = errno;
    if (!afx_enter()) {
        /* From arenafix's own code (a malloc it called, or a signal
         * handler interrupting it): only forward.  Not bound yet: bound
         * now, unless this thread is binding (afx_real says so). */
        const struct afx_real *table = afx_real_if_bound();
        return forward_create(table != NULL ? table : afx_real(), c);
    }
    const struct afx_real *real = afx_real();
    if (!bound(real, c) || afx_off()) {
        afx_leave();
        errno = saved;
        return forward_create(real, c);
    }
    /* Neither creates a cancellation point; the counting and the
     * decision may make system calls that are. */
    int cancel;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
    afx_before_create();
    bool counted = c->c11 ? afx_live_wrap_c11(&c->c11_routine, &c->arg)
                          : afx_live_wrap(&c->routine, &c->arg);
    int rc;
    if (!afx_touch_enabled()) {
        afx_leave();
        errno = saved;
        rc = forward_create(real, c);
    } else {
        /* errno is the real call's: a failed mmap's ENOMEM, say. */
        rc = c->c11 ? afx_touch_thrd_create(real->thrd_create.fn, c->c11_thread, c->c11_routine,
                                            c->arg, saved)
                    : afx_touch_create(real_create(real, c->old_attr), c->old_attr, c->thread,
                                       c->attr, c->routine, c->arg, saved);
        afx_leave();
    }
    /* The creation is no longer in flight, and a counted thread that
     * was not made is no longer counted.  errno kept: the real call's. */
    int after = errno;
    if (rc != (c->c11 ? thrd_success : 0) && counted)
        afx_live_unwrap(c->arg);
    afx_after_create();
    errno = after;
    pthread_setcancelstate(cancel, NULL);
    return rc;
}

/* glibc's function where a creation has nothing left for arenafix to
 * do (the limit settled, touch off), else NULL.  Asked first, before any
 * thread-local access or copy of the arguments: every creation of a
 * process's life pays for what comes before the real call. */
static inline afx_create_fn *settled_create(bool old_attr)
{
    return afx_creation_quiet() ? real_create(afx_real_if_bound(), old_attr) : NULL;
}

static int create_posix(bool old_attr, pthread_t *thread, const pthread_attr_t *attr,
                        void *(*routine)(void *), void *arg)
{
    struct creation c = { .old_attr = old_attr, .thread = thread, .attr = attr,
                          .routine = routine, .arg = arg };
    return create_thread(&c);
}

int afx_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

#ifndef AFX_HAVE_OLD_PTHREAD_CREATE
int afx_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
                       void *arg)
{
    afx_create_fn *settled = settled_create(false);
    if (settled != NULL)
        return settled(thread, attr, routine, arg);
    return create_posix(false, thread, attr, routine, arg);
}
/* Unversioned: it stands in for every version (GLIBC_2.2.5 and
 * GLIBC_2.34 on x86_64 take the same attribute). */
AFX_EXPORT int pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
    __attribute__((alias("afx_pthread_create")));
#else
/* i386: one symbol per version (libarenafix-i386.map).  GLIBC_2.1 and
 * GLIBC_2.34 take the full attribute; GLIBC_2.0 goes to glibc's own
 * GLIBC_2.0 function, which converts LinuxThreads' attribute: read as a
 * full one, its missing fields would be whatever follows it in memory. */
AFX_EXPORT int afx_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                  void *(*routine)(void *), void *arg)
{
    afx_create_fn *settled = settled_create(false);
    if (settled != NULL)
        return settled(thread, attr, routine, arg);
    return create_posix(false, thread, attr, routine, arg);
}
__asm__(".symver afx_pthread_create,pthread_create@@GLIBC_2.34");

AFX_EXPORT int afx_pthread_create_2_1(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                      void *) __attribute__((alias("afx_pthread_create")));
__asm__(".symver afx_pthread_create_2_1,pthread_create@GLIBC_2.1");

int afx_pthread_create_2_0(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
AFX_EXPORT int afx_pthread_create_2_0(pthread_t *thread, const pthread_attr_t *attr,
                                      void *(*routine)(void *), void *arg)
{
    afx_create_fn *settled = settled_create(attr != NULL);
    if (settled != NULL)
        return settled(thread, attr, routine, arg);
    return create_posix(attr != NULL, thread, attr, routine, arg);
}
__asm__(".symver afx_pthread_create_2_0,pthread_create@GLIBC_2.0");
#endif

/* C11's: glibc's thrd_create calls its internal create directly, never
 * pthread_create.  One calling convention in every version (GLIBC_2.28
 * in libpthread, GLIBC_2.34 in libc), so unversioned, like mallopt: it
 * stands in for both.  Returns thrd_success, thrd_nomem or thrd_error,
 * as the real one does. */
AFX_EXPORT int thrd_create(thrd_t *thread, thrd_start_t routine, void *arg)
{
    const struct afx_real *real;
    if (afx_creation_quiet() && (real = afx_real_if_bound()) != NULL && real->thrd_create.fn != NULL)
        return real->thrd_create.fn(thread, routine, arg);
    struct creation c = { .c11 = true, .c11_thread = thread, .c11_routine = routine, .arg = arg };
    return create_thread(&c);
}

/* ---- affinity ----------------------------------------------------- */

/* Around a call that sets a thread's mask. */
struct own_mask {
    unsigned char before[AFX_MASK_BYTES];  /* the calling thread's, before the call */
    long cpus;      /* CPUs in before; -1: nothing to do after the call */
    bool record;    /* no narrowing recorded yet (mask.c) */
    bool touch;     /* touch mode, and this thread not touched yet */
};

/* Before a thread sets a mask: save its own if it sets its own and touch
 * mode may need it, explain the decision once.  Async-signal-safe. */
static void before_narrowing(bool self, struct own_mask *m)
{
    const cpu_set_t *wide;
    size_t size;
    m->cpus = -1;
    m->record = m->touch = false;
    if (afx_off_if_known() || !afx_enter())
        return;
    /* Recorded in every mode: a process that can read no CPU count takes
     * the widest mask it knows (activate.c). */
    if (self) {
        m->record = !afx_mask_wide(&wide, &size);
        m->touch = afx_touch_pending() && afx_touch_possible();
        if (m->record || m->touch)
            m->cpus = afx_mask_get(m->before);
    }
    afx_before_narrowing();
    afx_leave();
}

/* After it: a narrowing of the thread's own mask is recorded, and in
 * touch mode makes an untouched thread attach its arena. */
static void after_narrowing(int failed, const struct own_mask *m)
{
    int saved = errno;
    if (!failed && m->cpus >= 0) {
        if (m->record)
            afx_mask_after(m->before, m->cpus);
        if (m->touch)
            afx_touch_after_narrowing(m->before, m->cpus);
    }
    errno = saved;
}

/* The calling thread's own mask, by the system call itself: for a call
 * that comes before the table is bound.  Returns 0 or an error number. */
static int set_own_mask(size_t size, const cpu_set_t *set)
{
    return afx_syscall(SYS_sched_setaffinity, 0, size, set) == 0 ? 0 : errno;
}

static bool is_self_pid(pid_t pid)
{
    return pid == 0 || pid == afx_syscall(SYS_gettid);
}

/* The table for an affinity interposer, if bound: the functions are
 * bound at a process's first thread or mallopt, and binding (dlsym)
 * is not async-signal-safe.  Until then each call does what glibc's
 * does, a plain system call, on the calling thread itself.  Only a
 * call that sets another thread's mask, which needs glibc's thread
 * table, binds now (MAY_BIND), if not reached from arenafix's own
 * code; NULL if it cannot. */
static const struct afx_real *affinity_real(bool may_bind)
{
    const struct afx_real *real = afx_real_if_bound();
    if (real == NULL && may_bind && afx_enter()) {
        real = afx_real();
        afx_leave();
    }
    return real;
}

/* Exported under the versions glibc uses on this architecture, so a
 * program linked against the pre-2.3.4 calling convention reaches the
 * code it was linked against. */
#ifdef AFX_HAVE_OLD_AFFINITY
#define AFX_SYMVER(fn, sym) __asm__(".symver " #fn "," sym)
#define AFX_VERSIONED AFX_EXPORT
#else
/* No older ABI here: plain names, defined as aliases below. */
#define AFX_SYMVER(fn, sym)
#define AFX_VERSIONED
#endif

int afx_sched_setaffinity(pid_t, size_t, const cpu_set_t *);
int afx_pthread_setaffinity_np(pthread_t, size_t, const cpu_set_t *);
int afx_sched_setaffinity_old(pid_t, const cpu_set_t *);
int afx_pthread_setaffinity_np_old(pthread_t, const cpu_set_t *);

static __attribute__((noinline)) int tracked_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    int saved = errno;
    struct own_mask mask;
    before_narrowing(is_self_pid(pid), &mask);
    const struct afx_real *real = affinity_real(false);
    errno = saved;
    int rc = real == NULL || real->sched_setaffinity.fn == NULL
                 ? (int)afx_syscall(SYS_sched_setaffinity, pid, size, set)
                 : real->sched_setaffinity.fn(pid, size, set);
    after_narrowing(rc, &mask);
    return rc;
}

AFX_VERSIONED int afx_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    /* Mode off: straight to glibc, in a frame no larger than a call's
     * (the masks arenafix keeps are in the frame above): glibc 2.35 as
     * released counts what is left on the stack as CPUs. */
    const struct afx_real *real;
    if (afx_off_if_known() && (real = afx_real_if_bound()) != NULL && real->sched_setaffinity.fn != NULL)
        return real->sched_setaffinity.fn(pid, size, set);
    return tracked_sched_setaffinity(pid, size, set);
}
AFX_SYMVER(afx_sched_setaffinity, "sched_setaffinity@@GLIBC_2.3.4");

static __attribute__((noinline)) int tracked_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    int saved = errno;
    struct own_mask mask;
    bool self = pthread_equal(thread, afx_pthread_self());
    before_narrowing(self, &mask);
    const struct afx_real *real = affinity_real(!self);
    errno = saved;
    int rc;
    if (real != NULL && real->pthread_setaffinity_np.fn != NULL)
        rc = real->pthread_setaffinity_np.fn(thread, size, set);
    else
        rc = self ? set_own_mask(size, set) : ENOSYS;
    after_narrowing(rc, &mask);
    errno = saved;
    return rc;
}

AFX_VERSIONED int afx_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    /* Mode off: straight to glibc, in a frame no larger than a call's
     * (the masks arenafix keeps are in the frame above): glibc 2.35 as
     * released counts what is left on the stack as CPUs. */
    const struct afx_real *real;
    if (afx_off_if_known() && (real = afx_real_if_bound()) != NULL && real->pthread_setaffinity_np.fn != NULL)
        return real->pthread_setaffinity_np.fn(thread, size, set);
    return tracked_pthread_setaffinity_np(thread, size, set);
}

#ifndef AFX_HAVE_OLD_AFFINITY
AFX_EXPORT int sched_setaffinity(pid_t, size_t, const cpu_set_t *)
    __attribute__((alias("afx_sched_setaffinity")));
AFX_EXPORT int pthread_setaffinity_np(pthread_t, size_t, const cpu_set_t *)
    __attribute__((alias("afx_pthread_setaffinity_np")));
#else
/* Aliases: one symbol per version. */
AFX_EXPORT int afx_pthread_setaffinity_np_234(pthread_t, size_t, const cpu_set_t *)
    __attribute__((alias("afx_pthread_setaffinity_np")));
AFX_SYMVER(afx_pthread_setaffinity_np, "pthread_setaffinity_np@@GLIBC_2.34");
AFX_SYMVER(afx_pthread_setaffinity_np_234, "pthread_setaffinity_np@GLIBC_2.3.4");

/* The pre-2.3.4 calls took no size: a cpu_set_t. */
static __attribute__((noinline)) int tracked_sched_setaffinity_old(pid_t pid, const cpu_set_t *set)
{
    int saved = errno;
    struct own_mask mask;
    before_narrowing(is_self_pid(pid), &mask);
    const struct afx_real *real = affinity_real(false);
    errno = saved;
    /* The old call's set was a cpu_set_t: glibc's passes its size. */
    int rc = real == NULL || real->sched_setaffinity_old.fn == NULL
                 ? (int)afx_syscall(SYS_sched_setaffinity, pid, sizeof(cpu_set_t), set)
                 : real->sched_setaffinity_old.fn(pid, set);
    after_narrowing(rc, &mask);
    return rc;
}

AFX_EXPORT int afx_sched_setaffinity_old(pid_t pid, const cpu_set_t *set)
{
    /* Mode off: straight to glibc, in a frame no larger than a call's
     * (the masks arenafix keeps are in the frame above): glibc 2.35 as
     * released counts what is left on the stack as CPUs. */
    const struct afx_real *real;
    if (afx_off_if_known() && (real = afx_real_if_bound()) != NULL && real->sched_setaffinity_old.fn != NULL)
        return real->sched_setaffinity_old.fn(pid, set);
    return tracked_sched_setaffinity_old(pid, set);
}
AFX_SYMVER(afx_sched_setaffinity_old, "sched_setaffinity@GLIBC_2.3.3");

static __attribute__((noinline)) int tracked_pthread_setaffinity_np_old(pthread_t thread, const cpu_set_t *set)
{
    int saved = errno;
    struct own_mask mask;
    bool self = pthread_equal(thread, afx_pthread_self());
    before_narrowing(self, &mask);
    const struct afx_real *real = affinity_real(!self);
    errno = saved;
    int rc;
    if (real != NULL && real->pthread_setaffinity_np_old.fn != NULL)
        rc = real->pthread_setaffinity_np_old.fn(thread, set);
    else
        rc = self ? set_own_mask(sizeof(cpu_set_t), set) : ENOSYS;
    after_narrowing(rc, &mask);
    errno = saved;
    return rc;
}

AFX_EXPORT int afx_pthread_setaffinity_np_old(pthread_t thread, const cpu_set_t *set)
{
    /* Mode off: straight to glibc, in a frame no larger than a call's
     * (the masks arenafix keeps are in the frame above): glibc 2.35 as
     * released counts what is left on the stack as CPUs. */
    const struct afx_real *real;
    if (afx_off_if_known() && (real = afx_real_if_bound()) != NULL && real->pthread_setaffinity_np_old.fn != NULL)
        return real->pthread_setaffinity_np_old.fn(thread, set);
    return tracked_pthread_setaffinity_np_old(thread, set);
}
AFX_SYMVER(afx_pthread_setaffinity_np_old, "pthread_setaffinity_np@GLIBC_2.3.3");
#endif

/* ---- mallopt ------------------------------------------------------ */

static int forward_mallopt(bool libc_name, int param, int value)
{
    bool ours = afx_enter();
    if (ours && afx_off()) {
        afx_leave();
        ours = false;
    }
    /* mallopt is no cancellation point; a line arenafix writes is. */
    int cancel;
    if (ours) {
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        afx_note_program_mallopt(param, value);
    }
    const struct afx_real *real = afx_real();
    int rc = 0;
    if (real != NULL && libc_name && real->libc_mallopt.fn != NULL)
        rc = real->libc_mallopt.fn(param, value);
    else if (real != NULL && real->mallopt.fn != NULL)
        rc = real->mallopt.fn(param, value);
    if (ours) {
        int saved = errno;
        afx_after_program_mallopt(param, value);
        pthread_setcancelstate(cancel, NULL);
        afx_leave();
        errno = saved;
    }
    return rc;
}

AFX_EXPORT int mallopt(int param, int value)
{
    return forward_mallopt(false, param, value);
}

/* glibc exports the same function under this name too: a program that
 * calls it makes the same choice. */
int __libc_mallopt(int param, int value);
AFX_EXPORT int __libc_mallopt(int param, int value)
{
    return forward_mallopt(true, param, value);
}
