/* What a glibc counts as its CPUs, for the claims docs/internals.md
 * makes about the releases 2.34 to 2.38:
 *
 *   nprocs count     pinned to one CPU, prints get_nprocs() (glibc's
 *                    __get_nprocs: the online CPUs, except in 2.34, where
 *                    it counts the caller's affinity)
 *   nprocs dirty N   N threads pin themselves to one CPU, leave ones on
 *                    the stack below them (as the calls a real thread
 *                    makes first do), then malloc: arenas=N as in pinned.
 *                    glibc 2.35 as released reads those bytes as CPUs
 *                    (glibc bug 28850) and sizes its limit from them
 *
 * The first line is "glibc=VERSION". */
#include <errno.h>
#include <gnu/libc-version.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "arenas.h"

static cpu_set_t one_cpu;
static pthread_barrier_t attached;

static void die(const char *what, int err)
{
    fprintf(stderr, "nprocs: %s: %s\n", what, strerror(err));
    exit(2);
}

/* Raw: nothing of the pinning reaches an interposer's code. */
static void pin(void)
{
    if (syscall(SYS_sched_setaffinity, 0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
}

__attribute__((noinline)) static void leave_ones_below(void)
{
    volatile unsigned char below[16384];
    memset((unsigned char *)below, 0xff, sizeof below);
    __asm__ volatile("" : : "r"(below) : "memory");
}

static void *dirty_worker(void *unused)
{
    pin();
    leave_ones_below();
    void *volatile p = malloc(200);
    pthread_barrier_wait(&attached);
    free(p);
    return unused;
}

int main(int argc, char **argv)
{
    cpu_set_t allowed;
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);
    printf("glibc=%s\n", gnu_get_libc_version());
    if (argc == 2 && strcmp(argv[1], "count") == 0) {
        pin();
        printf("get_nprocs=%d\n", get_nprocs());
        return 0;
    }
    int n = argc == 3 && strcmp(argv[1], "dirty") == 0 ? atoi(argv[2]) : 0;
    if (n < 1 || n > 1000) {
        fprintf(stderr, "usage: nprocs count | nprocs dirty THREADS\n");
        return 2;
    }
    pthread_t threads[1000];
    pthread_barrier_init(&attached, NULL, (unsigned)n + 1);
    for (int i = 0; i < n; i++) {
        int rc = pthread_create(&threads[i], NULL, dirty_worker, NULL);
        if (rc != 0)
            die("pthread_create", rc);
    }
    pthread_barrier_wait(&attached);
    printf("arenas=%d\n", count_arenas());
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    return 0;
}
