/* What touch mode must keep as glibc gives it, and the arenas it must
 * leave to threads that never allocate:
 *
 *   touchprobe threads HOW THREADS ALLOCATING
 *       THREADS threads run at once; ALLOCATING of them malloc after
 *       their pinning.  HOW: none, attr (born pinned by their attribute),
 *       attr-all (an attribute with every allowed CPU: born wide),
 *       creator (main pins itself first), self (each pins itself with
 *       sched_setaffinity), c11-self, c11-default, c11-creator (the same
 *       through thrd_create; default: pthread_setattr_default_np).
 *       Prints "arenas=N wrong-cpu=N wrong-join=N": threads not on
 *       their CPU when they allocate, thrd_join results that are not
 *       the routine's int.
 *   touchprobe detached N
 *       N detached threads, half born pinned by their attribute: each is
 *       detached from its start (pthread_tryjoin_np in the creator gives
 *       EINVAL to a join, pthread_getattr_np in the thread says so).
 *   touchprobe errno
 *       errno after pthread_create and thrd_create that succeed and that
 *       fail (a stack mmap cannot give), errno 1234 before each.
 *   touchprobe attr
 *       a thread whose attribute pins it to the last allowed CPU, with a
 *       guard size, stack size and explicit SCHED_OTHER, created by a
 *       SCHED_BATCH thread (glibc's attribute takes no other policy that
 *       needs no privilege): what it sees.
 *   touchprobe sigpin HOW [THREADS]
 *       THREADS (20) threads in turn, each pinned once (HOW: self, attr), keep
 *       allocating while main floods them with a signal whose handler
 *       narrows the mask again: a touched thread's narrowing must malloc
 *       nothing, or the handler's malloc deadlocks in the one it
 *       interrupted.  Prints "sigpin: ok", or "sigpin: hung" (and exits
 *       1) when a thread stops for ten seconds (every test program
 *       pins to the first CPU: suites run side by side share it).
 *   touchprobe stack HOW
 *       bytes of stack below the routine's frame (HOW: none, attr,
 *       creator, self, c11-default).
 *   touchprobe placement HOW N
 *       N threads in turn, born on the first allowed CPU (HOW: attr,
 *       creator, c11-default), each moved to the last one by its creator
 *       (there itself, but for creator) with pthread_setaffinity_np as
 *       soon as the create returns; the
 *       thread reads its mask after a barrier the creator passes after
 *       the move.  Prints "placement: lost=N wrong-birth=N": threads
 *       that found another mask than their creator's, creates after
 *       which the creator read another mask than the birth one.  Exits
 *       3 with one allowed CPU (no second mask to tell apart).
 * Pinning is to the first allowed CPU, except in attr. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "arenas.h"

enum { MAX_THREADS = 1000 };

static cpu_set_t allowed, one_cpu;
static const char *how;
static pthread_barrier_t all_there;
static atomic_int wrong_cpu;
static int allocating;

static void die(const char *what, int err)
{
    fprintf(stderr, "touchprobe: %s: %s\n", what, strerror(err));
    exit(2);
}

static bool is(const char *name)
{
    return strcmp(how, name) == 0;
}

static bool pins_self(void)
{
    return is("self") || is("c11-self");
}

static bool pinned(void)
{
    return !is("none") && !is("attr-all");
}

/* The attribute or process default that pins to one_cpu. */
static void pin_attr(pthread_attr_t *attr)
{
    int rc = pthread_attr_setaffinity_np(attr, sizeof one_cpu, &one_cpu);
    if (rc != 0)
        die("pthread_attr_setaffinity_np", rc);
}

static void set_default_pinned(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pin_attr(&attr);
    int rc = pthread_setattr_default_np(&attr);
    if (rc != 0)
        die("pthread_setattr_default_np", rc);
    pthread_attr_destroy(&attr);
}

