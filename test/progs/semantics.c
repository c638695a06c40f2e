/* What a program relies on from pthread_create and the affinity calls,
 * checked from inside.  Run with and without the preload, in each mode:
 * the output must not change.
 *
 *   semantics [CHECK [LIMIT]]   CHECK: errno, errors, cancel, exit,
 *                               detached, tls, attrpin, all (the default);
 *                               LIMIT: milliseconds a failed create's
 *                               thread may take to leave /proc before it
 *                               counts as left behind (30000: a hang's
 *                               bound, waited out only on a failure)
 * Prints "CHECK: ok" or "CHECK: FAIL why" and exits 1 on a failure. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
static int limit_ms = 30000;

static void result(const char *check, const char *fail)
{
    if (fail != NULL) {
        printf("%s: FAIL %s\n", check, fail);
        failures++;
    } else {
        printf("%s: ok\n", check);
    }
}

/* The threads of this process, as /proc/self/task lists them: at most
 * max IDs into ids; how many, or -1. */
static int task_ids(long *ids, int max)
{
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        if (e->d_name[0] != '.' && n < max)
            ids[n++] = atol(e->d_name);
    closedir(dir);
    return n;
}

/* A thread is listed that was not among the n in was. */
static bool new_thread(const long *was, int n)
{
    long now[256];
    int k = task_ids(now, 256);
    for (int i = 0; i < k; i++) {
        bool known = false;
        for (int j = 0; j < n && !known; j++)
            known = now[i] == was[j];
        if (!known)
            return true;
    }
    return false;
}

static int first_cpu(cpu_set_t *one)
{
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    CPU_ZERO(one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, one);
            return c;
        }
    return -1;
}

static void *noop(void *arg)
{
    return arg;
}

/* Interposers must leave errno as it was when the call succeeds. */
static const char *check_errno(void)
{
    pthread_t t;
    cpu_set_t one;
    first_cpu(&one);
    errno = 4242;
    if (pthread_create(&t, NULL, noop, NULL) != 0)
        return "pthread_create failed";
    if (errno != 4242)
        return "pthread_create changed errno";
    pthread_join(t, NULL);
    errno = 4243;
    cpu_set_t all;
    sched_getaffinity(0, sizeof all, &all);
    if (sched_setaffinity(0, sizeof all, &all) != 0 || errno != 4243)
        return "sched_setaffinity changed errno";
    errno = 4244;
    if (pthread_setaffinity_np(pthread_self(), sizeof all, &all) != 0 || errno != 4244)
        return "pthread_setaffinity_np changed errno";
    return NULL;
}

/* Error numbers as glibc gives them, and no thread left behind. */
static const char *check_errors(void)
{
    static char why[128];
    cpu_set_t none;
    CPU_ZERO(&none);
    CPU_SET(CPU_SETSIZE - 1, &none);      /* a CPU no test host has */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof none, &none);
    pthread_t t;
    /* The thread glibc may start for it leaves /proc a little after
     * pthread_create returns (a joined one too): waited for, by its ID,
     * up to the limit; one left behind never leaves.  Threads that end
     * meanwhile (joined before) do not count. */
    long before[256];
    int n = task_ids(before, 256);
    if (n < 1)
        return "cannot list /proc/self/task";
    int rc = pthread_create(&t, &attr, noop, NULL);
    bool left = new_thread(before, n);
    for (int waited = 0; left && waited < limit_ms; waited++) {
        usleep(1000);
        left = new_thread(before, n);
    }
    pthread_attr_destroy(&attr);
    if (rc != EINVAL) {
        snprintf(why, sizeof why, "pthread_create with an impossible CPU set returned %d", rc);
        return why;
    }
    if (left) {
        snprintf(why, sizeof why, "a thread left behind by a failed create, still there after %d ms", limit_ms);
        return why;
    }
    errno = 0;
    if (sched_setaffinity(0, sizeof none, &none) != -1 || errno != EINVAL)
        return "sched_setaffinity with an impossible set did not fail with EINVAL";
    if ((rc = pthread_setaffinity_np(pthread_self(), sizeof none, &none)) != EINVAL) {
        snprintf(why, sizeof why, "pthread_setaffinity_np returned %d, not EINVAL", rc);
        return why;
    }
    return NULL;
}

static int cleaned;
static void cleanup(void *arg)
{
    (void)arg;
    cleaned = 1;
}

static void *wait_forever(void *arg)
{
    pthread_cleanup_push(cleanup, arg);
    for (;;)
        pause();
    pthread_cleanup_pop(0);
    return NULL;
}

