#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "tls.h"

static struct afx_real table;
/* 0: unbound, 1: a thread is binding, 2: bound. */
static atomic_int state;
static AFX_TLS bool binding_here;

static bool same_object(void *a, void *b)
{
    Dl_info ia, ib;
    return dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/* Bind to the newest of the listed versions that the next object in
 * the search order has, else to whatever plain dlsym finds.  The
 * default version is what a freshly linked program would call.
 * dlvsym only matches definitions that carry that version, so it skips
 * an interposer loaded after us that defines the name unversioned (a
 * sanitizer runtime, a tracer): the call must reach that one. */
static void *bind(const char *name, const char *const *versions)
{
    void *next = dlsym(RTLD_NEXT, name);
    for (; versions != NULL && *versions != NULL; versions++) {
        void *p = dlvsym(RTLD_NEXT, name, *versions);
        if (p != NULL)
            return next == NULL || same_object(p, next) ? p : next;
    }
    return next;
}

/* The versions a program linked before glibc 2.34 calls: pthread_create's
 * default then, and mallopt's only one. */
#if defined(__x86_64__)
#define CREATE_BASE_VERSION "GLIBC_2.2.5"
#define MALLOPT_VERSION "GLIBC_2.2.5"
#elif defined(__i386__)
#define CREATE_BASE_VERSION "GLIBC_2.1"
#define MALLOPT_VERSION "GLIBC_2.0"
#endif

static void bind_all(void)
{
#ifdef CREATE_BASE_VERSION
    static const char *const create_v[] = { "GLIBC_2.34", CREATE_BASE_VERSION, NULL };
    static const char *const mallopt_v[] = { MALLOPT_VERSION, NULL };
#else
    static const char *const create_v[] = { "GLIBC_2.34", NULL };
    static const char *const *const mallopt_v = NULL;
#endif
    static const char *const sched_v[] = { "GLIBC_2.3.4", NULL };
    static const char *const pset_v[] = { "GLIBC_2.34", "GLIBC_2.3.4", NULL };
    /* In libc from 2.34, in libpthread from 2.28. */
    static const char *const thrd_v[] = { "GLIBC_2.34", "GLIBC_2.28", NULL };

    table.pthread_create.ptr = bind("pthread_create", create_v);
    table.thrd_create.ptr = bind("thrd_create", thrd_v);
    table.sched_setaffinity.ptr = bind("sched_setaffinity", sched_v);
    table.pthread_setaffinity_np.ptr = bind("pthread_setaffinity_np", pset_v);
    table.mallopt.ptr = bind("mallopt", mallopt_v);
    table.libc_mallopt.ptr = bind("__libc_mallopt", mallopt_v);
#ifdef AFX_HAVE_OLD_AFFINITY
    table.sched_setaffinity_old.ptr = dlvsym(RTLD_NEXT, "sched_setaffinity", "GLIBC_2.3.3");
    table.pthread_setaffinity_np_old.ptr =
        dlvsym(RTLD_NEXT, "pthread_setaffinity_np", "GLIBC_2.3.3");
#endif
#ifdef AFX_HAVE_OLD_PTHREAD_CREATE
    table.pthread_create_2_0.ptr = dlvsym(RTLD_NEXT, "pthread_create", "GLIBC_2.0");
#endif
}

const struct afx_real *afx_real_if_bound(void)
{
    return atomic_load_explicit(&state, memory_order_acquire) == 2 ? &table : NULL;
}

const struct afx_real *afx_real(void)
{
    int expected = 0;
    if (atomic_load_explicit(&state, memory_order_acquire) == 2)
        return &table;
    if (atomic_compare_exchange_strong(&state, &expected, 1)) {
        int saved = errno;
        binding_here = true;
        bind_all();
        binding_here = false;
        errno = saved;
        atomic_store_explicit(&state, 2, memory_order_release);
        return &table;
    }
    if (binding_here)
        return NULL;
    while (atomic_load_explicit(&state, memory_order_acquire) != 2)
        sched_yield();
    return &table;
}
