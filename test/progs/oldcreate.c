/* A program linked against LinuxThreads' ABI (i386): it creates threads
 * through pthread_create@GLIBC_2.0 with an attribute from
 * pthread_attr_init@GLIBC_2.0, 20 bytes, which glibc converts into a full
 * one (nptl/pthread_create.c, __pthread_create_2_0): the detach state and
 * scheduling fields are kept, the stack and guard take their defaults,
 * and nothing past the 20 bytes is read.
 *
 *   oldcreate [narrow]
 *
 * narrow: the main thread first pins itself to one CPU, so that its
 * threads inherit a narrowed mask.  Prints what the threads saw; exits 0
 * when glibc's conversion was kept, 1 when it was not, 77 where there is
 * no GLIBC_2.0 pthread_create (any architecture but i386). */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

#include "arenas.h"

#if defined(__i386__)
__asm__(".symver pthread_create_2_0,pthread_create@GLIBC_2.0");
__asm__(".symver pthread_attr_init_2_0,pthread_attr_init@GLIBC_2.0");
int pthread_create_2_0(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
int pthread_attr_init_2_0(pthread_attr_t *);

struct seen {
    int detached;
    size_t stack;
    int cpus;
    sem_t done;
};

static void *probe(void *p)
{
    struct seen *s = p;
    pthread_attr_t attr;
    cpu_set_t set;
    void *volatile block = malloc(64);  /* what touch mode makes it do first anyway */
    free(block);
    s->detached = -1;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        pthread_attr_getdetachstate(&attr, &s->detached);
        pthread_attr_getstacksize(&attr, &s->stack);
        pthread_attr_destroy(&attr);
    }
    s->cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    sem_post(&s->done);
    return NULL;
}

/* The attribute as an old program holds it, followed by bytes that a
 * full attribute would have there (glibc's struct pthread_attr: the
 * stack size, then the extension pointer), so that reading it as one
 * shows: a 24 MiB stack instead of the default (larger than it, so
 * that glibc cannot hand out the first thread's cached stack). */
static union {
    pthread_attr_t full;
    unsigned char bytes[64];
} old;

int main(int argc, char **argv)
{
    cpu_set_t allowed, one;
    if (argc > 1 && strcmp(argv[1], "narrow") == 0
        && (!first_allowed_cpu(&allowed, &one) || sched_setaffinity(0, sizeof one, &one) != 0)) {
        perror("oldcreate: sched_setaffinity");
        return 2;
    }

    struct seen plain = { 0 }, converted = { 0 };
    pthread_t t;
    sem_init(&plain.done, 0, 0);
    sem_init(&converted.done, 0, 0);
    int rc = pthread_create_2_0(&t, NULL, probe, &plain);
    if (rc != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "oldcreate: pthread_create@GLIBC_2.0 without an attribute: %s\n",
                strerror(rc));
        return 2;
    }

    pthread_attr_init_2_0(&old.full);
    pthread_attr_setdetachstate(&old.full, PTHREAD_CREATE_DETACHED);
    size_t bogus_stack = 24 << 20;
    void *no_extension = NULL;
    memcpy(old.bytes + 20, &bogus_stack, sizeof bogus_stack);
    memcpy(old.bytes + 24, &no_extension, sizeof no_extension);
    rc = pthread_create_2_0(&t, &old.full, probe, &converted);
    if (rc == 0)
        while (sem_wait(&converted.done) != 0)
            ;
    printf("oldcreate: rc=%d detached=%d stack=%s cpus=%d (default: joinable, stack=%zu, "
           "cpus=%d)\n", rc, converted.detached == PTHREAD_CREATE_DETACHED,
           converted.stack == plain.stack ? "default" : "NOT the default", converted.cpus,
           plain.stack, plain.cpus);
    bool kept = rc == 0 && plain.detached == PTHREAD_CREATE_JOINABLE
                && converted.detached == PTHREAD_CREATE_DETACHED
                && converted.stack == plain.stack && converted.cpus == plain.cpus;
    if (!kept)
        fprintf(stderr, "oldcreate: glibc's conversion of the old attribute was lost "
                        "(stack %zu, the default is %zu)\n", converted.stack, plain.stack);
    return kept ? 0 : 1;
}
#else
int main(void)
{
    puts("oldcreate: no pthread_create@GLIBC_2.0 on this architecture");
    return 77;
}
#endif
