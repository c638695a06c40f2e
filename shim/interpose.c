/* The interposed functions and the thread trampoline.  Only the symbols
 * defined here are exported (see the libarenafix*.map of the architecture).
 *
 * glibc makes sched_setaffinity and pthread_setaffinity_np
 * async-signal-safe: their interposers take no lock, allocate nothing
 * and never wait; they forward at once when reached from arenafix's own
 * code (a signal handler interrupting it). */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "activate.h"
#include "mask.h"
#include "real.h"
#include "tls.h"

#define AFX_EXPORT __attribute__((visibility("default")))

/* The real pthread_create a call goes to. */
typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* ---- touching malloc ---------------------------------------------- */

/* A thread's first malloc attaches it to an arena, and glibc sizes the
 * arena limit from the affinity of the thread that needs the ninth: do
 * it while the mask is still wide.  volatile keeps the pair alive. */
static void touch_malloc(void)
{
    int saved = errno;
    void *volatile p = malloc(1);
    free(p);
    errno = saved;
}

/* The calling thread's own mask, set as glibc sets a new thread's from
 * its attribute: the system call itself.  Returns 0 or an error number. */
static int set_own_mask(size_t size, const cpu_set_t *set)
{
    return syscall(SYS_sched_setaffinity, 0, size, set) == 0 ? 0 : errno;
}

/* ---- thread trampoline -------------------------------------------- */

struct start {
    void *(*routine)(void *);
    void *arg;
    /* Only for a thread that must end up on a narrow mask (its
     * attribute's, or the one it inherits from a narrowed creator): it
     * mallocs on a wide mask, then narrows; the creator waits. */
    const cpu_set_t *target;
    size_t target_size;
    bool validate;          /* the attribute's set: fail before any malloc */
    bool detach;
    int result;
    sem_t done;
};

static void *trampoline(void *p)
{
    struct start *s = p;
    void *(*routine)(void *) = s->routine;
    void *arg = s->arg;

    if (s->target == NULL) {
        touch_malloc();
        free(s);
        return routine(arg);
    }

    unsigned char inherited[AFX_MASK_BYTES];
    const cpu_set_t *wide;
    size_t wide_size;
    int rc = 0;
    if (!afx_mask_wide(&wide, &wide_size)) {
        wide = (const cpu_set_t *)inherited;
        wide_size = afx_mask_get(inherited) >= 0 ? sizeof inherited : 0;
    }
    /* glibc fails pthread_create on a set the kernel refuses: find out
     * before this thread claims an arena. */
    if (s->validate)
        rc = set_own_mask(s->target_size, s->target);
    if (rc == 0) {
        if (wide_size > 0)
            set_own_mask(wide_size, wide);  /* best effort: the malloc still happens */
        touch_malloc();
        rc = set_own_mask(s->target_size, s->target);
    }
    bool detach = s->detach;
    s->result = rc;
    sem_post(&s->done);     /* s belongs to the creator again */
    if (rc != 0)
        return NULL;        /* the creator joins us and reports rc */
    if (detach)
        pthread_detach(pthread_self());
    return routine(arg);
}

/* Copy everything of src but its CPU set (and its detach state, which
 * the child applies itself so the creator can join a failed one). */
static int copy_attr(const pthread_attr_t *src, pthread_attr_t *dst, bool *detach)
{
    int state, inherit, policy, scope;
    size_t guard, size;
    void *addr;
    struct sched_param param;
    sigset_t mask;

    int rc = pthread_attr_init(dst);
    if (rc != 0 || src == NULL) {
        *detach = false;
        return rc;
    }
    if ((rc = pthread_attr_getdetachstate(src, &state)) != 0
        || (rc = pthread_attr_getguardsize(src, &guard)) != 0
        || (rc = pthread_attr_setguardsize(dst, guard)) != 0
        || (rc = pthread_attr_getinheritsched(src, &inherit)) != 0
        || (rc = pthread_attr_setinheritsched(dst, inherit)) != 0
        || (rc = pthread_attr_getscope(src, &scope)) != 0
        || (rc = pthread_attr_setscope(dst, scope)) != 0
        || (rc = pthread_attr_getstack(src, &addr, &size)) != 0)
        goto fail;
    /* An attribute without its own stack reports addr + size == 0. */
    if ((uintptr_t)addr + size != 0)
        rc = pthread_attr_setstack(dst, addr, size);
    else if (pthread_attr_getstacksize(src, &size) == 0)
        rc = pthread_attr_setstacksize(dst, size);
    if (rc != 0)
        goto fail;
    if (inherit == PTHREAD_EXPLICIT_SCHED
        && ((rc = pthread_attr_getschedpolicy(src, &policy)) != 0
            || (rc = pthread_attr_setschedpolicy(dst, policy)) != 0
            || (rc = pthread_attr_getschedparam(src, &param)) != 0
            || (rc = pthread_attr_setschedparam(dst, &param)) != 0))
        goto fail;
    if (pthread_attr_getsigmask_np(src, &mask) == 0
        && (rc = pthread_attr_setsigmask_np(dst, &mask)) != 0)
        goto fail;
    *detach = state == PTHREAD_CREATE_DETACHED;
    return 0;
fail:
    pthread_attr_destroy(dst);
    return rc;
}

