/* The workload most hardening checks run: THREADS threads that narrow
 * their CPU mask and then make their first malloc, all alive at once,
 * then the arena count glibc ended up with.
 *
 *   pinwork [THREADS] [pin|attr|none]
 *
 * pin: sched_setaffinity(0) in the thread; attr: born pinned through
 * pthread_attr_setaffinity_np; none: no pinning.  Prints "arenas=N". */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../progs/arenas.h"

static cpu_set_t one_cpu;
static pthread_barrier_t attached;
static int pin_in_thread;

static void *worker(void *arg)
{
    (void)arg;
    if (pin_in_thread && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0) {
        perror("pinwork: sched_setaffinity");
        exit(2);
    }
    void *volatile p = malloc(200);     /* the first malloc attaches an arena */
    pthread_barrier_wait(&attached);
    free(p);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 30;
    const char *how = argc > 2 ? argv[2] : "pin";
    cpu_set_t allowed;

    if (threads < 1 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return 2;
    CPU_ZERO(&one_cpu);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &one_cpu);
            break;
        }
    pin_in_thread = strcmp(how, "pin") == 0;

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (strcmp(how, "attr") == 0)
        pthread_attr_setaffinity_np(&attr, sizeof one_cpu, &one_cpu);
    pthread_barrier_init(&attached, NULL, (unsigned)threads);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int i = 0; i < threads; i++) {
        int rc = pthread_create(&tids[i], &attr, worker, NULL);
        if (rc != 0) {
            fprintf(stderr, "pinwork: pthread_create: %s\n", strerror(rc));
            return 2;
        }
    }
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    printf("arenas=%d\n", count_arenas());
    free(tids);
    pthread_attr_destroy(&attr);
    return 0;
}
