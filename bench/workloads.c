/* The workloads (workloads.h).  Every worker is pinned before its first
 * malloc, as the software that meets glibc bug 30945 does, and times
 * itself; the harness counts the arenas glibc ended up with. */
#include "workloads.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arenacount.h"
#include "pin.h"

long afb_default_iterations(enum afb_workload w)
{
    static const long def[AFB_W_COUNT] = { 1000000, 50000, 20000, 1000, 10000 };
    return def[w];
}

void afb_workload_describe(enum afb_workload w, int threads, long it, char *buf, size_t len)
{
    switch (w) {
    case AFB_W_REPRO:
        snprintf(buf, len, "%d threads x %ld malloc+free pairs of 1.1-4.6 KiB (beyond the tcache)",
                 threads, it);
        break;
    case AFB_W_MIXED:
        snprintf(buf, len, "%d threads x %ld batches of 16 blocks, half freed by the next thread",
                 threads, it);
        break;
    case AFB_W_THREADS:
        snprintf(buf, len, "%ld thread create+join, one at a time, each thread mallocs once", it);
        break;
    case AFB_W_EXEC:
        snprintf(buf, len, "%ld fork+exec of /bin/true (the preload, if any, goes along)", it);
        break;
    default:
        snprintf(buf, len, "%d threads x %ld connections: about 70 KiB in 25 blocks, touched, freed",
                 threads, it);
        break;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long thread_nvcsw(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nvcsw;
}

/* ---- the mixed workload's hand-off: one single-producer ring per thread */
#define RING 256
struct ring {
    _Atomic unsigned head, tail;
    void *slot[RING];
} __attribute__((aligned(64)));

static int ring_push(struct ring *r, void *p)
{
    unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t - atomic_load_explicit(&r->head, memory_order_acquire) == RING)
        return 0;
    r->slot[t % RING] = p;
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return 1;
}

static void *ring_pop(struct ring *r)
{
    unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h == atomic_load_explicit(&r->tail, memory_order_acquire))
        return NULL;
    void *p = r->slot[h % RING];
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return p;
}

/* ---- the harness ------------------------------------------------------ */
struct worker {
    const struct afb_job *job;
    int index;
    struct ring *rings;
    pthread_barrier_t *start, *produced;
    double t0, t1; /* this worker's start and end, CLOCK_MONOTONIC ms */
    long nvcsw;
    int error;     /* errno value from pinning or from the workload */
};

static void drain(struct ring *r)
{
    void *p;
    while ((p = ring_pop(r)) != NULL)
        free(p);
}

static void body_repro(long iterations)
{
    for (long i = 0; i < iterations; i++) {
        /* volatile: gcc deletes an unused malloc+free pair otherwise */
        char *volatile p = malloc(1100 + (size_t)(i & 7) * 512);
        p[0] = 1;
        free(p);
    }
}

static void body_mixed(struct worker *w)
{
    struct ring *mine = &w->rings[w->index];
    struct ring *next = &w->rings[(w->index + 1) % w->job->threads];
    for (long i = 0; i < w->job->iterations; i++) {
        void *batch[16];
        for (int k = 0; k < 16; k++) {
            size_t size = (size_t)16 << ((k + i) % 9); /* 16 B .. 4 KiB */
            batch[k] = malloc(size);
            memset(batch[k], k, 16);
        }
        for (int k = 0; k < 8; k++)
            free(batch[k]);
        for (int k = 8; k < 16; k++)
            if (!ring_push(next, batch[k]))
                free(batch[k]);
        drain(mine);
    }
}

static void body_conn(long connections)
{
    for (long c = 0; c < connections; c++) {
        void *blocks[25];
        for (int k = 0; k < 24; k++) {
            size_t size = 512 + (size_t)((k * 7 + c) % 8) * 512;
            blocks[k] = malloc(size);
            memset(blocks[k], (int)c, size);
        }
        blocks[24] = malloc(16384); /* the connection's net buffer */
        memset(blocks[24], 0, 16384);
        for (int k = 24; k >= 0; k--)
            free(blocks[k]);
    }
}

static void *churn_thread(void *arg)
{
    (void)arg;
    void *volatile p = malloc(64);
    free(p);
    return NULL;
}

static const char *true_path(void)
{
    return access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true";
}

static int body_threads(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, churn_thread, NULL);
        if (rc != 0)
            return rc;
        pthread_join(t, NULL);
    }
    return 0;
}