/* LinuxThreads' attribute, what pthread_attr_init@GLIBC_2.0 initialises
 * and pthread_create@GLIBC_2.0 takes (glibc's nptl/pthread_attr_init.c).
 * glibc converts it into a full one, reading only its scheduling
 * fields and flags: nothing past these bytes may be read. */
struct old_attr {
    int detachstate;
    int schedpolicy;
    struct sched_param schedparam;
    int inheritsched;
    int scope;
};
_Static_assert(sizeof(struct old_attr) <= sizeof(pthread_attr_t), "an old attribute fits");

/* The same for an old attribute: its bytes in a zeroed full-size one,
 * made joinable, still to be converted by pthread_create@GLIBC_2.0.
 * The detach state lives in the flags both layouts share, where the
 * GLIBC_2.0 functions read and write it. */
static int copy_old_attr(const pthread_attr_t *src, pthread_attr_t *dst, bool *detach)
{
    int state;
    memset(dst, 0, sizeof *dst);
    memcpy(dst, src, sizeof(struct old_attr));
    int rc = pthread_attr_getdetachstate(dst, &state);
    if (rc == 0)
        rc = pthread_attr_setdetachstate(dst, PTHREAD_CREATE_JOINABLE);
    *detach = rc == 0 && state == PTHREAD_CREATE_DETACHED;
    return rc;
}

/* Create a thread that mallocs on a wide mask and then takes TARGET,
 * before the user's code runs.  A failure to take it is
 * pthread_create's failure, with no thread left, as in glibc.
 * OLD_ATTR: attr is a GLIBC_2.0 one, for CREATE to convert. */
static int create_pinned(create_fn *create, bool old_attr, pthread_t *thread,
                         const pthread_attr_t *attr, void *(*routine)(void *), void *arg,
                         const cpu_set_t *target, size_t size, bool validate)
{
    struct start s = { .routine = routine, .arg = arg, .target = target,
                       .target_size = size, .validate = validate };
    pthread_attr_t copy;

    if ((old_attr ? copy_old_attr(attr, &copy, &s.detach) : copy_attr(attr, &copy, &s.detach))
        != 0)
        return create(thread, attr, routine, arg);
    /* An old attribute's copy was never initialised as a full one. */
    if (sem_init(&s.done, 0, 0) != 0) {
        if (!old_attr)
            pthread_attr_destroy(&copy);
        return create(thread, attr, routine, arg);
    }
    /* glibc stores *thread before the thread starts: so does this call,
     * and the user's code runs only after the wait below. */
    int rc = create(thread, &copy, trampoline, &s);
    if (!old_attr)
        pthread_attr_destroy(&copy);
    if (rc == 0) {
        pthread_t tid = *thread;
        /* pthread_create is no cancellation point: neither is this wait. */
        int cancel;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        while (sem_wait(&s.done) != 0)
            ;
        pthread_setcancelstate(cancel, NULL);
        rc = s.result;
        if (rc != 0)
            pthread_join(tid, NULL);
    }
    sem_destroy(&s.done);
    return rc;
}

/* The attribute's CPU set, if it has one narrower than "all" (glibc
 * reports an unset one as all bits set).  *set is buf, or a heap copy
 * for sets larger than buf (hosts with more than 8192 CPUs) that the
 * caller frees. */
