/* A program that does what real ones do around glibc's arena limit, in
 * the order given, then prints the arena count glibc ended up with:
 *
 *   steps STEP...
 *
 *   pinned:N        N threads pin themselves to one CPU, malloc, and stay
 *   free:N          N unpinned threads malloc and stay
 *   one             one thread mallocs and exits (joined)
 *   c11-one         the same, a C11 thread (thrd_create, thrd_join)
 *   mallopt:max:V   mallopt(M_ARENA_MAX, V); libc-mallopt:max:V the same
 *                   through __libc_mallopt; mallopt:test:V M_ARENA_TEST
 *   timer           a SIGEV_THREAD timer fires (glibc's helper thread)
 *   fork            a child is forked and exits through exit()
 *   aio             a POSIX AIO read (glibc's helper thread)
 *   hidden:N        N threads, started through dlsym on a
 *                   dlopen("libpthread.so.0") handle, malloc and stay
 *   hidden-pinned:N the same, each pinned first, through a raw system
 *                   call: nothing of it reaches an interposer
 *   setenv:NAME=V   setenv; unsetenv:NAME; clearenv
 *   keep-errno      sched_setaffinity to the mask it has, then a
 *                   pthread_create: both must succeed and leave errno
 *                   as it was
 *
 * Built a second time without PIE and taking malloc's address (the
 * steps-nopie program), as CPython and node are.
 * Threads that stay are released and joined at the end. */
#include <aio.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "arenas.h"

int __libc_mallopt(int, int);

enum { MAX_THREADS = 256 };
static pthread_t threads[MAX_THREADS];
static int nthreads;
static sem_t attached, release;
static cpu_set_t one_cpu, allowed;
static char raw_pin;

static void die(const char *what, int err)
{
    fprintf(stderr, "steps: %s: %s\n", what, strerror(err));
    exit(2);
}

static void *worker(void *pin)
{
    if (pin == &raw_pin && syscall(SYS_sched_setaffinity, 0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    if (pin == &one_cpu && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    clear_stack_below();    /* glibc 2.35 as released counts stack bytes as CPUs */
    void *volatile p = malloc(200);     /* the first malloc: attaches an arena */
    sem_post(&attached);
    while (sem_wait(&release) != 0)
        ;
    free(p);
    return NULL;
}

static void *once(void *unused)
{
    (void)unused;
    void *volatile p = malloc(200);
    free(p);
    return NULL;
}

static int once_c11(void *unused)
{
    once(unused);
    return 0;
}

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

static void start(create_fn *create, int n, void *pin)
{
    for (int i = 0; i < n; i++) {
        if (nthreads == MAX_THREADS)
            die("too many threads", E2BIG);
        int rc = create(&threads[nthreads++], NULL, worker, pin);
        if (rc != 0)
            die("pthread_create", rc);
        while (sem_wait(&attached) != 0)
            ;
    }
}

static void fired(union sigval v)
{
    sem_post(v.sival_ptr);
}

static void timer(void)
{
    sem_t done;
    sem_init(&done, 0, 0);
    struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = fired,
                           .sigev_value.sival_ptr = &done };
    timer_t t;
    struct itimerspec when = { .it_value.tv_nsec = 1000000 };
    if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &when, NULL) != 0)
        die("timer", errno);
    while (sem_wait(&done) != 0)
        ;
}

static void aio(void)
{
    char buf[16];
    int fd = open("/proc/self/stat", O_RDONLY);
    struct aiocb cb = { .aio_fildes = fd, .aio_buf = buf, .aio_nbytes = sizeof buf };
    const struct aiocb *list[] = { &cb };
    if (fd < 0 || aio_read(&cb) != 0)
        die("aio_read", errno);
    while (aio_error(&cb) == EINPROGRESS)
        aio_suspend(list, 1, NULL);
    close(fd);
}

