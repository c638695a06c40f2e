/* Threads started after a program locked itself down, or by glibc
 * itself:
 *
 *   sandboxed [--seccomp] pinned|unclean|timers|pin-timers N
 *
 * --seccomp: first thing in main, install a seccomp filter that kills
 * the process (SIGSYS, status 159) on any open or openat, as a browser's
 * or a sandbox's does once it has opened what it needs.
 * pinned: N threads each pin themselves to the first CPU the process may
 * use, then malloc; unclean: the same, without first clearing the stack
 * below (glibc 2.35 as released counts what calls left there as CPUs,
 * bug 28850, so a preload that only forwards must leave what no preload
 * leaves).  timers: N SIGEV_THREAD timers fire at once; glibc
 * starts their threads itself (no pthread_create of the program's), and
 * each callback mallocs.  pin-timers: the main thread pins itself to the
 * first CPU it may use (through sched_setaffinity), then arms the timers,
 * whose threads inherit its mask.  Every thread holds its arena until all have
 * one; then "arenas=N" is printed (malloc_info into memory: no file). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arenas.h"
#include "denyopen.h"


static pthread_barrier_t attached, release;
static cpu_set_t one;

static void die(const char *what, int err)
{
    fprintf(stderr, "sandboxed: %s: %s\n", what, strerror(err));
    exit(2);
}

static void lock_down(void)
{
    if (afx_deny_open(SECCOMP_RET_KILL_PROCESS) != 0)
        die("PR_SET_SECCOMP", errno);
}

static bool unclean;

static void hold_an_arena(void)
{
    if (!unclean)
        clear_stack_below();
    void *volatile p = malloc(4000);
    free(p);
    pthread_barrier_wait(&attached);
    pthread_barrier_wait(&release);
}

static void *pinned(void *arg)
{
    if (sched_setaffinity(0, sizeof one, &one) != 0)
        die("sched_setaffinity", errno);
    hold_an_arena();
    return arg;
}

static void fired(union sigval v)
{
    (void)v;
    hold_an_arena();
}

int main(int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--seccomp") == 0) {
        lock_down();
        i++;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: sandboxed [--seccomp] pinned|unclean|timers|pin-timers N\n");
        return 2;
    }
    bool pin_first = strcmp(argv[i], "pin-timers") == 0;
    bool timers = pin_first || strcmp(argv[i], "timers") == 0;
    unclean = strcmp(argv[i], "unclean") == 0;
    int n = atoi(argv[i + 1]);
    cpu_set_t allowed;
    if (n < 1 || n > 256 || (!timers && !unclean && strcmp(argv[i], "pinned") != 0))
        die(argv[i], EINVAL);
    if (!first_allowed_cpu(&allowed, &one))
        die("sched_getaffinity", errno);
    if (pin_first && sched_setaffinity(0, sizeof one, &one) != 0)
        die("sched_setaffinity", errno);
    pthread_barrier_init(&attached, NULL, (unsigned)n + 1);
    pthread_barrier_init(&release, NULL, (unsigned)n + 1);
    pthread_t threads[256];
    for (int t = 0; t < n; t++) {
        if (!timers) {
            int rc = pthread_create(&threads[t], NULL, pinned, NULL);
            if (rc != 0)
                die("pthread_create", rc);
            continue;
        }
        struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = fired };
        struct itimerspec when = { .it_value = { .tv_nsec = 1000000 } };
        timer_t timer;
        if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0)
            die("timer_create", errno);
        if (timer_settime(timer, 0, &when, NULL) != 0)
            die("timer_settime", errno);
    }
    pthread_barrier_wait(&attached);
    printf("arenas=%d\n", count_arenas());
    fflush(stdout);
    pthread_barrier_wait(&release);
    for (int t = 0; !timers && t < n; t++)
        pthread_join(threads[t], NULL);
    return 0;
}
