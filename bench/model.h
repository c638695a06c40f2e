/* The benchmark's vocabulary: workloads, scenarios, glibcs, pinning
 * paths, and what one run measures.  Shared by every part of bench/. */
#ifndef AFB_MODEL_H
#define AFB_MODEL_H

enum afb_workload {
    AFB_W_REPRO,    /* the upstream reproducer: malloc+free pairs */
    AFB_W_MIXED,    /* batches, cross-thread frees */
    AFB_W_THREADS,  /* thread create+join churn */
    AFB_W_EXEC,     /* fork+exec churn */
    AFB_W_CONN,     /* per-connection alloc/work/free */
    AFB_W_COUNT
};

enum afb_scenario {
    AFB_S_UNPINNED,     /* no pinning at all */
    AFB_S_PINNED,       /* pinned before the first malloc, no fix */
    AFB_S_INFIX,        /* free(malloc(8)) in the thread before pinning */
    AFB_S_TUNABLE,      /* GLIBC_TUNABLES=glibc.malloc.arena_max=8*CPUs */
    AFB_S_SHIM_MALLOPT, /* LD_PRELOAD=libarenafix.so ARENAFIX_MODE=... */
    AFB_S_SHIM_TOUCH,
    AFB_S_SHIM_BOTH,
    AFB_S_COUNT
};

enum afb_glibc {
    AFB_G_SYSTEM,   /* whatever the host runs: the reference */
    AFB_G_AFFECTED, /* ARENAFIX_AFFECTED_GLIBC's loader */
    AFB_G_COUNT
};

enum afb_pinpath {
    AFB_P_NONE,     /* leave the thread where the scheduler puts it */
    AFB_P_SELF,     /* the thread pins itself: sched_setaffinity(0) */
    AFB_P_PTHREAD,  /* pthread_setaffinity_np(pthread_self()) */
    AFB_P_ATTR,     /* born pinned: pthread_attr_setaffinity_np */
    AFB_P_INHERIT,  /* main pins itself first, threads inherit its mask */
    AFB_P_HWLOC,    /* the thread binds itself: hwloc_set_cpubind(THREAD) */
    AFB_P_COUNT
};

/* Names as the user types them and as the outputs print them. */
extern const char *const afb_workload_names[AFB_W_COUNT];
extern const char *const afb_scenario_names[AFB_S_COUNT];
extern const char *const afb_glibc_names[AFB_G_COUNT];
extern const char *const afb_pinpath_names[AFB_P_COUNT];

/* Index of NAME in NAMES[0..n), or -1. */
int afb_lookup(const char *const *names, int n, const char *name);

/* What one child process measured.  Times in milliseconds. */
struct afb_metrics {
    double wall_ms;       /* the workload's wall time, start to join */
    double ops_per_s;     /* operations (workload's unit) per second */
    double thread_avg_ms; /* mean of each worker's own time */
    double arenas;        /* malloc_info's <heap nr=...> count at the end */
    double lockwaits;     /* voluntary context switches per worker thread */
    double minflt;        /* minor faults of the whole child */
    double maxrss_kb;     /* peak resident set of the child */
};

#define AFB_METRIC_COUNT 7
/* The metrics as an array, in the order above, for medians and output. */
double *afb_metric_at(struct afb_metrics *m, int i);
extern const char *const afb_metric_names[AFB_METRIC_COUNT];

#endif
