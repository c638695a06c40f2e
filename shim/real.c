#include "real.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>

#include "elfsym.h"
#include "libc.h"
#include "marks.h"
#include "mask.h"

/* Binding is the same work with the same result whoever does it, so no
 * thread waits for another: each thread that finds the table unbound
 * binds into a slot of its own and publishes it; the first published
 * stays.  A waiter could wait for ever: on a binder that waits for
 * dl_load_lock held by the waiter itself (a dlopen'ed library's
 * constructor that starts a thread while a thread arenafix never saw
 * start binds), or on a binder a fork left behind. */
enum { SLOTS = 8 };
static struct afx_real slots[SLOTS];
static atomic_uint next_slot;
static _Atomic(const struct afx_real *) published;

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

/* dlsym(RTLD_NEXT) and dlvsym(RTLD_NEXT) where they can be called
 * (glibc 2.34 and later, where the library acts); elsewhere (musl, an
 * older glibc, where it only forwards) found in the loaded objects'
 * tables. */
static void *next_sym(const char *name)
{
    if (afx_libc_served())
        return dlsym(RTLD_NEXT, name);
    return afx_elf_next(name, NULL, (const void *)next_sym);
}

static void *next_vsym(const char *name, const char *version)
{
    if (afx_libc_served())
        return dlvsym(RTLD_NEXT, name, version);
    return afx_elf_next(name, version, (const void *)next_sym);
}

/* Bind to the newest of the listed versions that the next object in
 * the search order has, else to whatever plain dlsym finds.  The
 * default version is what a freshly linked program would call.
 * dlvsym only matches definitions that carry that version, so it skips
 * an interposer loaded after us that defines the name unversioned (a
 * sanitizer runtime, a tracer): the call must reach that one. */
