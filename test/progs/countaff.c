/* A neighbouring preload listed after arenafix that wraps
 * sched_setaffinity and pthread_setaffinity_np unversioned, as a tracer
 * or a sanitizer runtime does: arenafix must forward the program's calls
 * to it, not past it to libc.  Prints "wrapped=N" on stderr at exit. */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_int wrapped;

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
    int (*next)(pid_t, size_t, const cpu_set_t *) =
        (int (*)(pid_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "sched_setaffinity");
    atomic_fetch_add(&wrapped, 1);
    return next(pid, size, set);
}

int pthread_setaffinity_np(pthread_t thread, size_t size, const cpu_set_t *set)
{
    int (*next)(pthread_t, size_t, const cpu_set_t *) =
        (int (*)(pthread_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "pthread_setaffinity_np");
    atomic_fetch_add(&wrapped, 1);
    return next(thread, size, set);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "wrapped=%d\n", atomic_load(&wrapped));
}