static void pin_creator(void)
{
    if (sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
}

/* ---- threads: arenas --------------------------------------------------- */

static void work(long i)
{
    if (pins_self() && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    cpu_set_t now;
    if (pinned() && (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &one_cpu)))
        atomic_fetch_add(&wrong_cpu, 1);
    /* glibc 2.35 as released counts stack bytes as CPUs (arenas.h). */
    clear_stack_below();
    void *volatile p = i < allocating ? malloc(200) : NULL;  /* the first malloc */
    pthread_barrier_wait(&all_there);
    free(p);
}

static void *posix_worker(void *arg)
{
    work((long)(intptr_t)arg);
    return NULL;
}

static int c11_worker(void *arg)
{
    work((long)(intptr_t)arg);
    return 1000 + (int)(intptr_t)arg;
}

static int threads(int n, int alloc)
{
    bool c11 = strncmp(how, "c11-", 4) == 0;
    const char *kind = c11 ? how + 4 : how;
    if (n < 1 || n > MAX_THREADS || alloc < 0)
        return 2;
    allocating = alloc;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (strcmp(kind, "attr") == 0)
        pin_attr(&attr);
    else if (strcmp(kind, "attr-all") == 0)
        pthread_attr_setaffinity_np(&attr, sizeof allowed, &allowed);
    else if (strcmp(kind, "creator") == 0)
        pin_creator();
    else if (strcmp(kind, "default") == 0)
        set_default_pinned();
    else if (strcmp(kind, "none") != 0 && strcmp(kind, "self") != 0)
        return 2;

    pthread_barrier_init(&all_there, NULL, (unsigned)n);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    thrd_t *c11ids = calloc((size_t)n, sizeof *c11ids);
    for (int i = 0; i < n; i++) {
        void *arg = (void *)(intptr_t)i;
        int rc = c11 ? thrd_create(&c11ids[i], c11_worker, arg)
                     : pthread_create(&tids[i], &attr, posix_worker, arg);
        if (rc != (c11 ? thrd_success : 0))
            die(c11 ? "thrd_create" : "pthread_create", c11 ? EAGAIN : rc);
    }
    int wrong_join = 0;
    for (int i = 0; i < n; i++) {
        int res = -1;
        if (!c11)
            pthread_join(tids[i], NULL);
        else if (thrd_join(c11ids[i], &res) != thrd_success || res != 1000 + i)
            wrong_join++;
    }
    printf("arenas=%d wrong-cpu=%d wrong-join=%d\n", count_arenas(), atomic_load(&wrong_cpu),
           wrong_join);
    return 0;
}

/* ---- detached ------------------------------------------------------------ */

static sem_t go, gone;
static atomic_int not_detached_inside;

static void *wait_for_go(void *arg)
{
    pthread_attr_t self;
    int state = -1;
    (void)arg;
    if (pthread_getattr_np(pthread_self(), &self) == 0) {
        pthread_attr_getdetachstate(&self, &state);
        pthread_attr_destroy(&self);
    }
    if (state != PTHREAD_CREATE_DETACHED)
        atomic_fetch_add(&not_detached_inside, 1);
    while (sem_wait(&go) != 0)
        ;
    sem_post(&gone);
    return NULL;
}

static int detached(int n)
{
    int joinable = 0;
    sem_init(&go, 0, 0);
    sem_init(&gone, 0, 0);
    for (int i = 0; i < n; i++) {
        pthread_attr_t attr;
        pthread_t t;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (i % 2 == 1)
            pin_attr(&attr);
        int rc = pthread_create(&t, &attr, wait_for_go, NULL);
        if (rc != 0)
            die("pthread_create", rc);
        pthread_attr_destroy(&attr);
        /* The thread waits for go: its handle is valid here.  A join
         * that cannot wait gives EINVAL for a detached thread, ETIMEDOUT
         * for a joinable one. */
        struct timespec past = { 0, 0 };
        if (pthread_timedjoin_np(t, NULL, &past) != EINVAL)
            joinable++;
        sem_post(&go);
        while (sem_wait(&gone) != 0)
            ;
    }
    printf("joinable=%d not-detached-inside=%d\n", joinable, atomic_load(&not_detached_inside));
    return 0;
}

/* ---- errno ---------------------------------------------------------------- */

static void *nothing(void *arg)
{
    return arg;
}

static int c11_nothing(void *arg)
{
    (void)arg;
    return 0;
}

static void show_errno(const char *what, int rc, int err)
{
    printf("%s: rc=%d errno=%d\n", what, rc, err);
}

static int errno_after(void)
{
    /* More than any address space gives: the stack's mmap fails. */
    size_t huge = sizeof(void *) == 8 ? (size_t)1 << 46 : (size_t)3 << 30;
    pthread_attr_t plain, pinned_attr, too_big, too_big_pinned;
    pthread_attr_init(&plain);
    pthread_attr_init(&pinned_attr);
    pin_attr(&pinned_attr);
    pthread_attr_init(&too_big);
    pthread_attr_setstacksize(&too_big, huge);
    pthread_attr_init(&too_big_pinned);
    pthread_attr_setstacksize(&too_big_pinned, huge);
    pin_attr(&too_big_pinned);
    const struct {
        const char *name;
        pthread_attr_t *attr;
    } cases[] = { { "plain", &plain },
                  { "pinned", &pinned_attr },
                  { "no-stack", &too_big },
                  { "no-stack-pinned", &too_big_pinned } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pthread_t t;
        errno = 1234;
        int rc = pthread_create(&t, cases[i].attr, nothing, NULL);
        show_errno(cases[i].name, rc, errno);
        if (rc == 0)
            pthread_join(t, NULL);
    }
    thrd_t c;
    errno = 1234;
    int rc = thrd_create(&c, c11_nothing, NULL);
    show_errno("c11", rc, errno);
    if (rc == thrd_success)
        thrd_join(c, NULL);
    /* The process default, which C11 threads take, without a stack. */
    set_default_pinned();
    pthread_attr_t defaults;
    pthread_getattr_default_np(&defaults);
    pthread_attr_setstacksize(&defaults, huge);
    pthread_setattr_default_np(&defaults);
    errno = 1234;
    rc = thrd_create(&c, c11_nothing, NULL);
    show_errno("c11-no-stack", rc, errno);
    if (rc == thrd_success)
        thrd_join(c, NULL);
    return 0;
}

/* ---- attr ------------------------------------------------------------------ */

static void *report_attr(void *arg)
{
    (void)arg;
    cpu_set_t now;
    sched_getaffinity(0, sizeof now, &now);
    printf("cpus:");
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &now))
            printf(" %d", c);
    pthread_attr_t self;
    size_t guard = 0, stack = 0;
    int detach = -1, policy = -1;
    struct sched_param param;
    if (pthread_getattr_np(pthread_self(), &self) == 0) {
        pthread_attr_getguardsize(&self, &guard);
        pthread_attr_getstacksize(&self, &stack);
        pthread_attr_getdetachstate(&self, &detach);
        pthread_attr_destroy(&self);
    }
    pthread_getschedparam(pthread_self(), &policy, &param);
    printf("\nguard=%zu stack=%zu policy=%s detached=%d\n", guard, stack,
           policy == SCHED_BATCH ? "SCHED_BATCH" : policy == SCHED_OTHER ? "SCHED_OTHER" : "other",
           detach == PTHREAD_CREATE_DETACHED);
    return NULL;
}