static create_fn *hidden_create(void)
{
    void *h = dlopen("libpthread.so.0", RTLD_NOW | RTLD_LOCAL);
    create_fn *fn = h != NULL ? (create_fn *)dlsym(h, "pthread_create") : NULL;
    if (fn == NULL)
        die("dlsym pthread_create", ENOENT);
    return fn;
}

static int option(const char *name, int value)
{
    return strcmp(name, "max") == 0 ? M_ARENA_MAX : strcmp(name, "test") == 0 ? M_ARENA_TEST
                                                                               : value;
}

static void step(const char *s)
{
    char name[64];
    int n;
    if (sscanf(s, "pinned:%d", &n) == 1)
        start(pthread_create, n, &one_cpu);
    else if (sscanf(s, "free:%d", &n) == 1)
        start(pthread_create, n, NULL);
    else if (sscanf(s, "hidden:%d", &n) == 1)
        start(hidden_create(), n, NULL);
    else if (sscanf(s, "hidden-pinned:%d", &n) == 1)
        start(hidden_create(), n, &raw_pin);
    else if (strcmp(s, "one") == 0) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, once, NULL);
        if (rc != 0)
            die("pthread_create", rc);
        pthread_join(t, NULL);
    } else if (strcmp(s, "c11-one") == 0) {
        thrd_t t;
        if (thrd_create(&t, once_c11, NULL) != thrd_success)
            die("thrd_create", EAGAIN);
        thrd_join(t, NULL);
    } else if (sscanf(s, "mallopt:%63[a-z]:%d", name, &n) == 2)
        mallopt(option(name, -1), n);
    else if (sscanf(s, "libc-mallopt:%63[a-z]:%d", name, &n) == 2)
        __libc_mallopt(option(name, -1), n);
    else if (strcmp(s, "fork") == 0) {
        /* A child that exits through exit(), destructors and all. */
        pid_t pid = fork();
        if (pid < 0)
            die("fork", errno);
        if (pid == 0)
            exit(0);
        int status;
        if (waitpid(pid, &status, 0) != pid || status != 0)
            die("the forked child", ECHILD);
    } else if (strcmp(s, "timer") == 0)
        timer();
    else if (strcmp(s, "aio") == 0)
        aio();
    else if (strncmp(s, "setenv:", 7) == 0) {
        char *copy = strdup(s + 7), *eq = strchr(copy, '=');
        if (eq == NULL)
            die(s, EINVAL);
        *eq = '\0';
        setenv(copy, eq + 1, 1);
    } else if (strncmp(s, "unsetenv:", 9) == 0)
        unsetenv(s + 9);
    else if (strcmp(s, "clearenv") == 0)
        clearenv();
    else if (strcmp(s, "keep-errno") == 0) {
        errno = 4242;
        if (sched_setaffinity(0, sizeof allowed, &allowed) != 0)
            die("sched_setaffinity", errno);
        if (errno != 4242)
            die("errno changed by a successful sched_setaffinity", errno);
        pthread_t t;
        int rc = pthread_create(&t, NULL, once, NULL);
        if (rc != 0)
            die("pthread_create", rc);
        if (errno != 4242)
            die("errno changed by a successful pthread_create", errno);
        pthread_join(t, NULL);
    }
    else
        die(s, EINVAL);
}

#ifdef AFX_TAKE_MALLOC_ADDRESS
/* As CPython and node do: code that takes malloc's address, in an
 * executable built without PIE, makes the executable's PLT entry
 * malloc's canonical address (an undefined symbol with a value). */
void *(*volatile afx_malloc_address)(size_t);
#endif

int main(int argc, char **argv)
{
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);
#ifdef AFX_TAKE_MALLOC_ADDRESS
    afx_malloc_address = malloc;
#endif
    sem_init(&attached, 0, 0);
    sem_init(&release, 0, 0);
    for (int i = 1; i < argc; i++)
        step(argv[i]);
    for (int i = 0; i < nthreads; i++)
        sem_post(&release);
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    printf("arenas=%d\n", count_arenas());
    return 0;
}
