/* A library whose constructor starts threads that pin themselves and
 * malloc, before main and possibly before arenafix's own constructor:
 * as some runtimes do.  AFX_CTOR_THREADS sets how many (default none). */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "arenas.h"

int afx_ctor_arenas(void);

static int arenas = -1;
static pthread_barrier_t attached;

static void *worker(void *arg)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(*(int *)arg, &one);
    sched_setaffinity(0, sizeof one, &one);
    clear_stack_below();
    void *volatile p = malloc(200);
    pthread_barrier_wait(&attached);
    free(p);
    return NULL;
}

__attribute__((constructor)) static void start_threads(void)
{
    const char *env = getenv("AFX_CTOR_THREADS");
    int n = env ? atoi(env) : 0;
    if (n <= 0)
        return;
    static int first_cpu;
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    while (!CPU_ISSET(first_cpu, &allowed))
        first_cpu++;
    pthread_barrier_init(&attached, NULL, (unsigned)n);
    pthread_t tids[n];
    for (int i = 0; i < n; i++)
        if (pthread_create(&tids[i], NULL, worker, &first_cpu) != 0)
            abort();
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    arenas = count_arenas();
}

int afx_ctor_arenas(void)
{
    return arenas;
}