static int attr_kept(void)
{
    cpu_set_t last;
    CPU_ZERO(&last);
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &last);
            break;
        }
    pthread_attr_t attr;
    struct sched_param param = { .sched_priority = 0 };
    /* What an inheriting thread would take: not the attribute's policy. */
    int rc = pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
    if (rc != 0)
        die("pthread_setschedparam", rc);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof last, &last);
    pthread_attr_setguardsize(&attr, 3 * (size_t)sysconf(_SC_PAGESIZE));
    pthread_attr_setstacksize(&attr, 3 << 20);
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
    pthread_attr_setschedparam(&attr, &param);
    pthread_t t;
    rc = pthread_create(&t, &attr, report_attr, NULL);
    if (rc != 0)
        die("pthread_create", rc);
    pthread_join(t, NULL);
    return 0;
}

/* ---- sigpin ------------------------------------------------------------- */

static atomic_long progress;
static atomic_bool stop;
static atomic_int handled;

static void narrow_again(int sig)
{
    int saved = errno;
    (void)sig;
    sched_setaffinity(0, sizeof allowed, &allowed);
    sched_setaffinity(0, sizeof one_cpu, &one_cpu);
    atomic_fetch_add(&handled, 1);
    errno = saved;
}

static void *allocate_on(void *arg)
{
    (void)arg;
    if (is("self") && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    /* Small blocks kept, so that a malloc(1) in the handler finds no
     * cached chunk and takes the arena lock; large ones that hold it. */
    enum { KEEP = 1 << 16 };
    static void *kept[KEEP];
    int held = 0;
    for (long i = 0; !atomic_load(&stop); i++) {
        if (held == KEEP)
            while (held > 0)
                free(kept[--held]);
        kept[held++] = malloc(1);
        void *volatile big = malloc(5000 + (size_t)(i % 64) * 16);
        free(big);
        atomic_store(&progress, i);
    }
    while (held > 0)
        free(kept[--held]);
    return NULL;
}

/* One thread after another, so that each one's first narrowing in the
 * handler (a malloc there, were its birth not marked as its touch) has
 * its own chance of landing inside the thread's malloc. */
static int sigpin(int threads)
{
    struct sigaction sa = { .sa_handler = narrow_again, .sa_flags = SA_RESTART };
    sigaction(SIGUSR1, &sa, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (is("attr"))
        pin_attr(&attr);
    else if (!is("self"))
        return 2;
    for (int n = 0; n < threads; n++) {
        atomic_store(&stop, false);
        atomic_store(&handled, 0);
        atomic_store(&progress, -1);
        pthread_t t;
        int rc = pthread_create(&t, &attr, allocate_on, NULL);
        if (rc != 0)
            die("pthread_create", rc);
        while (atomic_load(&progress) < 0)
            usleep(100);
        long last = -1;
        struct timespec now, moved;
        clock_gettime(CLOCK_MONOTONIC, &moved);
        while (atomic_load(&handled) < 100) {
            pthread_kill(t, SIGUSR1);
            usleep(50);
            clock_gettime(CLOCK_MONOTONIC, &now);
            long p = atomic_load(&progress);
            if (p != last) {
                last = p;
                moved = now;
            } else if (now.tv_sec - moved.tv_sec >= 10) {
                printf("sigpin: hung\n");
                fflush(stdout);
                _exit(1);
            }
        }
        atomic_store(&stop, true);
        pthread_join(t, NULL);
    }
    printf("sigpin: ok\n");
    return 0;
}

/* ---- stack ---------------------------------------------------------------- */

static long stack_below(void)
{
    pthread_attr_t self;
    void *low;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &self) != 0
        || pthread_attr_getstack(&self, &low, &size) != 0)
        return -1;
    pthread_attr_destroy(&self);
    return (long)((uintptr_t)__builtin_frame_address(0) - (uintptr_t)low);
}

