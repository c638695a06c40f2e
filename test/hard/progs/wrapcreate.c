/* Another library that interposes pthread_create, written the way
 * tracing and profiling shims are: its own trampoline, the real function
 * from dlsym(RTLD_NEXT).  Stacked before or after libarenafix, every
 * thread must still start through both.  At exit it reports how many
 * creations it saw and how many threads ran through its trampoline. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static atomic_int calls, started;

struct wrapped {
    void *(*routine)(void *);
    void *arg;
};

static void *wrap_start(void *p)
{
    struct wrapped w = *(struct wrapped *)p;
    free(p);
    atomic_fetch_add(&started, 1);
    return w.routine(w.arg);
}

__attribute__((visibility("default"))) int pthread_create(pthread_t *t, const pthread_attr_t *a,
                                                           void *(*routine)(void *), void *arg)
{
    static create_fn *real;
    /* Plain dlsym, as cwrap does: it finds the next interposer too. */
    if (real == NULL)
        real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
    atomic_fetch_add(&calls, 1);
    struct wrapped *w = malloc(sizeof *w);
    if (w == NULL)
        return real(t, a, routine, arg);
    *w = (struct wrapped){ routine, arg };
    int rc = real(t, a, wrap_start, w);
    if (rc != 0)
        free(w);
    return rc;
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "wrapcreate: calls=%d started=%d\n", atomic_load(&calls), atomic_load(&started));
}
