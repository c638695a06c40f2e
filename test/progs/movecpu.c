/* A process that runs on one CPU before arenafix can see it (narrowed
 * by a raw system call, as taskset -c 0 would before exec), then moves
 * to another single CPU through sched_setaffinity while a thread
 * arenafix did not see start runs, then creates a thread:
 *
 *   movecpu
 *
 * The move narrows nothing (one CPU before, one after), so arenafix must
 * not take the one-CPU mask it had as the process's wide one: asked in
 * touch mode, it still says the thread was narrowed before it was
 * loaded.  Exits 77 where fewer than two CPUs are allowed. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arenas.h"

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static sem_t release;

static void die(const char *what, int err)
{
    fprintf(stderr, "movecpu: %s: %s\n", what, strerror(err));
    exit(2);
}

static void *waiter(void *unused)
{
    (void)unused;
    while (sem_wait(&release) != 0)
        ;
    return NULL;
}

static void *nothing(void *unused)
{
    return unused;
}

int main(void)
{
    cpu_set_t allowed, first, second;
    if (!first_allowed_cpu(&allowed, &first))
        die("sched_getaffinity", errno);
    CPU_XOR(&second, &allowed, &first);
    if (CPU_COUNT(&second) == 0) {
        printf("one CPU allowed: nothing to move to\n");
        return 77;
    }
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &second)) {
            CPU_ZERO(&second);
            CPU_SET(c, &second);
            break;
        }
    /* Unseen: as if narrowed before the program started. */
    if (syscall(SYS_sched_setaffinity, 0, sizeof first, &first) != 0)
        die("sched_setaffinity (raw)", errno);
    /* A second thread, started where no interposer sees it, so the
     * move below comes in a multi-threaded process and the decision is
     * explained at the pthread_create after it. */
    void *h = dlopen("libpthread.so.0", RTLD_NOW | RTLD_LOCAL);
    create_fn *hidden = h != NULL ? (create_fn *)dlsym(h, "pthread_create") : NULL;
    if (hidden == NULL)
        die("dlsym pthread_create", ENOENT);
    sem_init(&release, 0, 0);
    pthread_t w, t;
    int rc = hidden(&w, NULL, waiter, NULL);
    if (rc != 0)
        die("pthread_create (hidden)", rc);
    if (sched_setaffinity(0, sizeof second, &second) != 0)
        die("sched_setaffinity", errno);
    if ((rc = pthread_create(&t, NULL, nothing, NULL)) != 0)
        die("pthread_create", rc);
    pthread_join(t, NULL);
    sem_post(&release);
    pthread_join(w, NULL);
    printf("moved: one CPU to another\n");
    return 0;
}
