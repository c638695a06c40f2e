/* The moments where the limit is set, made to happen on purpose:
 *
 *   moments race      6 unpinned spawners, released together, each start
 *                     5 workers that pin themselves and malloc; the
 *                     spawner that sets the limit is held 100 ms in the
 *                     middle of it (a malloc_info of its own that the
 *                     library calls), so the others' threads would run
 *                     meanwhile
 *   moments readers   5 spawners that start one worker each at the same
 *                     moment: each creation's count of live threads is
 *                     held in its first tgkill (a syscall of its own,
 *                     which the library's count calls) until all 5 are
 *                     counting, so all saw the same threads; once those
 *                     workers have malloced, 5 more spawners start 5
 *                     workers each
 *   moments forkreuse a thread forks while another is inside the library
 *                     (held in the mask read of its first narrowing);
 *                     the child's one thread, which takes that thread's
 *                     descriptor from glibc's stack cache, starts 30
 *                     workers that pin themselves and malloc, and the
 *                     child prints its count as child-arenas=N
 *   moments reenter   30 pinned workers start; the library's counts of
 *                     arenas (its malloc_info) each start a thread and
 *                     call mallopt(M_ARENA_TEST, 8, glibc's own value),
 *                     as a malloc the library's code calls may: the
 *                     library must only forward them (inside its own
 *                     decision, deciding again waits on itself for
 *                     ever); prints reenter=ok
 *   moments forkreuse-unseen  the same, the child's thread started
 *                     through glibc's own pthread_create (not seen)
 *   moments fork      a thread forks while the main thread is in the
 *                     middle of setting the limit (held in malloc_info);
 *                     the child starts 30 threads that pin themselves and
 *                     malloc, and prints its count as child-arenas=N
 *   moments emfile    one thread starts, the main thread pins itself (a
 *                     raw system call: the library does not see it),
 *                     every descriptor is taken, and 30 threads (pinned:
 *                     they inherit its mask) malloc
 *   moments emfile-first  every descriptor taken before the first thread;
 *                     a thread that the library does not see start (a
 *                     pthread_create found with dlsym on a library
 *                     handle) pins itself the same way, then starts 30
 *   moments noproc    /proc hidden (a tmpfs over it, in a mount namespace
 *                     of its own): 10 threads come and go one after the
 *                     other, 2 threads malloc and stay, the program calls
 *                     mallopt(M_ARENA_MAX, 3), 10 more threads
 *
 *   moments fewnoproc /proc hidden: 30 threads of which 4 malloc
 *   moments mallopt   another thread calls mallopt(M_ARENA_MAX, 4) at the
 *                     moment the library sets the limit (held in the
 *                     mask read of that look at the process, after it has
 *                     read the program's choices), while 30 workers start
 *                     one by one and malloc; without the library, after
 *                     the 7th; prints at-mallopt=N, the arenas at the
 *                     program's call (the fixed glibc keeps that count)
 *   moments dlopen    a thread started through glibc's own pthread_create
 *                     (which the library does not see start) makes the
 *                     process's first pthread_create
 *                     while the main thread is in dlopen, whose library's
 *                     constructor starts a thread (dl_load_lock held)
 *   moments cancel    a thread with a cancellation pending, holding a
 *                     mutex, starts a thread: pthread_create is no
 *                     cancellation point; prints came-back=yes
 *   moments altstack  a signal handler on an alternate stack of 8192
 *                     bytes (SIGSTKSZ before glibc 2.34) narrows its
 *                     thread's mask, in the main thread and in another;
 *                     prints altstack=ok
 *
 * Each prints arenas=N, glibc's count at the end.  The hooks take effect
 * only while a creation made by the program is in progress, so they see
 * only what the library does inside pthread_create. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arenas.h"
#include "glibccreate.h"
#include "denyopen.h"

enum { MAX_THREADS = 128 };
static pthread_t threads[MAX_THREADS];
static atomic_int nthreads;
static sem_t release;
static atomic_int attached;
static cpu_set_t one_cpu, allowed;
/* Set around the program's own pthread_create calls. */
static __thread bool creating;
static __thread bool counted_this_creation;   /* held once (readers) */

