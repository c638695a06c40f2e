/* The interposed functions and the thread trampoline.  Only the symbols
 * defined here are exported (see libarenafix.map). */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activate.h"
#include "real.h"

#define AFX_EXPORT __attribute__((visibility("default")))

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

/* ---- thread trampoline -------------------------------------------- */

struct start {
    void *(*routine)(void *);
    void *arg;
    /* Only for a thread whose attribute carried a CPU set: the child
     * applies it and the parent waits for the result. */
    const cpu_set_t *cpuset;
    size_t cpusetsize;
    bool detach;
    int result;
    sem_t done;
};

static void *trampoline(void *p)
{
    struct start *s = p;
    void *(*routine)(void *) = s->routine;
    void *arg = s->arg;

    touch_malloc();
    if (s->cpuset == NULL) {
        free(s);
        return routine(arg);
    }
    int rc = afx_real()->pthread_setaffinity_np.fn(pthread_self(), s->cpusetsize, s->cpuset);
    bool detach = s->detach;
    s->result = rc;
    sem_post(&s->done);     /* s belongs to the parent again */
    if (rc != 0)
        return NULL;        /* the parent joins us and reports rc */
    if (detach)
        pthread_detach(pthread_self());
    return routine(arg);
}

/* True if the attribute carries a CPU set narrower than "all": glibc
 * reports an unset one as all bits set. */
static bool attr_cpuset(const pthread_attr_t *attr, cpu_set_t *set)
{
    if (attr == NULL || pthread_attr_getaffinity_np(attr, sizeof *set, set) != 0)
        return false;
    const unsigned char *bytes = (const unsigned char *)set;
    for (size_t i = 0; i < sizeof *set; i++)
        if (bytes[i] != 0xff)
            return true;
    return false;
}

/* Copy everything of src but its CPU set (and its detach state, which
 * the child applies itself so the parent can join a failed one). */
static int copy_attr(const pthread_attr_t *src, pthread_attr_t *dst, bool *detach)
{
    int state, inherit, policy, scope;
    size_t guard, size;
    void *addr;
    struct sched_param param;
    sigset_t mask;

    int rc = pthread_attr_init(dst);
    if (rc != 0)
        return rc;
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

/* Born pinned through the attribute: create the thread unpinned, let it
 * malloc, then pin it before the user's code runs.  A failure to pin is
 * pthread_create's failure, with no thread left, as in glibc. */
static int create_then_pin(pthread_t *thread, const pthread_attr_t *attr,
                           void *(*routine)(void *), void *arg, const cpu_set_t *set)
{
    struct start s = { .routine = routine, .arg = arg, .cpuset = set, .cpusetsize = sizeof *set };
    pthread_attr_t copy;
    pthread_t tid;

    if (copy_attr(attr, &copy, &s.detach) != 0 || sem_init(&s.done, 0, 0) != 0)
        return afx_real()->pthread_create.fn(thread, attr, routine, arg);
    int rc = afx_real()->pthread_create.fn(&tid, &copy, trampoline, &s);
    pthread_attr_destroy(&copy);
    if (rc == 0) {
        /* pthread_create is no cancellation point: neither is this wait. */
        int cancel;
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
        while (sem_wait(&s.done) != 0)
            ;
        pthread_setcancelstate(cancel, NULL);
        rc = s.result;
        if (rc != 0)
            pthread_join(tid, NULL);
        else
            *thread = tid;
    }
    sem_destroy(&s.done);
    return rc;
}

AFX_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                              void *(*routine)(void *), void *arg)
{
    const struct afx_real *real = afx_real();
    if (real->pthread_create.fn == NULL)
        return EAGAIN;
    afx_activate();
    if (!afx_touch_enabled())
        return real->pthread_create.fn(thread, attr, routine, arg);

    int saved = errno;
    cpu_set_t set;
    if (attr_cpuset(attr, &set)) {
        errno = saved;
        return create_then_pin(thread, attr, routine, arg, &set);
    }
    struct start *s = malloc(sizeof *s);
    errno = saved;
    if (s == NULL)      /* no trampoline then, but the thread is made */
        return real->pthread_create.fn(thread, attr, routine, arg);
    *s = (struct start){ .routine = routine, .arg = arg };
    int rc = real->pthread_create.fn(thread, attr, trampoline, s);
    if (rc != 0) {
        free(s);
        errno = saved;
    }
    return rc;
}

/* ---- affinity ----------------------------------------------------- */

static void before_narrowing(bool self)
{
    afx_activate();
    if (self && afx_touch_enabled())
        touch_malloc();
}

static bool is_self_pid(pid_t pid)
{
    return pid == 0 || pid == gettid();
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
    before_narrowing(is_self_pid(pid));
    if (afx_real()->sched_setaffinity.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return afx_real()->sched_setaffinity.fn(pid, size, set);
}
AFX_SYMVER(afx_sched_setaffinity, "sched_setaffinity@@GLIBC_2.3.4");

AFX_VERSIONED int afx_pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    before_narrowing(pthread_equal(thread, pthread_self()));
    if (afx_real()->pthread_setaffinity_np.fn == NULL)
        return ENOSYS;
    return afx_real()->pthread_setaffinity_np.fn(thread, size, set);
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

AFX_EXPORT int afx_sched_setaffinity_old(pid_t pid, const cpu_set_t *set)
{
    before_narrowing(is_self_pid(pid));
    if (afx_real()->sched_setaffinity_old.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return afx_real()->sched_setaffinity_old.fn(pid, set);
}
AFX_SYMVER(afx_sched_setaffinity_old, "sched_setaffinity@GLIBC_2.3.3");

AFX_EXPORT int afx_pthread_setaffinity_np_old(pthread_t thread, const cpu_set_t *set)
{
    before_narrowing(pthread_equal(thread, pthread_self()));
    if (afx_real()->pthread_setaffinity_np_old.fn == NULL)
        return ENOSYS;
    return afx_real()->pthread_setaffinity_np_old.fn(thread, set);
}
AFX_SYMVER(afx_pthread_setaffinity_np_old, "pthread_setaffinity_np@GLIBC_2.3.3");
#endif

/* ---- mallopt ------------------------------------------------------ */

AFX_EXPORT int mallopt(int param, int value)
{
    if (param == M_ARENA_MAX)
        afx_note_program_mallopt(value);
    if (afx_real()->mallopt.fn == NULL)
        return 0;
    return afx_real()->mallopt.fn(param, value);
}
