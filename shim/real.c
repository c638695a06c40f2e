#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#include "tls.h"

static struct afx_real table;
/* UNBOUND, BOUND, or the pid of the process whose thread is binding.  A
 * child forked meanwhile (fork, or _Fork, which runs no atfork handler)
 * finds its parent's pid there, with no thread left to finish: it binds
 * itself instead of waiting for ever. */
enum { UNBOUND = 0, BOUND = -1 };
static atomic_int state;
static AFX_TLS bool binding_here;

struct pair {
    ElfW(Addr) a, b;
    bool same;
};

static bool in_segment(const struct dl_phdr_info *info, ElfW(Addr) addr)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        ElfW(Addr) start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && addr - start < ph->p_memsz)
            return true;
    }
    return false;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    struct pair *p = data;
    (void)size;
    bool has_a = in_segment(info, p->a), has_b = in_segment(info, p->b);
    p->same = has_a && has_b;
    return has_a || has_b;
}

/* Whether A and B lie in the same loaded object.  dladdr would say, but
 * it searches the symbol table of the object it finds, linearly: for
 * libc, close to a million instructions per call, paid by every process
 * at startup.  The segments of the loaded objects are all that is
 * needed. */
static bool same_object(void *a, void *b)
{
    struct pair p = { (ElfW(Addr))a, (ElfW(Addr))b, false };
    if (a == b)
        return true;
    dl_iterate_phdr(visit, &p);
    return p.same;
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
    return atomic_load_explicit(&state, memory_order_acquire) == BOUND ? &table : NULL;
}

static void bind_here(void)
{
    int saved = errno;
    binding_here = true;
    bind_all();
    binding_here = false;
    errno = saved;
    atomic_store_explicit(&state, BOUND, memory_order_release);
}

const struct afx_real *afx_real(void)
{
    int seen = atomic_load_explicit(&state, memory_order_acquire);
    if (seen == BOUND)
        return &table;
    if (binding_here)
        return NULL;
    /* getpid() is a system call (glibc >= 2.25 caches nothing): a child
     * sees its own pid, never its parent's. */
    int pid = getpid();
    for (;;) {
        if (seen == BOUND)
            return &table;
        if (seen != pid) {
            /* Unbound, or left half bound by a thread of the parent. */
            if (atomic_compare_exchange_weak(&state, &seen, pid)) {
                bind_here();
                return &table;
            }
            continue;
        }
        sched_yield();
        seen = atomic_load_explicit(&state, memory_order_acquire);
    }
}