static bool attr_cpuset(const pthread_attr_t *attr, unsigned char *buf, cpu_set_t **set,
                        size_t *size)
{
    if (attr == NULL)
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
    bool narrow = false;
    for (size_t i = 0; rc == 0 && i < n && !narrow; i++)
        narrow = p[i] != 0xff;
    if (!narrow) {
        if (p != buf)
            free(p);
        return false;
    }
    *set = (cpu_set_t *)p;
    *size = n;
    return true;
}

/* A creator narrowed since arenafix recorded the wide mask: its threads
 * would inherit the narrow mask.  The creator's mask goes into buf. */
static bool creator_narrowed(unsigned char *buf)
{
    const cpu_set_t *wide;
    size_t wide_size;
    if (!afx_mask_wide(&wide, &wide_size))
        return false;
    long now = afx_mask_get(buf);
    return now > 0 && now < CPU_COUNT_S(wide_size, wide);
}

/* OLD_ATTR: attr is a GLIBC_2.0 one.  It has no CPU set, and glibc
 * reads no process default for it; it is passed on untouched, for
 * CREATE to convert. */
static int create_touched(create_fn *create, bool old_attr, pthread_t *thread,
                          const pthread_attr_t *attr, void *(*routine)(void *), void *arg)
{
    unsigned char buf[AFX_MASK_BYTES];
    cpu_set_t *set;
    size_t size;
    int rc = 0;
    if (!old_attr) {
        /* Without an attribute glibc uses the process default, which
         * pthread_setattr_default_np may have given a CPU set. */
        pthread_attr_t defaults;
        const pthread_attr_t *effective = attr;
        if (attr == NULL && pthread_getattr_default_np(&defaults) == 0)
            effective = &defaults;
        bool pinned = attr_cpuset(effective, buf, &set, &size);
        if (pinned) {
            rc = create_pinned(create, false, thread, effective, routine, arg, set, size, true);
            if ((unsigned char *)set != buf)
                free(set);
        }
        if (effective != attr)
            pthread_attr_destroy(&defaults);
        if (pinned)
            return rc;
    }
    if (creator_narrowed(buf))
        return create_pinned(create, old_attr, thread, attr, routine, arg, (cpu_set_t *)buf,
                             sizeof buf, false);

    struct start *s = malloc(sizeof *s);
    if (s == NULL)      /* no trampoline then, but the thread is made */
        return create(thread, attr, routine, arg);
    *s = (struct start){ .routine = routine, .arg = arg };
    rc = create(thread, attr, trampoline, s);
    if (rc != 0)
        free(s);
    return rc;
}

/* The real function for a call: the default version, or the GLIBC_2.0
 * one for an old attribute (with none, that one calls the default). */
static create_fn *real_create(const struct afx_real *real, bool old_attr)
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

static int create_thread(bool old_attr, pthread_t *thread, const pthread_attr_t *attr,
                         void *(*routine)(void *), void *arg)
{
    int saved = errno;
    create_fn *create;
    if (!afx_enter()) {
        /* From arenafix's own code (a malloc it called, or a signal
         * handler interrupting it): only forward. */
        create = real_create(afx_real_if_bound(), old_attr);
        return create != NULL ? create(thread, attr, routine, arg) : EAGAIN;
    }
    create = real_create(afx_real(), old_attr);
    if (create == NULL) {
        afx_leave();
        return EAGAIN;
    }
    afx_before_create();
    if (!afx_touch_enabled()) {
        afx_leave();
        errno = saved;
        return create(thread, attr, routine, arg);
    }
    int rc = create_touched(create, old_attr, thread, attr, routine, arg);
    afx_leave();
    errno = saved;
    return rc;
}

int afx_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

#ifndef AFX_HAVE_OLD_PTHREAD_CREATE
int afx_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *),
                       void *arg)
{
    return create_thread(false, thread, attr, routine, arg);
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
    return create_thread(false, thread, attr, routine, arg);
}
__asm__(".symver afx_pthread_create,pthread_create@@GLIBC_2.34");

AFX_EXPORT int afx_pthread_create_2_1(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                      void *) __attribute__((alias("afx_pthread_create")));
__asm__(".symver afx_pthread_create_2_1,pthread_create@GLIBC_2.1");

