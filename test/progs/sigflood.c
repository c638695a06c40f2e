/* Signal handlers that call the affinity functions, which glibc makes
 * async-signal-safe, while the process starts its first threads and
 * allocates: a timer floods the process with SIGALRM, the handler sets
 * the mask it already has, with both calls.  With arenafix loaded this
 * must never hang (bound the run from outside) and must leave the
 * counts as glibc gives them.
 *
 *   sigflood THREADS [INTERVAL_US]
 *
 * The next signal is armed when the handler returns, INTERVAL_US (20 by
 * default) later: between two handlers the program always has that long
 * to go on.  A periodic timer does not give it that
 * (a handler that takes its whole period, or a loaded machine that runs
 * the program for less than it, leaves no time between two signals: the
 * program livelocks in its handler, for seconds, and the flood measures
 * the machine's load instead of arenafix). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "arenas.h"

static cpu_set_t mask;
static volatile sig_atomic_t handled;
static long interval_us;
static volatile sig_atomic_t stopping;   /* the last handler arms no more */

static void reapply(int sig)
{
    int saved = errno;
    (void)sig;
    sched_setaffinity(0, sizeof mask, &mask);
    pthread_setaffinity_np(pthread_self(), sizeof mask, &mask);
    handled++;
    if (!stopping) {
        struct itimerval next = { .it_value.tv_usec = interval_us };
        setitimer(ITIMER_REAL, &next, NULL);
    }
    errno = saved;
}

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 200; i++) {
        void *volatile p = malloc(2000);
        free(p);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int us = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || n > 1000 || us < 1 || us > 100000)
        return 2;
    if (sched_getaffinity(0, sizeof mask, &mask) != 0)
        return 2;
    struct sigaction sa = { .sa_handler = reapply, .sa_flags = SA_RESTART };
    sigaction(SIGALRM, &sa, NULL);
    interval_us = us;
    struct itimerval flood = { .it_value.tv_usec = us };
    setitimer(ITIMER_REAL, &flood, NULL);

    for (int i = 0; i < 2000; i++) {
        void *volatile p = malloc(100 + (size_t)i);
        free(p);
    }
    pthread_t *t = calloc((size_t)n, sizeof *t);
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&t[i], NULL, work, NULL);
        if (rc != 0) {
            fprintf(stderr, "sigflood: pthread_create: %s\n", strerror(rc));
            return 2;
        }
        void *volatile p = malloc(3000);
        free(p);
    }
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    stopping = 1;
    struct itimerval off = { 0 };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("arenas=%d\nsignals=%d\n", count_arenas(), (int)handled);
    return 0;
}
