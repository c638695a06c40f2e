/* What one pthread_create + pthread_join costs, for bench/cost.sh and
 * the cost suite: creates COUNT threads one at a time, unpinned (an
 * attribute without a CPU set), default (no attribute) or born pinned to
 * one CPU by their attribute, and joins each before the next.  Each
 * thread mallocs once, as any thread does. */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int afx_cost_create(pthread_t *t, const pthread_attr_t *attr);

static void *work(void *arg)
{
    void *volatile p = malloc(64);
    free(p);
    return arg;
}

/* The creation alone, apart: callgrind's inclusive count of this
 * function is what the creating thread spends in pthread_create (the
 * interposer, glibc's create, the new thread's thread-local block),
 * without the new thread's own run or the join, whose counts vary with
 * the threads' interleaving. */
__attribute__((noinline)) int afx_cost_create(pthread_t *t, const pthread_attr_t *attr)
{
    return pthread_create(t, attr, work, NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "unpinned") != 0 && strcmp(argv[2], "pinned") != 0
                      && strcmp(argv[2], "default") != 0)) {
        fprintf(stderr, "usage: %s COUNT unpinned|default|pinned\n", argv[0]);
        return 2;
    }
    long count = atol(argv[1]);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (strcmp(argv[2], "pinned") == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    }
    for (long i = 0; i < count; i++) {
        pthread_t t;
        bool plain = strcmp(argv[2], "default") == 0;
        if (afx_cost_create(&t, plain ? NULL : &attr) != 0 || pthread_join(t, NULL) != 0) {
            fprintf(stderr, "thread %ld failed\n", i);
            return 1;
        }
    }
    pthread_attr_destroy(&attr);
    return 0;
}
