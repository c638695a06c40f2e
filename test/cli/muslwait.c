/* A threaded program on musl, for arenafix and inspect: musl has no
 * glibc arenas, and a glibc library preloaded into it stops it.
 *
 *   muslwait THREADS
 *
 * Starts THREADS threads, each pinned to one CPU before it mallocs,
 * prints "ready" and waits until stdin is closed (at once if it is
 * /dev/null). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t started;

static void *worker(void *arg)
{
    (void)arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) {
        perror("muslwait: sched_setaffinity");
        exit(2);
    }
    void *volatile p = malloc(100);
    (void)p;
    pthread_barrier_wait(&started);
    for (;;)
        pause();
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (n < 1 || n > 1000)
        return 2;
    pthread_barrier_init(&started, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            return 2;
    }
    pthread_barrier_wait(&started);
    printf("ready\n");
    fflush(stdout);
    char c;
    while (read(0, &c, 1) > 0)
        ;
    return 0;
}
