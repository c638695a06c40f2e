/* Faults the shim must survive without changing what the program sees.
 *
 *   faults noopen THREADS     deny open(2) and openat(2) with a seccomp
 *                             filter, then start pinned threads
 *   faults nproc LIMIT [attr] lower RLIMIT_NPROC, start threads until
 *                             pthread_create fails; print how many and
 *                             the error (run as an unprivileged user)
 *   faults exhaust [attr]     use up all memory malloc can get, then
 *                             create a thread: it must still be made
 *   faults late LIB THREADS [malloced]
 *                             start threads, then dlopen the shim; with
 *                             "malloced" each thread mallocs first, so
 *                             glibc may have fixed its limit and the shim
 *                             must change nothing (ARENAFIX_* from the
 *                             environment say what it would do) */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../progs/arenas.h"
#include "../../progs/denyopen.h"

static void die(const char *what, int err)
{
    fprintf(stderr, "faults: %s: %s\n", what, strerror(err));
    exit(2);
}

static pthread_attr_t attr;

static void attr_init(int pinned)
{
    pthread_attr_init(&attr);
    if (pinned) {
        cpu_set_t all;
        if (sched_getaffinity(0, sizeof all, &all) != 0)
            die("sched_getaffinity", errno);
        pthread_attr_setaffinity_np(&attr, sizeof all, &all);
    }
}

/* ---- open() denied ------------------------------------------------- */

static int deny_open(void)
{
    return afx_deny_open(SECCOMP_RET_ERRNO | EACCES);
}

static cpu_set_t one_cpu;
static pthread_barrier_t attached;

