/* The real functions behind the interposers, bound once on first use. */
#ifndef AFX_REAL_H
#define AFX_REAL_H

#include <aio.h>
#include <mqueue.h>
#include <netdb.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <threads.h>
#include <time.h>

/* Old calling conventions kept for binaries linked against them:
 * before glibc 2.3.4 the affinity calls took no size (128 bytes). */
#if defined(__x86_64__) || defined(__i386__)
#define AFX_HAVE_OLD_AFFINITY 1
#endif
/* On i386, pthread_create@GLIBC_2.0 takes LinuxThreads' smaller
 * attribute, which glibc converts before it creates the thread. */
#if defined(__i386__)
#define AFX_HAVE_OLD_PTHREAD_CREATE 1
#endif
/* lio_listio had an older calling convention too (before glibc 2.4),
 * and on x86_64 timer_create (before 2.3.3): those versions are left to
 * glibc. */
#if defined(__x86_64__) || defined(__i386__)
#define AFX_HAVE_OLD_LIO_LISTIO 1
#endif
#if defined(__x86_64__)
#define AFX_HAVE_OLD_TIMER_CREATE 1
#endif

struct afx_real {
    union {
        int (*fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
        void *ptr;
    } pthread_create;
    /* C11's: glibc's calls its internal create directly, never
     * pthread_create. */
    union {
        int (*fn)(thrd_t *, thrd_start_t, void *);
        void *ptr;
    } thrd_create;
    union {
        int (*fn)(pid_t, size_t, const cpu_set_t *);
        void *ptr;
    } sched_setaffinity;
    union {
        int (*fn)(pthread_t, size_t, const cpu_set_t *);
        void *ptr;
    } pthread_setaffinity_np;
    union {
        int (*fn)(int, int);
        void *ptr;
    } mallopt;
    union {
        int (*fn)(int, int);
        void *ptr;
    } libc_mallopt;
    /* The calls behind which glibc starts threads of its own
     * (helpers.c). */
    union {
        int (*fn)(clockid_t, struct sigevent *, timer_t *);
        void *ptr;
    } timer_create;
    union {
        int (*fn)(mqd_t, const struct sigevent *);
        void *ptr;
    } mq_notify;
    union {
        int (*fn)(int, struct gaicb **, int, struct sigevent *);
        void *ptr;
    } getaddrinfo_a;
    union {
        int (*fn)(struct aiocb *);
        void *ptr;
    } aio_read, aio_write;
    union {
        int (*fn)(int, struct aiocb *);
        void *ptr;
    } aio_fsync;
    union {
        int (*fn)(int, struct aiocb *const[], int, struct sigevent *);
        void *ptr;
    } lio_listio;
    union {
        int (*fn)(struct aiocb64 *);
        void *ptr;
    } aio_read64, aio_write64;
    union {
        int (*fn)(int, struct aiocb64 *);
        void *ptr;
    } aio_fsync64;
    union {
        int (*fn)(int, struct aiocb64 *const[], int, struct sigevent *);
        void *ptr;
    } lio_listio64;
#ifdef AFX_HAVE_OLD_AFFINITY
    union {
        int (*fn)(pid_t, const cpu_set_t *);
        void *ptr;
    } sched_setaffinity_old;
    union {
        int (*fn)(pthread_t, const cpu_set_t *);
        void *ptr;
    } pthread_setaffinity_np_old;
#endif
#ifdef AFX_HAVE_OLD_PTHREAD_CREATE
    union {
        int (*fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
        void *ptr;
    } pthread_create_2_0;
#endif
};

/* The table.  Bound at the first thread or mallopt (or by a call that
 * comes earlier: another library's constructor); a thread that finds it
 * unbound binds it too, and never waits for another binder (real.c says
 * why).  On a libc the library does not serve, a function missing from
 * it is looked for again once objects were loaded since (a libpthread
 * a plugin brings).  NULL when reached while this very thread is binding (from a
 * signal handler, or from a malloc that dlsym called): the caller must
 * then do without. */
const struct afx_real *afx_real(void);

/* The table if it is bound, else NULL, without binding or waiting: for
 * the interposers glibc makes async-signal-safe. */
const struct afx_real *afx_real_if_bound(void);

#endif
