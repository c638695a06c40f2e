/* The calls behind which glibc starts threads of its own: a
 * SIGEV_THREAD timer's or message queue's notification, getaddrinfo_a,
 * POSIX AIO.  glibc starts those threads itself, where no interposer
 * sees them, and they inherit the calling thread's mask: from a thread
 * narrower than the CPUs online, the first of them to need the ninth
 * arena would fix glibc's limit from one CPU.  Each interposer lets
 * arenafix decide first (activate.c), then calls glibc's.  None is
 * async-signal-safe in glibc: they may bind and take the decision's once.
 *
 * Where lio_listio (x86_64, i386) and timer_create (x86_64) had an
 * older calling convention, only the current one is interposed, under
 * the versions glibc gives it; a program linked against the old one
 * calls glibc's directly. */
#include <aio.h>
#include <errno.h>
#include <pthread.h>
#include <mqueue.h>
#include <netdb.h>
#include <signal.h>
#include <time.h>

#include "activate.h"
#include "real.h"
#include "marks.h"

#define AFX_EXPORT __attribute__((visibility("default")))

/* Before a call that may start glibc's threads: decide (and set the
 * limit where they would be narrow), unless reached from arenafix's own
 * code.  errno kept.  The table, or NULL where it cannot be had. */
static const struct afx_real *before_helpers(bool starts)
{
    int saved = errno;
    const struct afx_real *real;
    if (!afx_enter()) {
        /* Not bound yet: bound now, unless this thread is binding. */
        real = afx_real_if_bound();
        if (real == NULL)
            real = afx_real();
    } else {
        real = afx_real();
        if (starts && real != NULL) {
            /* The decision may write a line, a cancellation point:
             * never acted on inside arenafix. */
            int cancel;
            pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
            afx_before_helpers();
            pthread_setcancelstate(cancel, NULL);
        }
        afx_leave();
    }
    errno = saved;
    return real;
}

static bool notifies_by_thread(const struct sigevent *sev)
{
    return sev != NULL && sev->sigev_notify == SIGEV_THREAD;
}

int afx_timer_create(clockid_t, struct sigevent *, timer_t *);
AFX_EXPORT int afx_timer_create(clockid_t clock, struct sigevent *sev, timer_t *timer)
{
    const struct afx_real *real = before_helpers(notifies_by_thread(sev));
    if (real == NULL || real->timer_create.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->timer_create.fn(clock, sev, timer);
}

AFX_EXPORT int mq_notify(mqd_t queue, const struct sigevent *sev)
{
    const struct afx_real *real = before_helpers(notifies_by_thread(sev));
    if (real == NULL || real->mq_notify.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->mq_notify.fn(queue, sev);
}

/* Its requests are served by threads of glibc's, whatever the mode and
 * the notification. */
AFX_EXPORT int getaddrinfo_a(int mode, struct gaicb *list[], int n, struct sigevent *sev)
{
    const struct afx_real *real = before_helpers(n > 0);
    if (real == NULL || real->getaddrinfo_a.fn == NULL)
        return EAI_SYSTEM;
    return real->getaddrinfo_a.fn(mode, list, n, sev);
}

/* ---- POSIX AIO: each request is served by a thread of glibc's -------- */

AFX_EXPORT int aio_read(struct aiocb *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_read.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_read.fn(cb);
}

AFX_EXPORT int aio_write(struct aiocb *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_write.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_write.fn(cb);
}

AFX_EXPORT int aio_fsync(int op, struct aiocb *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_fsync.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_fsync.fn(op, cb);
}

AFX_EXPORT int aio_read64(struct aiocb64 *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_read64.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_read64.fn(cb);
}

AFX_EXPORT int aio_write64(struct aiocb64 *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_write64.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_write64.fn(cb);
}

AFX_EXPORT int aio_fsync64(int op, struct aiocb64 *cb)
{
    const struct afx_real *real = before_helpers(true);
    if (real == NULL || real->aio_fsync64.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->aio_fsync64.fn(op, cb);
}

int afx_lio_listio(int, struct aiocb *const[], int, struct sigevent *);
AFX_EXPORT int afx_lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
    const struct afx_real *real = before_helpers(n > 0);
    if (real == NULL || real->lio_listio.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->lio_listio.fn(mode, list, n, sev);
}

int afx_lio_listio64(int, struct aiocb64 *const[], int, struct sigevent *);
AFX_EXPORT int afx_lio_listio64(int mode, struct aiocb64 *const list[], int n,
                                struct sigevent *sev)
{
    const struct afx_real *real = before_helpers(n > 0);
    if (real == NULL || real->lio_listio64.fn == NULL) {
        errno = ENOSYS;
        return -1;
    }
    return real->lio_listio64.fn(mode, list, n, sev);
}

/* The current calling conventions, under each version glibc gives them. */
#ifdef AFX_HAVE_OLD_TIMER_CREATE
__asm__(".symver afx_timer_create,timer_create@@GLIBC_2.34");
AFX_EXPORT int afx_timer_create_233(clockid_t, struct sigevent *, timer_t *)
    __attribute__((alias("afx_timer_create")));
__asm__(".symver afx_timer_create_233,timer_create@GLIBC_2.3.3");
#else
AFX_EXPORT int timer_create(clockid_t, struct sigevent *, timer_t *)
    __attribute__((alias("afx_timer_create")));
#endif
#ifdef AFX_HAVE_OLD_LIO_LISTIO
__asm__(".symver afx_lio_listio,lio_listio@@GLIBC_2.34");
AFX_EXPORT int afx_lio_listio_24(int, struct aiocb *const[], int, struct sigevent *)
    __attribute__((alias("afx_lio_listio")));
__asm__(".symver afx_lio_listio_24,lio_listio@GLIBC_2.4");
__asm__(".symver afx_lio_listio64,lio_listio64@@GLIBC_2.34");
AFX_EXPORT int afx_lio_listio64_24(int, struct aiocb64 *const[], int, struct sigevent *)
    __attribute__((alias("afx_lio_listio64")));
__asm__(".symver afx_lio_listio64_24,lio_listio64@GLIBC_2.4");
#else
AFX_EXPORT int lio_listio(int, struct aiocb *const[], int, struct sigevent *)
    __attribute__((alias("afx_lio_listio")));
AFX_EXPORT int lio_listio64(int, struct aiocb64 *const[], int, struct sigevent *)
    __attribute__((alias("afx_lio_listio64")));
#endif
