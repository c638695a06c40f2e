/* A program whose threads are pinned before their first malloc, by one
 * of the ways real software pins.  Prints the arena count glibc ended
 * up with:
 *
 *   pinned [ENVCHANGE]... PATH [THREADS] [MALLOPT]
 *
 * PATH: self (sched_setaffinity(0) in the thread), pthread
 * (pthread_setaffinity_np(pthread_self())), attr (born pinned through
 * pthread_attr_setaffinity_np), inherit (main pins itself first),
 * inheritpid (the same through sched_setaffinity(getpid())),
 * raw (syscall(SYS_sched_setaffinity)), old (sched_setaffinity@GLIBC_2.3.3),
 * oldpthread (pthread_setaffinity_np@GLIBC_2.3.3),
 * ctor (threads started by a library constructor, see ctorthreads.c),
 * none (no pinning).  MALLOPT, when given, is set with
 * mallopt(M_ARENA_MAX) before any thread starts.
 *
 * ENVCHANGE, done in order first thing in main: --setenv NAME=VALUE,
 * --unsetenv NAME, --clearenv.  glibc read its arena settings from the
 * initial environment before main: what the program does to it later
 * must change nothing. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arenas.h"

#if defined(__x86_64__) || defined(__i386__)
int old_sched_setaffinity(pid_t, const cpu_set_t *);
__asm__(".symver old_sched_setaffinity,sched_setaffinity@GLIBC_2.3.3");
int old_pthread_setaffinity_np(pthread_t, const cpu_set_t *);
__asm__(".symver old_pthread_setaffinity_np,pthread_setaffinity_np@GLIBC_2.3.3");
#endif

int afx_ctor_arenas(void);

static const char *path;
static cpu_set_t one_cpu;
static pthread_barrier_t all_attached;

static void die(const char *what, int err)
{
    fprintf(stderr, "pinned: %s: %s\n", what, strerror(err));
    exit(2);
}

static void pin_self(void)
{
    int rc = 0;
    if (strcmp(path, "self") == 0)
        rc = sched_setaffinity(0, sizeof one_cpu, &one_cpu) ? errno : 0;
    else if (strcmp(path, "pthread") == 0)
        rc = pthread_setaffinity_np(pthread_self(), sizeof one_cpu, &one_cpu);
    else if (strcmp(path, "raw") == 0)
        rc = syscall(SYS_sched_setaffinity, 0, sizeof one_cpu, &one_cpu) ? errno : 0;
#if defined(__x86_64__) || defined(__i386__)
    else if (strcmp(path, "old") == 0)
        rc = old_sched_setaffinity(0, &one_cpu) ? errno : 0;
    else if (strcmp(path, "oldpthread") == 0)
        rc = old_pthread_setaffinity_np(pthread_self(), &one_cpu);
#endif
    if (rc != 0)
        die("pinning", rc);
}

/* The thread must really be where it was put, or the count means little. */
static void check_pinned(void)
{
    cpu_set_t now;
    if (strcmp(path, "none") == 0)
        return;
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &one_cpu)) {
        fprintf(stderr, "pinned: thread is not pinned (path %s)\n", path);
        exit(2);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    pin_self();
    check_pinned();
    clear_stack_below();
    void *volatile p = malloc(200);  /* the first malloc: attaches an arena */
    pthread_barrier_wait(&all_attached);
    free(p);
    return NULL;
}

/* One ENVCHANGE at argv[0]: returns how many arguments it took. */
static int change_env(int argc, char **argv)
{
    int rc;
    if (strcmp(argv[0], "--clearenv") == 0)
        rc = clearenv();
    else if (strcmp(argv[0], "--unsetenv") == 0 && argc > 1)
        rc = unsetenv(argv[1]);
    else if (strcmp(argv[0], "--setenv") == 0 && argc > 1 && strchr(argv[1], '=') != NULL) {
        char *name = strdup(argv[1]), *eq = strchr(name, '=');
        *eq = '\0';
        rc = setenv(name, eq + 1, 1);
        free(name);
    } else {
        fprintf(stderr, "pinned: %s: not --setenv NAME=VALUE, --unsetenv NAME or --clearenv\n",
                argv[0]);
        exit(2);
    }
    if (rc != 0)
        die(argv[0], errno);
    return strcmp(argv[0], "--clearenv") == 0 ? 1 : 2;
}

int main(int argc, char **argv)
{
    while (argc > 1 && strncmp(argv[1], "--", 2) == 0) {
        int used = change_env(argc - 1, argv + 1);
        argc -= used;
        argv += used;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: pinned [ENVCHANGE]... PATH [THREADS] [MALLOPT]\n");
        return 2;
    }
    path = argv[1];
    int threads = argc > 2 ? atoi(argv[2]) : 30;
    if (argc > 3 && mallopt(M_ARENA_MAX, atoi(argv[3])) != 1)
        die("mallopt", EINVAL);

    /* Pin to the first CPU this process may use. */
    cpu_set_t allowed;
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);

    if (strcmp(path, "ctor") == 0) {
        printf("arenas=%d\n", afx_ctor_arenas());
        return 0;
    }

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (strcmp(path, "attr") == 0)
        pthread_attr_setaffinity_np(&attr, sizeof one_cpu, &one_cpu);
    if (strcmp(path, "inherit") == 0 && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("pinning main", errno);
    /* The same, naming itself by its id rather than 0. */
    if (strcmp(path, "inheritpid") == 0 && sched_setaffinity(getpid(), sizeof one_cpu, &one_cpu) != 0)
        die("pinning main", errno);

    pthread_barrier_init(&all_attached, NULL, (unsigned)threads);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int i = 0; i < threads; i++) {
        int rc = pthread_create(&tids[i], &attr, worker, NULL);
        if (rc != 0)
            die("pthread_create", rc);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    printf("arenas=%d\n", count_arenas());
    return 0;
}
