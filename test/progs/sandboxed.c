/* Threads started after a program locked itself down, or by glibc
 * itself:
 *
 *   sandboxed [--seccomp] pinned|timers N
 *
 * --seccomp: first thing in main, install a seccomp filter that kills
 * the process (SIGSYS, status 159) on any open or openat, as a browser's
 * or a sandbox's does once it has opened what it needs.
 * pinned: N threads each pin themselves to the first CPU the process may
 * use, then malloc.  timers: N SIGEV_THREAD timers fire at once; glibc
 * starts their threads itself (no pthread_create of the program's), and
 * each callback mallocs.  Every thread holds its arena until all have
 * one; then "arenas=N" is printed (malloc_info into memory: no file). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arenas.h"

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

static pthread_barrier_t attached, release;
static cpu_set_t one;

static void die(const char *what, int err)
{
    fprintf(stderr, "sandboxed: %s: %s\n", what, strerror(err));
    exit(2);
}

static void lock_down(void)
{
#ifndef AUDIT_ARCH_HERE
    die("--seccomp", ENOSYS);
#else
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 2, 0),
#ifdef SYS_open
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 1, 0),
#else
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 1, 0),
#endif
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog prog = { .len = sizeof code / sizeof code[0], .filter = code };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die("PR_SET_NO_NEW_PRIVS", errno);
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        die("PR_SET_SECCOMP", errno);
#endif
}

static void hold_an_arena(void)
{
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
        fprintf(stderr, "usage: sandboxed [--seccomp] pinned|timers N\n");
        return 2;
    }
    bool timers = strcmp(argv[i], "timers") == 0;
    int n = atoi(argv[i + 1]);
    cpu_set_t allowed;
    if (n < 1 || n > 256 || (!timers && strcmp(argv[i], "pinned") != 0))
        die(argv[i], EINVAL);
    if (!first_allowed_cpu(&allowed, &one))
        die("sched_getaffinity", errno);
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
