/* A program of a libc the library does not serve (musl, a glibc older
 * than 2.34), built with that libc's own tools: pins itself to CPU 0,
 * as the workloads the bug hurts do, starts threads that each malloc,
 * and prints what it did.  Portable C: nothing of glibc's. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

enum { THREADS = 30 };

static void *run(void *arg)
{
    void *p = malloc(64);
    free(p);
    return arg;
}

int main(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        return 3;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&t[i], NULL, run, NULL) != 0)
            return 4;
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("otherlibc: %d threads ran\n", THREADS);
    return 0;
}