int afx_pthread_create_2_0(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
AFX_EXPORT int afx_pthread_create_2_0(pthread_t *thread, const pthread_attr_t *attr,
                                      void *(*routine)(void *), void *arg)
{
    return create_thread(attr != NULL, thread, attr, routine, arg);
}
__asm__(".symver afx_pthread_create_2_0,pthread_create@GLIBC_2.0");
#endif

/* ---- affinity ----------------------------------------------------- */

/* Before a thread sets a mask: save its own for touch mode, explain the
 * decision once.  Returns the saved mask's CPU count, or -1.
 * Async-signal-safe. */
static long before_narrowing(bool self, unsigned char *saved_mask)
{
    long before = -1;
    if (!afx_enter())
        return -1;
    if (self && afx_touch_possible())
        before = afx_mask_before(saved_mask);
    afx_before_narrowing();
    afx_leave();
    return before;
}

/* After it: a narrowing of the thread's own mask is recorded. */
static void after_narrowing(int failed, const unsigned char *saved_mask, long before)
{
    int saved = errno;
    if (!failed)
        afx_mask_after(saved_mask, before);
    errno = saved;
}

static bool is_self_pid(pid_t pid)
{
    return pid == 0 || pid == gettid();
}

/* The table for an affinity interposer: bound, or bound now if this
 * call comes before the constructor (another library's constructor
 * pinning a thread); NULL from a signal handler that interrupted the
 * binding, and the caller makes the system call itself. */
static const struct afx_real *affinity_real(void)
{
    const struct afx_real *real = afx_real_if_bound();
    if (real == NULL && afx_enter()) {
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

AFX_VERSIONED int afx_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    int saved = errno;
    unsigned char mask[AFX_MASK_BYTES];
    long before = before_narrowing(is_self_pid(pid), mask);
    const struct afx_real *real = affinity_real();
    errno = saved;
    int rc = real == NULL || real->sched_setaffinity.fn == NULL
                 ? (int)syscall(SYS_sched_setaffinity, pid, size, set)
                 : real->sched_setaffinity.fn(pid, size, set);
    after_narrowing(rc, mask, before);
    return rc;
}
AFX_SYMVER(afx_sched_setaffinity, "sched_setaffinity@@GLIBC_2.3.4");

AFX_VERSIONED int afx_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    int saved = errno;
    unsigned char mask[AFX_MASK_BYTES];
    bool self = pthread_equal(thread, pthread_self());
    long before = before_narrowing(self, mask);
    const struct afx_real *real = affinity_real();
    errno = saved;
    int rc;
    if (real != NULL && real->pthread_setaffinity_np.fn != NULL)
        rc = real->pthread_setaffinity_np.fn(thread, size, set);
    else
        rc = self ? set_own_mask(size, set) : ENOSYS;
    after_narrowing(rc, mask, before);
    errno = saved;
    return rc;
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
AFX_EXPORT int afx_sched_setaffinity_old(pid_t pid, const cpu_set_t *set)
{
    int saved = errno;
    unsigned char mask[AFX_MASK_BYTES];
    long before = before_narrowing(is_self_pid(pid), mask);
    const struct afx_real *real = affinity_real();
    errno = saved;
    if (real == NULL || real->sched_setaffinity_old.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    int rc = real->sched_setaffinity_old.fn(pid, set);
    after_narrowing(rc, mask, before);
    return rc;
}
AFX_SYMVER(afx_sched_setaffinity_old, "sched_setaffinity@GLIBC_2.3.3");

AFX_EXPORT int afx_pthread_setaffinity_np_old(pthread_t thread, const cpu_set_t *set)
{
    int saved = errno;
    unsigned char mask[AFX_MASK_BYTES];
    long before = before_narrowing(pthread_equal(thread, pthread_self()), mask);
    const struct afx_real *real = affinity_real();
    errno = saved;
    if (real == NULL || real->pthread_setaffinity_np_old.fn == NULL)
        return ENOSYS;
    int rc = real->pthread_setaffinity_np_old.fn(thread, set);
    after_narrowing(rc, mask, before);
    errno = saved;
    return rc;
}
AFX_SYMVER(afx_pthread_setaffinity_np_old, "pthread_setaffinity_np@GLIBC_2.3.3");
#endif

/* ---- mallopt ------------------------------------------------------ */

static int forward_mallopt(bool libc_name, int param, int value)
{
    if (afx_enter()) {
        afx_note_program_mallopt(param, value);
        afx_leave();
    }
    const struct afx_real *real = afx_real();
    if (real == NULL)
        return 0;
    if (libc_name && real->libc_mallopt.fn != NULL)
        return real->libc_mallopt.fn(param, value);
    return real->mallopt.fn != NULL ? real->mallopt.fn(param, value) : 0;
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
