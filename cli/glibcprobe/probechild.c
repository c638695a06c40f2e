/* The child side of "arenafix probe" (and of inspect's glibc check):
 *
 *   arenafix __probe-child pinned|free THREADS
 *
 * Starts THREADS threads that all stay alive until each has done its
 * first malloc; with "pinned" each first pins itself to one CPU, the
 * trigger of glibc bug 30945.  Prints one line:
 *
 *   arenas=N glibc=VERSION sees=CPUS
 *
 * It runs under whichever glibc and preload the parent chose. */
#include <errno.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenacount.h"
#include "cli.h"

static bool pin;
static cpu_set_t one_cpu;
static pthread_barrier_t all_attached;
static int seen_cpus;

static void *worker(void *arg)
{
    (void)arg;
    /* A thread that fails to pin still meets the others at the barrier. */
    bool failed = pin && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0;
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof now, &now) == 0)
        __atomic_store_n(&seen_cpus, CPU_COUNT(&now), __ATOMIC_RELAXED);
    /* volatile: the compiler may not drop the pair that attaches us. */
    void *volatile p = malloc(64);
    pthread_barrier_wait(&all_attached);
    free(p);
    return failed ? (void *)1 : NULL;
}

int afx_cmd_probe_child(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "pinned") != 0 && strcmp(argv[1], "free") != 0))
        afx_usage_error("%s is for arenafix's own use", AFX_PROBE_CHILD);
    pin = strcmp(argv[1], "pinned") == 0;
    alarm(30);      /* never leave the parent waiting on a stuck child */
    int threads = atoi(argv[2]);
    if (threads < 1 || threads > 4096)
        afx_usage_error("%s: bad thread count %s", AFX_PROBE_CHILD, argv[2]);

    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        afx_error("probe: sched_getaffinity: %s", strerror(errno));
        return AFX_EXIT_FAIL;
    }
    CPU_ZERO(&one_cpu);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &one_cpu);
            break;
        }

    pthread_barrier_init(&all_attached, NULL, (unsigned)threads);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (tids == NULL)
        return AFX_EXIT_FAIL;
    for (int i = 0; i < threads; i++) {
        int rc = pthread_create(&tids[i], NULL, worker, NULL);
        if (rc != 0) {
            afx_error("probe: pthread_create: %s", strerror(rc));
            _exit(AFX_EXIT_FAIL);   /* the others wait at the barrier */
        }
    }
    bool pinned_all = true;
    for (int i = 0; i < threads; i++) {
        void *ret;
        pthread_join(tids[i], &ret);
        pinned_all = pinned_all && ret == NULL;
    }
    free(tids);
    if (!pinned_all) {
        afx_error("probe: a thread could not pin itself");
        return AFX_EXIT_FAIL;
    }
    printf("arenas=%d glibc=%s sees=%d\n", (int)afx_count_arenas(), gnu_get_libc_version(), seen_cpus);
    return AFX_EXIT_OK;
}
