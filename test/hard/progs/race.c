/* Many threads make their first calls into the shim at the same
 * instant, so its one-time work (binding the real functions, reading
 * its settings, deciding) is raced.  It must be done once: one decision
 * line in verbose mode, and every call must still do its job.
 *
 *   race preload THREADS   the shim is preloaded; the racing threads are
 *                          started with libc's own pthread_create, so the
 *                          shim has not been called before the race
 *   race dlopen LIB THREADS the shim is loaded by dlopen once the threads
 *                          run (for sanitizers that must see every thread
 *                          start: ThreadSanitizer) */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int setaff_fn(pid_t, size_t, const cpu_set_t *);
typedef int psetaff_fn(pthread_t, size_t, const cpu_set_t *);
typedef int mallopt_fn(int, int);

static create_fn *shim_create;
static setaff_fn *shim_setaffinity;
static psetaff_fn *shim_psetaffinity;
static mallopt_fn *shim_mallopt;
static void *(*load)(void);

static pthread_barrier_t go;
/* What each racer's mallopt returned: the same as a call made later,
 * whatever the allocator (a sanitizer's mallopt returns its own value). */
static int mallopt_results[1000];
static cpu_set_t allowed;

static void *child(void *arg)
{
    return arg;
}

/* Each racer calls every interposer once; the first call of any of
 * them activates. */
static void *racer(void *arg)
{
    long i = (long)arg;
    pthread_barrier_wait(&go);
    if (i == 0 && load != NULL && load() == NULL)
        return (void *)"dlopen failed";
    pthread_barrier_wait(&go);
    errno = 0;
    switch (i % 4) {
    case 0:
        if (shim_setaffinity(0, sizeof allowed, &allowed) != 0)
            return (void *)"sched_setaffinity failed";
        break;
    case 1:
        if (shim_psetaffinity(pthread_self(), sizeof allowed, &allowed) != 0)
            return (void *)"pthread_setaffinity_np failed";
        break;
    case 2:
        mallopt_results[i] = shim_mallopt(M_MMAP_THRESHOLD, 1 << 20);
        break;
    default:
        break;
    }
    if (errno != 0)
        return (void *)"errno changed by a call that succeeded";
    pthread_t t;
    void *ret;
    if (shim_create(&t, NULL, child, arg) != 0 || pthread_join(t, &ret) != 0 || ret != arg)
        return (void *)"pthread_create through the shim failed";
    return NULL;
}

static const char *lib;
static void *handle;

static void *load_lib(void)
{
    handle = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL)
        return NULL;
    shim_create = (create_fn *)dlsym(handle, "pthread_create");
    shim_setaffinity = (setaff_fn *)dlsym(handle, "sched_setaffinity");
    shim_psetaffinity = (psetaff_fn *)dlsym(handle, "pthread_setaffinity_np");
    shim_mallopt = (mallopt_fn *)dlsym(handle, "mallopt");
    return shim_create && shim_setaffinity && shim_psetaffinity && shim_mallopt ? handle : NULL;
}

int main(int argc, char **argv)
{
    create_fn *start = pthread_create;
    int n;

    if (argc >= 3 && strcmp(argv[1], "preload") == 0) {
        /* libc's pthread_create, found in libc itself: not the shim's. */
        void *libc = dlopen("libc.so.6", RTLD_NOLOAD | RTLD_LAZY);
        start = libc ? (create_fn *)dlvsym(libc, "pthread_create", "GLIBC_2.34") : NULL;
        if (start == NULL)
            start = libc ? (create_fn *)dlsym(libc, "pthread_create") : NULL;
        shim_create = pthread_create;
        shim_setaffinity = sched_setaffinity;
        shim_psetaffinity = pthread_setaffinity_np;
        shim_mallopt = mallopt;
        n = atoi(argv[2]);
    } else if (argc >= 4 && strcmp(argv[1], "dlopen") == 0) {
        lib = argv[2];
        load = load_lib;
        n = atoi(argv[3]);
    } else {
        fprintf(stderr, "usage: race preload THREADS | race dlopen LIB THREADS\n");
        return 2;
    }
    if (start == NULL || n < 1 || n > 1000 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 2;

    /* glibc initialises its malloc lazily and without a lock: under a
     * sanitizer's allocator nothing has done that yet, and racing
     * threads whose first glibc malloc call is mallopt corrupt its arena
     * accounting (assertion a->attached_threads > 0 at thread exit, one
     * run in five, with no preload at all).  The race under test is the
     * shim's, not that one: let glibc initialise first (M_PERTURB 0 is
     * its default). */
    mallopt(M_PERTURB, 0);

    pthread_t tids[1000];
    pthread_barrier_init(&go, NULL, (unsigned)n);
    for (long i = 0; i < n; i++)
        if (start(&tids[i], NULL, racer, (void *)i) != 0) {
            fprintf(stderr, "race: cannot start racer %ld\n", i);
            return 2;
        }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        void *why;
        pthread_join(tids[i], &why);
        if (why != NULL) {
            fprintf(stderr, "race: racer %d: %s\n", i, (const char *)why);
            failed = 1;
        }
    }
    int want = shim_mallopt(M_MMAP_THRESHOLD, 1 << 20);
    for (int i = 2; i < n; i += 4)
        if (mallopt_results[i] != want) {
            fprintf(stderr, "race: racer %d: mallopt returned %d, later %d\n", i,
                    mallopt_results[i], want);
            failed = 1;
        }
    printf("racers=%d %s\n", n, failed ? "failed" : "ok");
    return failed;
}