static void die(const char *what, int err)
{
    fprintf(stderr, "moments: %s: %s\n", what, strerror(err));
    exit(2);
}

static void sleep_ms(long ms)
{
    struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

static void create(void *(*routine)(void *), void *arg)
{
    int i = atomic_fetch_add(&nthreads, 1);
    if (i >= MAX_THREADS)
        die("too many threads", E2BIG);
    creating = true;
    counted_this_creation = false;
    int rc = pthread_create(&threads[i], NULL, routine, arg);
    creating = false;
    if (rc != 0)
        die("pthread_create", rc);
}

/* Pins itself (if PIN), mallocs, and stays until released. */
static void *worker(void *pin)
{
    if (pin != NULL && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    clear_stack_below();    /* glibc 2.35 as released counts stack bytes as CPUs */
    void *volatile p = malloc(2000);
    atomic_fetch_add(&attached, 1);
    while (sem_wait(&release) != 0)
        ;
    free(p);
    return NULL;
}

static void wait_attached(int workers)
{
    for (int i = 0; i < 10000 && atomic_load(&attached) < workers; i++)
        sleep_ms(1);
    if (atomic_load(&attached) < workers)
        die("workers that never malloced", ETIMEDOUT);
}

/* The count once every worker has malloced. */
static int arenas_now(int workers)
{
    wait_attached(workers);
    return count_arenas();
}

/* Stays, without a malloc. */
static void *idle(void *unused)
{
    atomic_fetch_add(&attached, 1);
    while (sem_wait(&release) != 0)
        ;
    return unused;
}

/* Mallocs and ends. */
static void *once(void *unused)
{
    void *volatile p = malloc(2000);
    free(p);
    return unused;
}

static void join_all(void)
{
    int n = atomic_load(&nthreads);
    for (int i = 0; i < n; i++)
        sem_post(&release);
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
}

/* ---- hooks: the library's calls reach the executable's definitions --- */

typedef int malloc_info_fn(int, FILE *);
static atomic_int hold_malloc_info;   /* 1: hold the next call 100 ms; 2: fork then */
static atomic_int hold_narrowing;     /* 1: fork at the next mask read of the calling thread */
static atomic_bool reenter;           /* malloc_info starts a thread, calls mallopt */
static sem_t fork_now, forked;

static atomic_int readers_waiting = -1;   /* >= 0: hold the creations' counts */
static atomic_int arena_counters;

typedef long syscall_fn(long, ...);

/* glibc's syscall and malloc_info, which this program's wrappers of them
 * call.  Bound before any thread starts, not at a first call: the
 * library calls them inside its decision, and there a dlsym, which takes
 * the loader's lock, waited for a dlopen that held it, whose constructor
 * waited for the decision (the dlopen moment on i386, where arena_test
 * is 2 and the first creation decides).  The library may call them from
 * its constructor, before this one: bound there, single-threaded. */
static syscall_fn *real_syscall;
static malloc_info_fn *real_malloc_info;

static void bind_real(void)
{
    if (real_syscall == NULL)
        real_syscall = (syscall_fn *)dlsym(RTLD_NEXT, "syscall");
    if (real_malloc_info == NULL)
        real_malloc_info = (malloc_info_fn *)dlsym(RTLD_NEXT, "malloc_info");
}

__attribute__((constructor)) static void bind_at_start(void)
{
    bind_real();
}

/* 1: the next mask read by the process id in a creation lets the
 * program's mallopt run first. */
static atomic_int hold_mask_read;
static sem_t mallopt_now, mallopt_done;

/* Held in the first tgkill of a creation: the library's count of its
 * live threads asks the kernel about each one that way. */
long syscall(long number, ...)
{
    if (real_syscall == NULL)
        bind_real();
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    /* The library's look at the process reads the main thread's mask
     * (by the process id) after the program's choices. */
    int expected = 1;
    if (number == SYS_sched_getaffinity && a[0] == getpid() && creating
        && atomic_compare_exchange_strong(&hold_mask_read, &expected, 0)) {
        sem_post(&mallopt_now);
        while (sem_wait(&mallopt_done) != 0)
            ;
    }
    /* The library's record of the mask before a thread's first
     * narrowing reads it (the calling thread's, id 0). */
    expected = 1;
    if (number == SYS_sched_getaffinity && a[0] == 0
        && atomic_compare_exchange_strong(&hold_narrowing, &expected, 0)) {
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    if (number == SYS_tgkill && creating && !counted_this_creation
        && atomic_load(&readers_waiting) >= 0) {
        counted_this_creation = true;
        atomic_fetch_add(&readers_waiting, 1);
        for (int i = 0; i < 2000 && atomic_load(&readers_waiting) < 5; i++)
            sleep_ms(1);
    }
    return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int malloc_info(int options, FILE *f)
{
    if (real_malloc_info == NULL)
        bind_real();
    if (creating && atomic_load(&reenter)) {
        pthread_t t;
        pthread_attr_t detached;
        pthread_attr_init(&detached);
        pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &detached, once, NULL) != 0)
            die("pthread_create (from malloc_info)", EAGAIN);
        pthread_attr_destroy(&detached);
        mallopt(M_ARENA_TEST, 8);
    }
    int expected = 1;
    if (creating && atomic_compare_exchange_strong(&hold_malloc_info, &expected, 0))
        sleep_ms(100);
    expected = 2;
    if (creating && atomic_compare_exchange_strong(&hold_malloc_info, &expected, 0)) {
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    int rc = real_malloc_info(options, f);
    /* readers: a creation that goes on to count arenas has counted its
     * threads too early to see the others; it waits for them to count
     * arenas as well (200 ms at most: one of them may not count them),
     * so that none sees the arenas of another's new thread. */
    if (creating && atomic_load(&readers_waiting) >= 0) {
        atomic_fetch_add(&arena_counters, 1);
        for (int i = 0; i < 200 && atomic_load(&arena_counters) < 5; i++)
            sleep_ms(1);
    }
    return rc;
}

/* ---- the moments ------------------------------------------------------ */

static pthread_barrier_t go;
static sem_t spawned;
static int per_spawner;

/* Keeps its arena (unpinned) until released, as the workers do. */
static void *spawner(void *unused)
{
    (void)unused;
    void *volatile p = malloc(2000);
    pthread_barrier_wait(&go);
    for (int i = 0; i < per_spawner; i++)
        create(worker, &one_cpu);
    sem_post(&spawned);
    while (sem_wait(&release) != 0)
        ;
    free(p);
    return NULL;
}

/* Spawners are joined with the workers, at the end. */
static void spawners(int n, int each)
{
    per_spawner = each;
    pthread_barrier_init(&go, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        int t = atomic_fetch_add(&nthreads, 1);
        if (t >= MAX_THREADS || pthread_create(&threads[t], NULL, spawner, NULL) != 0)
            die("pthread_create", EAGAIN);
        atomic_fetch_add(&attached, 1);    /* counted as a worker: it malloced before the barrier */
    }
    for (int i = 0; i < n; i++)
        while (sem_wait(&spawned) != 0)
            ;
    pthread_barrier_destroy(&go);
}

static void race(void)
{
    atomic_store(&hold_malloc_info, 1);
    spawners(6, 5);
}

static void readers(void)
{
    atomic_store(&readers_waiting, 0);
    spawners(5, 1);
    atomic_store(&readers_waiting, -1);
    arenas_now(10);     /* the first 5 workers have malloced */
    spawners(5, 5);
}

/* The child's one thread: starts the 30 pinned workers. */
static void *child_spawner(void *unused)
{
    for (int i = 0; i < 30; i++)
        create(worker, &one_cpu);
    return unused;
}

/* Who starts the forked child's 30 pinned workers: its main thread, or
 * one thread it starts (forkreuse), through pthread_create or glibc's
 * own (forkreuse-unseen). */
static enum { CHILD_MAIN, CHILD_SPAWNER, CHILD_SPAWNER_UNSEEN } child_starts;

static void *forker(void *unused)
{
    (void)unused;
    while (sem_wait(&fork_now) != 0)
        ;
    pid_t pid = fork();
    if (pid == 0) {
        atomic_store(&nthreads, 0);
        atomic_store(&attached, 0);
        sem_init(&release, 0, 0);
        if (child_starts == CHILD_MAIN) {
            child_spawner(NULL);
        } else {
            pthread_t t;
            afx_create_fn *start =
                child_starts == CHILD_SPAWNER_UNSEEN ? afx_glibc_pthread_create() : pthread_create;
            if (start == NULL || start(&t, NULL, child_spawner, NULL) != 0)
                die("pthread_create", EAGAIN);
            pthread_join(t, NULL);
        }
        int n = arenas_now(30);
        join_all();
        printf("child-arenas=%d\n", n);
        fflush(stdout);
        _exit(0);
    }
    int status = 1;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
        fprintf(stderr, "moments: the child failed (status %d)\n", status);
    sem_post(&forked);
    return NULL;
}

/* Narrows itself: the library reads its mask first, and the fork comes
 * then, this thread inside the library. */
static void *narrower(void *unused)
{
    atomic_store(&hold_narrowing, 1);
    if (sched_setaffinity(0, sizeof allowed, &allowed) != 0)
        die("sched_setaffinity", errno);
    /* Without the library nothing read the mask: fork now. */
    int expected = 1;
    if (atomic_compare_exchange_strong(&hold_narrowing, &expected, 0)) {
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    return unused;
}

/* In the child the threads of the parent are gone, and glibc's stack
 * cache holds theirs: the narrower's (the forker is the child's own).
 * The child's first thread takes it, and with it the narrower's thread
 * pointer, by which the library knew the narrower inside it. */
static void fork_while_inside(void)
{
    pthread_t f, n;
    if (pthread_create(&f, NULL, forker, NULL) != 0
        || pthread_create(&n, NULL, narrower, NULL) != 0)
        die("pthread_create", EAGAIN);
    pthread_join(n, NULL);
    pthread_join(f, NULL);
}

static void fork_while_setting(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, forker, NULL) != 0)
        die("pthread_create", EAGAIN);
    /* The creation that sets the limit is held in malloc_info: the
     * forker forks then.  Unpinned threads until then. */
    atomic_store(&hold_malloc_info, 2);
    for (int i = 0; i < 12 && atomic_load(&hold_malloc_info) == 2; i++) {
        /* Each has its arena before the next starts: a fork while a
         * thread creates its arena leaves the child one arena short at
         * times (15 for 16), on the fixed glibc too. */
        wait_attached(i);
        create(worker, NULL);
    }
    if (atomic_load(&hold_malloc_info) == 2) {
        /* Without the library nothing calls it: fork now. */
        atomic_store(&hold_malloc_info, 0);
        sem_post(&fork_now);
        while (sem_wait(&forked) != 0)
            ;
    }
    pthread_join(t, NULL);
}

static void pin_unseen(void)
{
    if (syscall(SYS_sched_setaffinity, 0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
}

static void take_every_descriptor(void)
{
    if (afx_take_every_descriptor() != 0)
        die("taking every descriptor", errno);
}

static void emfile(void)
{
    create(worker, NULL);
    pin_unseen();
    take_every_descriptor();
    for (int i = 0; i < 30; i++)
        create(worker, NULL);   /* pinned: they inherit the mask */
}

static void *pinned_spawner(void *unused)
{
    (void)unused;
    pin_unseen();
    for (int i = 0; i < 30; i++)
        create(worker, NULL);
    return NULL;
}

static void emfile_first(void)
{
    void *h = dlopen("libpthread.so.0", RTLD_NOW | RTLD_LOCAL);
    afx_create_fn *hidden = h != NULL ? (afx_create_fn *)dlsym(h, "pthread_create") : NULL;
    if (hidden == NULL)
        die("dlsym pthread_create", ENOENT);
    take_every_descriptor();
    pthread_t t;
    if (hidden(&t, NULL, pinned_spawner, NULL) != 0)
        die("pthread_create", EAGAIN);
    pthread_join(t, NULL);
}

static void hide_proc(void)
{
    if (unshare(CLONE_NEWNS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        die("unshare", errno);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        die("making the mounts private", errno);
    if (mount("none", "/proc", "tmpfs", 0, NULL) != 0)
        die("mounting a tmpfs over /proc", errno);
    if (access("/proc/self/stat", F_OK) == 0)
        die("/proc is still there", EEXIST);
}

static void noproc(void)
{
    hide_proc();
    for (int i = 0; i < 10; i++) {
        pthread_t t;
        creating = true;
        int rc = pthread_create(&t, NULL, once, NULL);
        creating = false;
        if (rc != 0)
            die("pthread_create", rc);
        pthread_join(t, NULL);
    }
    create(worker, NULL);
    create(worker, NULL);
    arenas_now(2);      /* both have malloced */
    mallopt(M_ARENA_MAX, 3);
    for (int i = 0; i < 10; i++)
        create(worker, NULL);
}

static void fewnoproc(void)
{
    hide_proc();
    for (int i = 0; i < 30; i++) {
        create(i < 4 ? worker : idle, NULL);
        wait_attached(i + 1);
    }
}

static atomic_int at_mallopt = -1;

static void *chooser(void *unused)
{
    while (sem_wait(&mallopt_now) != 0)
        ;
    mallopt(M_ARENA_MAX, 4);
    /* Counted without a malloc here, which would make glibc fix its
     * limit at once: the main one and the workers that have malloced
     * (the next is started only once the last has). */
    atomic_store(&at_mallopt, 1 + atomic_load(&attached));
    sem_post(&mallopt_done);
    return unused;
}

static void mallopt_while_setting(void)
{
    pthread_t c;
    if (pthread_create(&c, NULL, chooser, NULL) != 0)
        die("pthread_create", EAGAIN);
    atomic_store(&hold_mask_read, 1);
    for (int i = 0; i < 30; i++) {
        create(worker, NULL);
        wait_attached(i + 1);
        /* Without the library, the program's call comes here. */
        if (i == 6 && atomic_load(&hold_mask_read) == 1) {
            atomic_store(&hold_mask_read, 0);
            sem_post(&mallopt_now);
            while (sem_wait(&mallopt_done) != 0)
                ;
        }
    }
    pthread_join(c, NULL);
    printf("at-mallopt=%d\n", atomic_load(&at_mallopt));
}

sem_t afx_ctor_go;

static void *first_call_unseen(void *unused)
{
    while (sem_wait(&afx_ctor_go) != 0)
        ;
    sleep_ms(50);
    pthread_t t;
    int rc = pthread_create(&t, NULL, once, NULL);
    if (rc == 0)
        pthread_join(t, NULL);
    printf("unseen-create=%d\n", rc);
    return unused;
}

/* The thread that makes the first call is started through glibc's own
 * pthread_create (looked up by version, past arenafix's unversioned
 * one), not by a SIGEV_THREAD timer, whose timer_create arenafix now
 * sees (and binds at). */
static void dlopen_while_first_call(const char *lib)
{
    sem_init(&afx_ctor_go, 0, 0);
    afx_create_fn *unseen = afx_glibc_pthread_create();
    pthread_t t;
    if (unseen == NULL || unseen(&t, NULL, first_call_unseen, NULL) != 0)
        die("glibc's pthread_create", ENOENT);
    if (dlopen(lib, RTLD_NOW) == NULL)
        die(dlerror(), ENOENT);
    pthread_join(t, NULL);
}

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static volatile int came_back;

static void *cancelled_creator(void *unused)
{
    pthread_mutex_lock(&held);
    pthread_cancel(pthread_self());     /* pending: deferred */
    pthread_t t;
    pthread_attr_t detached;
    pthread_attr_init(&detached);
    pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &detached, once, NULL);
    came_back = 1;      /* nothing before here is a cancellation point */
    pthread_mutex_unlock(&held);
    return unused;
}

static void cancel_pending(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, cancelled_creator, NULL) != 0)
        die("pthread_create", EAGAIN);
    pthread_join(t, NULL);
    printf("came-back=%s mutex=%s\n", came_back ? "yes" : "no",
           pthread_mutex_trylock(&held) == 0 ? "free" : "held");
}

static void narrow_in_handler(int unused)
{
    (void)unused;
    sched_setaffinity(0, sizeof one_cpu, &one_cpu);
}

static void *on_small_stack(void *unused)
{
    enum { SIZE = 8192 };
    static char stacks[2][SIZE] __attribute__((aligned(64)));
    static atomic_int next;
    stack_t ss = { .ss_sp = stacks[atomic_fetch_add(&next, 1) & 1], .ss_size = SIZE };
    struct sigaction sa = { .sa_handler = narrow_in_handler, .sa_flags = SA_ONSTACK };
    if (sigaltstack(&ss, NULL) != 0 || sigaction(SIGUSR1, &sa, NULL) != 0)
        die("sigaltstack", errno);
    raise(SIGUSR1);
    sched_setaffinity(0, sizeof allowed, &allowed);
    return unused;
}

static void altstack(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, on_small_stack, NULL) != 0)
        die("pthread_create", EAGAIN);
    pthread_join(t, NULL);
    on_small_stack(NULL);
    printf("altstack=ok\n");
}

int main(int argc, char **argv)
{
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);
    sem_init(&release, 0, 0);
    sem_init(&fork_now, 0, 0);
    sem_init(&forked, 0, 0);
    sem_init(&spawned, 0, 0);
    sem_init(&mallopt_now, 0, 0);
    sem_init(&mallopt_done, 0, 0);
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "race") == 0)
        race();
    else if (strcmp(what, "readers") == 0)
        readers();
    else if (strcmp(what, "fork") == 0)
        fork_while_setting();
    else if (strcmp(what, "forkreuse") == 0) {
        child_starts = CHILD_SPAWNER;
        fork_while_inside();
    }
    else if (strcmp(what, "reenter") == 0) {
        atomic_store(&reenter, true);
        for (int i = 0; i < 30; i++)
            create(worker, &one_cpu);
        printf("reenter=ok\n");
    } else if (strcmp(what, "forkreuse-unseen") == 0) {
        child_starts = CHILD_SPAWNER_UNSEEN;
        fork_while_inside();
    }
    else if (strcmp(what, "emfile") == 0)
        emfile();
    else if (strcmp(what, "emfile-first") == 0)
        emfile_first();
    else if (strcmp(what, "noproc") == 0)
        noproc();
    else if (strcmp(what, "fewnoproc") == 0)
        fewnoproc();
    else if (strcmp(what, "mallopt") == 0)
        mallopt_while_setting();
    else if (strcmp(what, "dlopen") == 0 && argc > 2)
        dlopen_while_first_call(argv[2]);
    else if (strcmp(what, "cancel") == 0)
        cancel_pending();
    else if (strcmp(what, "altstack") == 0)
        altstack();
    else
        die("usage: moments race|readers|fork|forkreuse|forkreuse-unseen|reenter|emfile|emfile-first|noproc|fewnoproc|mallopt|dlopen LIB|cancel|altstack", EINVAL);
    /* Counted before the threads end: an arena outlives its thread, but
     * this is the count while they all run. */
    int n = arenas_now(atomic_load(&nthreads));
    join_all();
    printf("arenas=%d\n", n);
    return 0;
}
