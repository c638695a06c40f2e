#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

static struct afx_real table;
static pthread_once_t bound = PTHREAD_ONCE_INIT;

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

#if defined(__x86_64__)
#define BASE_VERSION "GLIBC_2.2.5"
#elif defined(__i386__)
#define BASE_VERSION "GLIBC_2.1"
#endif

static void bind_all(void)
{
    int saved = errno;
#ifdef BASE_VERSION
    static const char *const create_v[] = { "GLIBC_2.34", BASE_VERSION, NULL };
    static const char *const mallopt_v[] = { BASE_VERSION, NULL };
#else
    static const char *const create_v[] = { "GLIBC_2.34", NULL };
    static const char *const *const mallopt_v = NULL;
#endif
    static const char *const sched_v[] = { "GLIBC_2.3.4", NULL };
    static const char *const pset_v[] = { "GLIBC_2.34", "GLIBC_2.3.4", NULL };

    table.pthread_create.ptr = bind("pthread_create", create_v);
    table.sched_setaffinity.ptr = bind("sched_setaffinity", sched_v);
    table.pthread_setaffinity_np.ptr = bind("pthread_setaffinity_np", pset_v);
    table.mallopt.ptr = bind("mallopt", mallopt_v);
#ifdef AFX_HAVE_OLD_AFFINITY
    table.sched_setaffinity_old.ptr = dlvsym(RTLD_NEXT, "sched_setaffinity", "GLIBC_2.3.3");
    table.pthread_setaffinity_np_old.ptr =
        dlvsym(RTLD_NEXT, "pthread_setaffinity_np", "GLIBC_2.3.3");
#endif
    errno = saved;
}

const struct afx_real *afx_real(void)
{
    pthread_once(&bound, bind_all);
    return &table;
}