static void *pinned_worker(void *arg)
{
    (void)arg;
    if (sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    void *volatile p = malloc(200);
    pthread_barrier_wait(&attached);
    free(p);
    return NULL;
}

static int noopen(int n)
{
    pthread_t tids[256];
    if (n < 1 || n > 256)
        return 2;
    CPU_ZERO(&one_cpu);
    CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one_cpu);
    pthread_barrier_init(&attached, NULL, (unsigned)n);
    /* Buffers first: stdio must not need anything once open fails. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (deny_open() != 0)
        die("seccomp", errno);
    if (open("/proc/self/stat", O_RDONLY) >= 0 || errno != EACCES)
        die("the filter does not deny open", EINVAL);
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&tids[i], NULL, pinned_worker, NULL);
        if (rc != 0)
            die("pthread_create", rc);
    }
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    printf("noopen: threads=%d ok\n", n);
    return 0;
}

/* ---- RLIMIT_NPROC ------------------------------------------------- */

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;

static void *held(void *arg)
{
    pthread_mutex_lock(&hold);
    pthread_mutex_unlock(&hold);
    return arg;
}

static int nproc(long limit)
{
    struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
    if (geteuid() == 0)
        fprintf(stderr, "faults: run as an unprivileged user: root ignores RLIMIT_NPROC\n");
    if (setrlimit(RLIMIT_NPROC, &rl) != 0)
        die("setrlimit", errno);
    pthread_t tids[4096];
    int made = 0, rc = 0;
    pthread_mutex_lock(&hold);
    while (made < 4096) {
        errno = 4242;
        rc = pthread_create(&tids[made], &attr, held, NULL);
        if (rc != 0)
            break;
        if (errno != 4242)
            die("errno changed by a pthread_create that succeeded", EINVAL);
        made++;
    }
    pthread_mutex_unlock(&hold);
    for (int i = 0; i < made; i++)
        pthread_join(tids[i], NULL);
    printf("nproc: created=%d error=%s\n", made, rc == 0 ? "none" : strerrorname_np(rc));
    return 0;
}

/* ---- memory exhausted --------------------------------------------- */

static void *returns_arg(void *arg)
{
    return arg;
}

static void say(const char *s)
{
    if (write(STDOUT_FILENO, s, strlen(s)) < 0)
        exit(2);
}

static int exhaust(void)
{
    pthread_t t;
    void *ret;
    /* Warm up: the shim activates, and the thread's stack is cached, so
     * glibc can start the next one without new memory. */
    if (pthread_create(&t, &attr, returns_arg, NULL) != 0 || pthread_join(t, NULL) != 0)
        die("warm-up thread", EAGAIN);
    /* No more memory from the kernel: no brk, no new mapping.  (Not
     * RLIMIT_DATA: some kernels and sandboxes do not enforce it.) */
    struct rlimit rl = { 0, RLIM_INFINITY };
    if (setrlimit(RLIMIT_AS, &rl) != 0)
        die("setrlimit", errno);
    /* Then take every chunk malloc still has, for every small size;
     * bounded, should the limit not hold here either. */
    size_t taken = 0;
    for (size_t size = 4096; size >= 1; size = size > 16 ? size - 8 : size - 1)
        while (taken < (64u << 20) && malloc(size) != NULL)
            taken += size;
    if (taken >= (64u << 20))
        die("RLIMIT_AS does not limit malloc here", ENOSYS);
    for (size_t size = 1; size <= 4096; size++)
        if (malloc(size) != NULL)
            die("memory is not exhausted", EINVAL);

    int rc = pthread_create(&t, &attr, returns_arg, &taken);
    if (rc != 0) {
        say("exhaust: pthread_create failed\n");
        return 1;
    }
    if (pthread_join(t, &ret) != 0 || ret != &taken) {
        say("exhaust: the thread did not run its routine\n");
        return 1;
    }
    say(malloc(64) == NULL ? "exhaust: thread created with malloc failing\n"
                           : "exhaust: memory came back\n");
    return 0;
}

/* ---- loaded late -------------------------------------------------- */

static pthread_barrier_t loaded;
static bool malloc_first;

static void *late_worker(void *arg)
{
    (void)arg;
    void *volatile early = malloc_first ? malloc(200) : NULL;
    pthread_barrier_wait(&loaded);      /* the shim loads */
    void *volatile p = malloc(200);
    pthread_barrier_wait(&loaded);
    free(p);
    free(early);
    return NULL;
}

static int late(const char *lib, int n, bool malloced)
{
    pthread_t tids[64];
    if (n < 1 || n > 63)
        return 2;
    /* n threads, the one started through the shim, and main. */
    pthread_barrier_init(&loaded, NULL, (unsigned)n + 2);
    malloc_first = malloced;
    for (int i = 0; i < n; i++)
        if (pthread_create(&tids[i], NULL, late_worker, NULL) != 0)
            die("pthread_create", EAGAIN);
    /* Started, and (with malloced) attached to their arenas. */
    while (malloced && count_arenas() < n + 1)
        sched_yield();
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (h == NULL) {
        fprintf(stderr, "faults: dlopen: %s\n", dlerror());
        return 2;
    }
    fprintf(stderr, "faults: dlopen returned\n");
    /* The shim's own entry points, called directly, must stand down too. */
    typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    create_fn *shim_create = (create_fn *)dlsym(h, "pthread_create");
    pthread_t extra;
    if (shim_create == NULL || shim_create(&extra, NULL, late_worker, NULL) != 0)
        die("the shim's pthread_create", EINVAL);
    pthread_barrier_wait(&loaded);
    pthread_barrier_wait(&loaded);
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    pthread_join(extra, NULL);
    printf("arenas=%d\n", count_arenas());
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "noopen") == 0 && argc > 2)
        return noopen(atoi(argv[2]));
    if (strcmp(what, "nproc") == 0 && argc > 2) {
        attr_init(argc > 3 && strcmp(argv[3], "attr") == 0);
        return nproc(atol(argv[2]));
    }
    if (strcmp(what, "exhaust") == 0) {
        attr_init(argc > 2 && strcmp(argv[2], "attr") == 0);
        return exhaust();
    }
    if (strcmp(what, "late") == 0 && argc > 3)
        return late(argv[2], atoi(argv[3]), argc > 4 && strcmp(argv[4], "malloced") == 0);
    fprintf(stderr, "usage: faults noopen N | nproc LIMIT [attr] | exhaust [attr] | late LIB N\n");
    return 2;
}