static void *bind_next(const char *name, const char *const *versions)
{
    void *next = next_sym(name);
    for (; versions != NULL && *versions != NULL; versions++) {
        void *p = next_vsym(name, *versions);
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

static void bind_all(struct afx_real *table)
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

    table->pthread_create.ptr = bind_next("pthread_create", create_v);
    table->thrd_create.ptr = bind_next("thrd_create", thrd_v);
    table->sched_setaffinity.ptr = bind_next("sched_setaffinity", sched_v);
    table->pthread_setaffinity_np.ptr = bind_next("pthread_setaffinity_np", pset_v);
    table->mallopt.ptr = bind_next("mallopt", mallopt_v);
    table->libc_mallopt.ptr = bind_next("__libc_mallopt", mallopt_v);
    /* In libc from 2.34; in librt (libanl for getaddrinfo_a) before,
     * found by dlsym where the program loaded it. */
#ifdef AFX_HAVE_OLD_TIMER_CREATE
    static const char *const timer_v[] = { "GLIBC_2.34", "GLIBC_2.3.3", NULL };
#else
    static const char *const *const timer_v = NULL;
#endif
#ifdef AFX_HAVE_OLD_LIO_LISTIO
    static const char *const lio_v[] = { "GLIBC_2.34", "GLIBC_2.4", NULL };
#else
    static const char *const *const lio_v = NULL;
#endif
    table->timer_create.ptr = bind_next("timer_create", timer_v);
    table->mq_notify.ptr = bind_next("mq_notify", NULL);
    table->getaddrinfo_a.ptr = bind_next("getaddrinfo_a", NULL);
    table->aio_read.ptr = bind_next("aio_read", NULL);
    table->aio_write.ptr = bind_next("aio_write", NULL);
    table->aio_fsync.ptr = bind_next("aio_fsync", NULL);
    table->lio_listio.ptr = bind_next("lio_listio", lio_v);
    table->aio_read64.ptr = bind_next("aio_read64", NULL);
    table->aio_write64.ptr = bind_next("aio_write64", NULL);
    table->aio_fsync64.ptr = bind_next("aio_fsync64", NULL);
    table->lio_listio64.ptr = bind_next("lio_listio64", lio_v);
#if defined(__x86_64__)
    afx_bind_syscall((long (*)(long, ...))(afx_libc_served() ? dlsym(RTLD_DEFAULT, "syscall")
                                                             : next_sym("syscall")));
#endif
#ifdef AFX_HAVE_OLD_AFFINITY
    table->sched_setaffinity_old.ptr = next_vsym("sched_setaffinity", "GLIBC_2.3.3");
    table->pthread_setaffinity_np_old.ptr = next_vsym("pthread_setaffinity_np", "GLIBC_2.3.3");
#endif
#ifdef AFX_HAVE_OLD_PTHREAD_CREATE
    table->pthread_create_2_0.ptr = next_vsym("pthread_create", "GLIBC_2.0");
#endif
}

const struct afx_real *afx_real_if_bound(void)
{
    return atomic_load_explicit(&published, memory_order_acquire);
}

/* A table of its own for a binder: a slot, else a page (more binders
 * at once than slots: not a wait for the others, any of which may wait
 * for dl_load_lock held by this very thread, a constructor that dlopen
 * runs).  Lost once it is not published: a few pages at most, one a
 * binder at once, and where the libc is not served one each time a
 * missing function is found (at most once a function).  NULL without
 * memory for a page. */
static struct afx_real *take_table(void)
{
    unsigned slot = atomic_fetch_add(&next_slot, 1);
    if (slot < SLOTS)
        return &slots[slot];
    void *page = mmap(NULL, sizeof(struct afx_real), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page != MAP_FAILED ? page : NULL;
}

/* ---- a libc the library does not serve --------------------------------
 * There the table is bound from the objects loaded at the first call,
 * and a function may come later: pthread_create of a glibc before 2.34
 * is libpthread's, which a program linked without it loads with a
 * plugin it opens after its first mallopt.  A missing entry is never
 * kept: once objects were loaded since it was last looked for, it is
 * looked for again, and a new table, the old one's entries and those
 * found, is published (a published table never changes: a caller may
 * be reading it).  Only afx_real does this, never afx_real_if_bound:
 * the interposers that must stay async-signal-safe (sched_setaffinity,
 * pthread_setaffinity_np of the calling thread) do without a missing
 * entry (they make the system call themselves); the others may bind,
 * and walking the loaded objects is binding: dl_iterate_phdr holds the
 * loader's lock for it (glibc's dl_load_write_lock, recursive; musl's
 * list lock, for reading), as the first binding's walk does. */

enum { ENTRIES = sizeof(struct afx_real) / sizeof(void *) };
_Static_assert(sizeof(struct afx_real) == ENTRIES * sizeof(void *),
               "struct afx_real is a row of pointers");

/* The entries as pointers: every member is a union of a function
 * pointer and its void *. */
static void *entry(const struct afx_real *table, unsigned i)
{
    void *const *row = (void *const *)table;
    return row[i];
}

static bool missing_any(const struct afx_real *table)
{
    for (unsigned i = 0; i < ENTRIES; i++)
        if (entry(table, i) == NULL)
            return true;
    return false;
}

/* The loader's count of objects loaded so far (dlpi_adds, glibc's and
 * musl's): it changes when an object is loaded. */
static int first_only(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(unsigned long long *)data = info->dlpi_adds;
    return 1;
}

static unsigned long long loaded_count(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(first_only, &adds);
    return adds;
}

/* The loader's count when the published table's missing entries were
 * last looked for. */
static _Atomic unsigned long long looked_at;

static void bind_all(struct afx_real *table);

/* Publish BASE's entries and those FOUND has where BASE has none, in
 * place of BASE; if another table replaced BASE first, merged into
 * that one.  Entries only ever go from NULL to a function, so this
 * ends.  The table published. */
static const struct afx_real *publish_merged(const struct afx_real *base,
                                             const struct afx_real *found)
{
    for (;;) {
        bool more = false;
        for (unsigned i = 0; i < ENTRIES && !more; i++)
            more = entry(base, i) == NULL && entry(found, i) != NULL;
        if (!more)
            return base;
        struct afx_real *mine = take_table();
        if (mine == NULL)
            return base;
        void **row = (void **)mine;
        for (unsigned i = 0; i < ENTRIES; i++)
            row[i] = entry(base, i) != NULL ? entry(base, i) : entry(found, i);
        const struct afx_real *expected = base;
        if (atomic_compare_exchange_strong(&published, &expected, mine))
            return mine;
        base = expected;
    }
}

static const struct afx_real *complete(const struct afx_real *table)
{
    if (afx_libc_served() || !missing_any(table))
        return table;
    unsigned long long adds = loaded_count();
    if (adds == atomic_load_explicit(&looked_at, memory_order_relaxed))
        return table;
    /* Reached while this thread binds: as for the first binding, the
     * table as it is. */
    int mark = afx_mark_try(AFX_MARK_BINDING);
    if (mark == AFX_MARK_WAS_HELD)
        return table;
    int saved = errno;
    /* Looked up on the stack: a table is taken only where something
     * was found (a program may open plugins by the thousand). */
    struct afx_real now;
    bind_all(&now);
    atomic_store_explicit(&looked_at, adds, memory_order_relaxed);
    table = publish_merged(table, &now);
    if (mark == AFX_MARK_TAKEN)
        afx_unmark(AFX_MARK_BINDING);
    errno = saved;
    return table;
}

const struct afx_real *afx_real(void)
{
    const struct afx_real *table = atomic_load_explicit(&published, memory_order_acquire);
    if (table != NULL)
        return complete(table);
    /* From here, an interposer reached by this thread (a preloaded mmap
     * or dlsym that calls one) does without.  With no room to say so (as
     * many threads inside arenafix at once as a window of the marks
     * holds), the binding is made all the same: a table is what the
     * caller needs. */
    int mark = afx_mark_try(AFX_MARK_BINDING);
    if (mark == AFX_MARK_WAS_HELD)
        return NULL;
    int saved = errno;
    struct afx_real *mine = take_table();
    if (mine == NULL) {
        /* No memory for a page: a published table is all there is. */
        if (mark == AFX_MARK_TAKEN)
            afx_unmark(AFX_MARK_BINDING);
        errno = saved;
        while ((table = atomic_load_explicit(&published, memory_order_acquire)) == NULL)
            sched_yield();
        return table;
    }
    if (!afx_libc_served())
        atomic_store_explicit(&looked_at, loaded_count(), memory_order_relaxed);
    bind_all(mine);
    if (mark == AFX_MARK_TAKEN)
        afx_unmark(AFX_MARK_BINDING);
    errno = saved;
    const struct afx_real *none = NULL;
    if (atomic_compare_exchange_strong(&published, &none, mine))
        return mine;
    /* Another binder's came first: with what this one found besides,
     * where the libc is not served (bound from objects loaded later). */
    return afx_libc_served() ? none : publish_merged(none, mine);
}
