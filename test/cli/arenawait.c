/* A process with a known number of arenas, for "arenafix inspect":
 *
 *   arenawait THREADS [pinned|grow] [leaderexit|chroot=DIR]
 *
 * Starts THREADS threads (pinned: each first pins itself to one CPU),
 * each mallocs once, then all stay alive.  grow: the first thread's
 * arena grows past one heap (64 MiB), which maps cannot tell from a
 * second arena.  Prints "arenas=N" as
 * malloc_info counts them and waits until stdin is closed.  leaderexit:
 * then the main thread leaves with pthread_exit, as some programs end
 * main, and another thread waits for stdin: the process runs on with an
 * empty /proc/PID/maps.  chroot=DIR: first it chroots itself into DIR,
 * as a daemon does (HAProxy's chroot, named -t), loaded as it was
 * started.
 *
 * glibc 2.35 as released counts the stack bytes below a thread as CPUs
 * (arenas.h): the first malloc runs on a cleared stack, and the program
 * is linked -z now, since a lazy binding of malloc that several workers
 * run at once leaves the resolver's saved registers where the ninth
 * worker's arena_get2 reads (29 or 31 arenas instead of 9, 3 runs in
 * 600 on 2 busy CPUs). */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenas.h"

static pthread_barrier_t attached;
static cpu_set_t one_cpu;
static int pin, grow;
static pthread_mutex_t first = PTHREAD_MUTEX_INITIALIZER;
static int grown;

/* Chunks under the mmap threshold, so they come from the arena. */
static void grow_arena(void)
{
    pthread_mutex_lock(&first);
    int mine = !grown;
    grown = 1;
    pthread_mutex_unlock(&first);
    for (int i = 0; mine && i < 800; i++) {
        void *volatile p = malloc(100 * 1024);
        (void)p;
    }
}

static void *worker(void *arg)
{
    (void)arg;
    if (pin && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0) {
        perror("arenawait: sched_setaffinity");
        exit(2);
    }
    clear_stack_below();
    void *volatile p = malloc(100);
    (void)p;
    if (grow)
        grow_arena();
    pthread_barrier_wait(&attached);
    for (;;)
        pause();
    return NULL;
}

static void *wait_stdin(void *arg)
{
    (void)arg;
    char buf[64];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    exit(0);
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 3 && strncmp(argv[3], "chroot=", 7) == 0 && (chroot(argv[3] + 7) != 0 || chdir("/") != 0)) {
        perror("arenawait: chroot");
        return 2;
    }
    pin = argc > 2 && strcmp(argv[2], "pinned") == 0;
    grow = argc > 2 && strcmp(argv[2], "grow") == 0;
    CPU_ZERO(&one_cpu);
    CPU_SET(0, &one_cpu);
    pthread_barrier_init(&attached, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0)
            return 2;
    }
    pthread_barrier_wait(&attached);
    printf("arenas=%d\n", count_arenas());
    fflush(stdout);
    if (argc > 3 && strcmp(argv[3], "leaderexit") == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, wait_stdin, NULL) != 0)
            return 2;
        pthread_exit(NULL);
    }
    char buf[64];
    while (read(STDIN_FILENO, buf, sizeof buf) > 0)
        ;
    return 0;
}