static const char *check_cancel(void)
{
    pthread_t t;
    void *ret;
    if (pthread_create(&t, NULL, wait_forever, NULL) != 0)
        return "pthread_create failed";
    usleep(10000);
    pthread_cancel(t);
    pthread_join(t, &ret);
    if (ret != PTHREAD_CANCELED)
        return "join did not report PTHREAD_CANCELED";
    if (!cleaned)
        return "cleanup handler did not run";
    return NULL;
}

static void *exits(void *arg)
{
    pthread_exit(arg);
}

static const char *check_exit(void)
{
    pthread_t t;
    void *ret;
    if (pthread_create(&t, NULL, exits, (void *)42) != 0)
        return "pthread_create failed";
    pthread_join(t, &ret);
    return ret == (void *)42 ? NULL : "pthread_exit value lost";
}

static sem_t detached_ran;
static int detached_state;

static void *report_detach(void *arg)
{
    pthread_attr_t self;
    (void)arg;
    pthread_getattr_np(pthread_self(), &self);
    pthread_attr_getdetachstate(&self, &detached_state);
    pthread_attr_destroy(&self);
    sem_post(&detached_ran);
    return NULL;
}

/* Detached, plain and born pinned (the path where the shim recreates
 * the attribute). */
static const char *check_detached(void)
{
    for (int pinned = 0; pinned < 2; pinned++) {
        pthread_attr_t attr;
        pthread_t t;
        cpu_set_t one;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pinned) {
            first_cpu(&one);
            pthread_attr_setaffinity_np(&attr, sizeof one, &one);
        }
        sem_init(&detached_ran, 0, 0);
        detached_state = -1;
        if (pthread_create(&t, &attr, report_detach, NULL) != 0)
            return "pthread_create failed";
        pthread_attr_destroy(&attr);
        sem_wait(&detached_ran);
        if (detached_state != PTHREAD_CREATE_DETACHED)
            return pinned ? "pinned thread is not detached" : "thread is not detached";
    }
    return NULL;
}

static pthread_key_t key;
static int destroyed;
static _Thread_local int tls_value = 7;

static void destroy(void *value)
{
    if (value == (void *)&key)
        __atomic_add_fetch(&destroyed, 1, __ATOMIC_SEQ_CST);
}

static void *use_tls(void *arg)
{
    pthread_setspecific(key, &key);
    tls_value++;
    (void)arg;
    return (void *)(long)tls_value;
}

static const char *check_tls(void)
{
    pthread_key_create(&key, destroy);
    for (int i = 0; i < 4; i++) {
        pthread_t t;
        void *ret;
        if (pthread_create(&t, NULL, use_tls, NULL) != 0)
            return "pthread_create failed";
        pthread_join(t, &ret);
        if ((long)ret != 8)
            return "thread-local storage was not fresh in a new thread";
    }
    return destroyed == 4 ? NULL : "thread-specific destructors did not run";
}

static void *report_affinity(void *arg)
{
    cpu_set_t *seen = arg;
    sched_getaffinity(0, sizeof *seen, seen);
    return NULL;
}

/* Born pinned: the user's code already runs on the attribute's CPUs. */
static const char *check_attrpin(void)
{
    cpu_set_t one, seen;
    pthread_attr_t attr;
    pthread_t t;
    first_cpu(&one);
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof one, &one);
    pthread_attr_setstacksize(&attr, 1 << 20);
    if (pthread_create(&t, &attr, report_affinity, &seen) != 0)
        return "pthread_create failed";
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    return CPU_EQUAL(&one, &seen) ? NULL : "thread did not start on its attribute's CPUs";
}

static const struct {
    const char *name;
    const char *(*run)(void);
} checks[] = {
    { "errno", check_errno },   { "errors", check_errors },     { "cancel", check_cancel },
    { "exit", check_exit },     { "detached", check_detached }, { "tls", check_tls },
    { "attrpin", check_attrpin },
};

int main(int argc, char **argv)
{
    const char *want = argc > 1 ? argv[1] : "all";
    if (argc > 2 && (limit_ms = atoi(argv[2])) <= 0) {
        fprintf(stderr, "semantics: LIMIT %s is not a number of milliseconds\n", argv[2]);
        return 2;
    }
    int ran = 0;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (strcmp(want, "all") != 0 && strcmp(want, checks[i].name) != 0)
            continue;
        result(checks[i].name, checks[i].run());
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "semantics: unknown check %s\n", want);
        return 2;
    }
    return failures ? 1 : 0;
}