static long seen_stack;

__attribute__((noinline)) static void *measure(void *arg)
{
    (void)arg;
    if (pins_self() && sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
        die("sched_setaffinity", errno);
    seen_stack = stack_below();
    return NULL;
}

static int c11_measure(void *arg)
{
    measure(arg);
    return 0;
}

static int stack(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    if (is("attr"))
        pin_attr(&attr);
    else if (is("creator"))
        pin_creator();
    else if (is("c11-default"))
        set_default_pinned();
    else if (!is("none") && !is("self"))
        return 2;
    int rc;
    if (is("c11-default")) {
        thrd_t t;
        if ((rc = thrd_create(&t, c11_measure, NULL)) != thrd_success)
            die("thrd_create", EAGAIN);
        thrd_join(t, NULL);
    } else {
        pthread_t t;
        if ((rc = pthread_create(&t, &attr, measure, NULL)) != 0)
            die("pthread_create", rc);
        pthread_join(t, NULL);
    }
    printf("stack=%ld\n", seen_stack);
    return 0;
}

/* ---- placement ------------------------------------------------------------ */

static cpu_set_t last_cpu;
static pthread_barrier_t moved;
static atomic_int lost;

static void check_placement(void)
{
    pthread_barrier_wait(&moved);
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof now, &now) != 0 || !CPU_EQUAL(&now, &last_cpu))
        atomic_fetch_add(&lost, 1);
}

