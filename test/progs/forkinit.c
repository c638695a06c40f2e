/* libforkinit.so, preloaded after arenafix: a thread forks while
 * arenafix starts in another, and the child can open no file.
 *
 * Its constructor, which runs before arenafix's (the one preloaded
 * last starts first), starts a thread, as a library's constructor may:
 * arenafix then starts in a process that has threads.  Held in its first
 * open (the library's count of its threads, after the online CPUs are
 * read), the thread forks.  The child, its only thread, takes every
 * descriptor, pins itself with a raw system call (the library does not
 * see it narrow) and starts 30 threads that malloc: arenafix starts
 * again there, in the child, where it can read no file.  It prints
 * child-arenas=N; the program, at its exit, fork-in-init=yes (no if the
 * moment never came: without the library, the thread forks then). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenas.h"
#include "denyopen.h"

enum { WORKERS = 30 };
static sem_t fork_now, forked, attached, release;
static atomic_int armed;
static atomic_bool in_init;
static pthread_t forker_thread;
static cpu_set_t allowed, one_cpu;

static void die(const char *what, int err)
{
    fprintf(stderr, "forkinit: %s: %s\n", what, strerror(err));
    _exit(2);
}

typedef int open_fn(const char *, int, ...);
typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* The library's calls reach this definition: it is preloaded before libc. */
int open(const char *path, int flags, ...)
{
    static open_fn *real;
    if (real == NULL)
        real = (open_fn *)dlsym(RTLD_NEXT, "open");
    va_list ap;
    va_start(ap, flags);
    mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
    va_end(ap);
    int expected = 1;
    if (strcmp(path, "/proc/self/stat") == 0 && atomic_compare_exchange_strong(&armed, &expected, 0)) {
        atomic_store(&in_init, true);
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    return real(path, flags, mode);
}

static void *worker(void *unused)
{
    clear_stack_below();    /* glibc 2.35 as released counts stack bytes as CPUs */
    void *volatile p = malloc(2000);
    sem_post(&attached);
    while (sem_wait(&release) != 0)
        ;
    free(p);
    return unused;
}

static void child(void)
{
    if (afx_take_every_descriptor() != 0)
        die("taking every descriptor", errno);
    if (syscall(SYS_sched_setaffinity, 0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    pthread_t t[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        int rc = pthread_create(&t[i], NULL, worker, NULL);
        if (rc != 0)
            die("pthread_create", rc);
    }
    for (int i = 0; i < WORKERS; i++)
        while (sem_wait(&attached) != 0)
            ;
    int n = count_arenas();
    for (int i = 0; i < WORKERS; i++)
        sem_post(&release);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(t[i], NULL);
    printf("child-arenas=%d\n", n);
    fflush(stdout);
    _exit(0);
}

static void *forker(void *unused)
{
    while (sem_wait(&fork_now) != 0)
        ;
    pid_t pid = fork();
    if (pid == 0)
        child();
    int status = 1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        fprintf(stderr, "forkinit: the child failed (status %d)\n", status);
    sem_post(&forked);
    return unused;
}

__attribute__((constructor)) static void start_forker(void)
{
    sem_init(&fork_now, 0, 0);
    sem_init(&forked, 0, 0);
    sem_init(&attached, 0, 0);
    sem_init(&release, 0, 0);
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);
    /* libc's own: arenafix's would start the library there, while the
     * process has no other thread yet. */
    create_fn *real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
    atomic_store(&armed, 1);
    int rc = real != NULL ? real(&forker_thread, NULL, forker, NULL) : ENOSYS;
    if (rc != 0)
        die("pthread_create", rc);
}

__attribute__((destructor)) static void end_forker(void)
{
    int expected = 1;
    if (atomic_compare_exchange_strong(&armed, &expected, 0)) {
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    pthread_join(forker_thread, NULL);
    printf("fork-in-init=%s\n", atomic_load(&in_init) ? "yes" : "no");
    fflush(stdout);
}