static int body_exec(long n)
{
    const char *prog = true_path();
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return errno;
        if (pid == 0) {
            execl(prog, prog, (char *)NULL);
            _exit(127);
        }
        int status;
        if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return ECHILD;
    }
    return 0;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const struct afb_job *job = w->job;
    if (job->infix) {
        void *volatile p = malloc(8); /* attach an arena while all CPUs are seen */
        free(p);
    }
    w->error = afb_pin_self(job->pin, &job->slots[w->index % job->nslots]);
    /* The first malloc attaches this thread to an arena.  Every worker
     * attaches before any starts work and none exits before all have
     * attached, as in a server whose threads all live at once; else
     * arenas freed by early finishers are handed to late starters and the
     * count says more about scheduling than about glibc. */
    if (job->workload != AFB_W_THREADS && job->workload != AFB_W_EXEC) {
        void *volatile p = malloc(1100);
        free(p);
    }
    pthread_barrier_wait(w->start);
    long cs0 = thread_nvcsw();
    w->t0 = now_ms();
    int rc = 0;
    switch (job->workload) {
    case AFB_W_REPRO: body_repro(job->iterations); break;
    case AFB_W_MIXED: body_mixed(w); break;
    case AFB_W_THREADS: rc = body_threads(job->iterations); break;
    case AFB_W_EXEC: rc = body_exec(job->iterations); break;
    default: body_conn(job->iterations); break;
    }
    w->t1 = now_ms();
    w->nvcsw = thread_nvcsw() - cs0;
    if (rc != 0 && w->error == 0)
        w->error = rc;
    if (job->workload == AFB_W_MIXED) {
        pthread_barrier_wait(w->produced); /* nobody pushes after this */
        drain(&w->rings[w->index]);
    }
    return NULL;
}

/* The churn workloads are one driver thread; the others, one per job
 * thread. */
static int workers_for(const struct afb_job *job)
{
    return job->workload == AFB_W_THREADS || job->workload == AFB_W_EXEC ? 1 : job->threads;
}

static double ops_of(const struct afb_job *job)
{
    switch (job->workload) {
    case AFB_W_MIXED: return (double)job->threads * (double)job->iterations * 16;
    case AFB_W_THREADS:
    case AFB_W_EXEC: return (double)job->iterations;
    default: return (double)job->threads * (double)job->iterations;
    }
}

int afb_job_run(const struct afb_job *job, struct afb_metrics *out, char *err, size_t errlen)
{
    int n = workers_for(job);
    struct worker *ws = calloc((size_t)n, sizeof *ws);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    struct ring *rings = NULL;
    if (job->workload == AFB_W_MIXED && posix_memalign((void **)&rings, 64, sizeof *rings * (size_t)n) == 0)
        memset(rings, 0, sizeof *rings * (size_t)n);
    pthread_barrier_t start, produced;
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    pthread_barrier_init(&produced, NULL, (unsigned)n);

    int prep = afb_pin_prepare(job->pin);
    if (prep != 0) {
        snprintf(err, errlen, "loading the hwloc topology to bind with: %s", strerror(prep));
        return -1;
    }
    /* inherit: main pins itself first, as `taskset` or an init script
     * would, and every thread is born with that mask. */
    if (job->pin == AFB_P_INHERIT && sched_setaffinity(0, sizeof job->slots[0], &job->slots[0]) != 0) {
        snprintf(err, errlen, "pinning the main thread: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        if (job->pin == AFB_P_ATTR)
            pthread_attr_setaffinity_np(&attr, sizeof job->slots[0], &job->slots[i % job->nslots]);
        ws[i] = (struct worker){ .job = job, .index = i, .rings = rings, .start = &start,
                                 .produced = &produced };
        int rc = pthread_create(&tids[i], &attr, worker_main, &ws[i]);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            snprintf(err, errlen, "pthread_create: %s", strerror(rc));
            return -1;
        }
    }
    pthread_barrier_wait(&start);
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);

    /* Wall time from the workers' own clocks: on a small host the main
     * thread may not run again until most of them are done. */
    double sum_ms = 0, sum_cs = 0, first = ws[0].t0, last = ws[0].t1;
    for (int i = 0; i < n; i++) {
        if (ws[i].error != 0) {
            snprintf(err, errlen, "worker %d: %s", i, strerror(ws[i].error));
            return -1;
        }
        sum_ms += ws[i].t1 - ws[i].t0;
        sum_cs += (double)ws[i].nvcsw;
        first = ws[i].t0 < first ? ws[i].t0 : first;
        last = ws[i].t1 > last ? ws[i].t1 : last;
    }
    double wall = last - first;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *out = (struct afb_metrics){
        .wall_ms = wall,
        .ops_per_s = ops_of(job) / (wall / 1e3),
        .thread_avg_ms = sum_ms / n,
        .arenas = (double)afx_count_arenas(),
        .lockwaits = sum_cs / n,
        .minflt = (double)ru.ru_minflt,
        .maxrss_kb = (double)ru.ru_maxrss,
    };
    free(rings);
    free(ws);
    free(tids);
    return 0;
}

double afb_repro_run(int nr_cpu, bool pin, bool fix, long iterations, const cpu_set_t *slots,
                     int nslots)
{
    struct afb_job job = {
        .workload = AFB_W_REPRO, .threads = nr_cpu, .iterations = iterations,
        .pin = pin ? AFB_P_SELF : AFB_P_NONE, .infix = fix, .slots = slots, .nslots = nslots,
    };
    struct afb_metrics m;
    char err[160];
    if (afb_job_run(&job, &m, err, sizeof err) != 0) {
        fprintf(stderr, "arenafix-bench: repro: %s\n", err);
        exit(1);
    }
    return m.thread_avg_ms;
}
