/* The five workloads, run inside one scenario's child process. */
#ifndef AFB_WORKLOADS_H
#define AFB_WORKLOADS_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"

struct afb_job {
    enum afb_workload workload;
    int threads;
    long iterations;        /* per worker; total for the churn workloads */
    enum afb_pinpath pin;   /* AFB_P_NONE: unpinned */
    bool infix;             /* free(malloc(8)) before pinning */
    const cpu_set_t *slots; /* thread i goes to slots[i % nslots] */
    int nslots;
};

/* Iterations used when the user gave none: sized so that the default
 * matrix takes a few minutes on 2 CPUs. */
long afb_default_iterations(enum afb_workload w);

/* One line describing what the workload does with these numbers. */
void afb_workload_describe(enum afb_workload w, int threads, long iterations, char *buf,
                           size_t len);

/* Run JOB in this process.  Returns 0 with OUT filled, or -1 with ERR. */
int afb_job_run(const struct afb_job *job, struct afb_metrics *out, char *err, size_t errlen);

/* The upstream reproducer's per-thread average, in ms (FIX: the
 * in-program free(malloc(8)) before pinning). */
double afb_repro_run(int nr_cpu, bool pin, bool fix, long iterations, const cpu_set_t *slots,
                     int nslots);

#endif