static void *placed(void *arg)
{
    check_placement();
    return arg;
}

static int c11_placed(void *arg)
{
    (void)arg;
    check_placement();
    return 0;
}

static int placement(int n)
{
    CPU_ZERO(&last_cpu);
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &last_cpu);
            break;
        }
    if (CPU_EQUAL(&last_cpu, &one_cpu)) {
        printf("placement: one allowed CPU\n");
        return 3;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (is("attr"))
        pin_attr(&attr);
    else if (is("creator"))
        pin_creator();
    else if (is("c11-default"))
        set_default_pinned();
    else
        return 2;
    /* A creator on the other CPU runs on while the new thread starts:
     * a placement that comes while the thread is still being set up. */
    if (!is("creator") && sched_setaffinity(0, sizeof last_cpu, &last_cpu) != 0)
        die("sched_setaffinity", errno);
    pthread_barrier_init(&moved, NULL, 2);
    int wrong_birth = 0;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        int rc;
        if (is("c11-default")) {
            thrd_t c;
            rc = thrd_create(&c, c11_placed, NULL) == thrd_success ? 0 : EAGAIN;
            t = (pthread_t)c;  /* glibc's thrd_t is its pthread_t */
        } else {
            rc = pthread_create(&t, &attr, placed, NULL);
        }
        if (rc != 0)
            die("create", rc);
        cpu_set_t born;
        if (pthread_getaffinity_np(t, sizeof born, &born) != 0 || !CPU_EQUAL(&born, &one_cpu))
            wrong_birth++;
        /* A delay that varies from one thread to the next, so that the
         * move comes at every moment of the new thread's start. */
        for (volatile unsigned spin = (unsigned)i * 7919u % 16384u; spin > 0; spin--)
            ;
        if ((rc = pthread_setaffinity_np(t, sizeof last_cpu, &last_cpu)) != 0)
            die("pthread_setaffinity_np", rc);
        pthread_barrier_wait(&moved);
        pthread_join(t, NULL);
    }
    printf("placement: lost=%d wrong-birth=%d\n", atomic_load(&lost), wrong_birth);
    return 0;
}

int main(int argc, char **argv)
{
    if (!first_allowed_cpu(&allowed, &one_cpu))
        die("sched_getaffinity", errno);
    const char *check = argc > 1 ? argv[1] : "";
    how = argc > 2 ? argv[2] : "none";
    if (strcmp(check, "threads") == 0 && argc == 5)
        return threads(atoi(argv[3]), atoi(argv[4]));
    if (strcmp(check, "detached") == 0 && argc == 3)
        return detached(atoi(argv[2]));
    if (strcmp(check, "errno") == 0)
        return errno_after();
    if (strcmp(check, "attr") == 0)
        return attr_kept();
    if (strcmp(check, "sigpin") == 0 && (argc == 3 || (argc == 4 && atoi(argv[3]) > 0)))
        return sigpin(argc == 4 ? atoi(argv[3]) : 20);
    if (strcmp(check, "stack") == 0 && argc == 3)
        return stack();
    if (strcmp(check, "placement") == 0 && argc == 4)
        return placement(atoi(argv[3]));
    fprintf(stderr, "usage: touchprobe threads HOW THREADS ALLOCATING | detached N | errno | "
                    "attr | sigpin HOW [THREADS] | stack HOW | placement HOW N\n");
    return 2;
}
