/* Threads born pinned through their attribute, as pthread_create's
 * contract has it: each worker finds its own id already stored where
 * pthread_create was told to put it, runs on the attribute's CPU with
 * the attribute's stack size and signal mask, and errno is what the caller left.
 *
 *   attrthreads one|big|empty|default THREADS
 *
 * one: a cpu_set_t with the first allowed CPU; big: the same CPU in a
 * set sized for 16384 CPUs (CPU_ALLOC), with CPU 16000 too, which the
 * kernel drops as it does any CPU it does not have; empty: no CPU at all, which
 * glibc refuses with EINVAL before any thread runs; default: the "one"
 * attribute made the process default (pthread_setattr_default_np) and
 * threads created with no attribute.  A SIGALRM flood
 * (handler does nothing, no SA_RESTART) interrupts whatever waits.
 * Prints the arena count and what went wrong: "wrong-id=N ...". */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "arenas.h"

enum { STACK = 3 << 20, MAX_THREADS = 1000 };

struct worker {
    pthread_t tid;
    int cpu;
};

static atomic_int wrong_id, wrong_cpu, wrong_stack, wrong_sigmask;
static pthread_barrier_t attached;

static void *work(void *arg)
{
    struct worker *w = arg;
    if (!pthread_equal(w->tid, pthread_self()))
        atomic_fetch_add(&wrong_id, 1);
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof now, &now) != 0 || CPU_COUNT(&now) != 1
        || !CPU_ISSET(w->cpu, &now))
        atomic_fetch_add(&wrong_cpu, 1);
    pthread_attr_t mine;
    size_t size = 0;
    clear_stack_below();    /* pthread_getattr_np's malloc is the first */
    if (pthread_getattr_np(pthread_self(), &mine) == 0) {
        pthread_attr_getstacksize(&mine, &size);
        pthread_attr_destroy(&mine);
    }
    if (size != STACK)
        atomic_fetch_add(&wrong_stack, 1);
    /* The attribute's signal mask blocks SIGUSR1; the creator's does not. */
    sigset_t mask;
    if (pthread_sigmask(SIG_BLOCK, NULL, &mask) != 0 || !sigismember(&mask, SIGUSR1))
        atomic_fetch_add(&wrong_sigmask, 1);
    void *volatile p = malloc(200);
    pthread_barrier_wait(&attached);
    free(p);
    return NULL;
}

static void nothing(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: attrthreads one|big|empty|default THREADS\n");
        return 2;
    }
    const char *kind = argv[1];
    int n = atoi(argv[2]);
    if (n < 1 || n > MAX_THREADS)
        return 2;

    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    int cpu = 0;
    while (!CPU_ISSET(cpu, &allowed))
        cpu++;
    size_t size = strcmp(kind, "big") == 0 ? CPU_ALLOC_SIZE(16384) : sizeof(cpu_set_t);
    cpu_set_t *set = CPU_ALLOC(16384);
    CPU_ZERO_S(size, set);
    if (strcmp(kind, "empty") != 0)
        CPU_SET_S(cpu, size, set);
    if (strcmp(kind, "big") == 0)
        CPU_SET_S(16000, size, set);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK);
    sigset_t blocked;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGUSR1);
    pthread_attr_setsigmask_np(&attr, &blocked);
    pthread_attr_setaffinity_np(&attr, size, set);
    pthread_attr_t *use = &attr;
    if (strcmp(kind, "default") == 0) {
        int rc = pthread_setattr_default_np(&attr);
        if (rc != 0) {
            fprintf(stderr, "attrthreads: pthread_setattr_default_np: %s\n", strerror(rc));
            return 2;
        }
        use = NULL;
    }

    struct sigaction sa = { .sa_handler = nothing };
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval flood = { .it_interval.tv_usec = 50, .it_value.tv_usec = 50 };
    setitimer(ITIMER_REAL, &flood, NULL);

    struct worker *w = calloc((size_t)n, sizeof *w);
    int errno_changed = 0, failed = 0, first_error = 0;
    pthread_barrier_init(&attached, NULL, strcmp(kind, "empty") == 0 ? 1 : (unsigned)n);
    for (int i = 0; i < n; i++) {
        w[i].cpu = cpu;
        errno = 4242;
        int rc = pthread_create(&w[i].tid, use, work, &w[i]);
        if (errno != 4242)
            errno_changed++;
        if (rc != 0) {
            failed++;
            first_error = first_error ? first_error : rc;
        }
    }
    for (int i = 0; i < n && failed == 0; i++)
        pthread_join(w[i].tid, NULL);
    struct itimerval off = { 0 };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("arenas=%d\nwrong-id=%d wrong-cpu=%d wrong-stack=%d wrong-sigmask=%d errno-changed=%d "
           "failed=%d error=%s\n",
           count_arenas(), atomic_load(&wrong_id), atomic_load(&wrong_cpu),
           atomic_load(&wrong_stack), atomic_load(&wrong_sigmask), errno_changed, failed,
           first_error ? strerror(first_error) : "none");
    return 0;
}
