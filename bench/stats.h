/* The collected runs, their medians, the ratios against the baseline
 * and the targets checked against them.  Pure. */
#ifndef AFB_STATS_H
#define AFB_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum afb_status { AFB_NOT_RUN, AFB_OK, AFB_UNAVAILABLE, AFB_FAILED };

struct afb_cell {
    enum afb_status status;
    int nruns;
    struct afb_metrics *runs;  /* nruns of them */
    struct afb_metrics median;
    char note[160];            /* why unavailable or failed */
};

struct afb_results {
    struct afb_cell cell[AFB_W_COUNT][AFB_G_COUNT][AFB_S_COUNT];
    int threads;
    long iterations[AFB_W_COUNT];
    int online_cpus;
    enum afb_pinpath pin;
};

/* The median of N values (the mean of the middle two when N is even).
 * Sorts V in place.  0 for N == 0. */
double afb_median(double *v, int n);

/* Record one run's metrics in a cell (allocates). */
void afb_cell_add(struct afb_cell *c, const struct afb_metrics *m);
/* Fill every cell's median from its runs. */
void afb_results_finish(struct afb_results *r);
void afb_results_free(struct afb_results *r);

/* The baseline a row is compared with: the fixed (system) glibc, same
 * workload, pinned the same way.  NULL when it was not run. */
const struct afb_cell *afb_baseline(const struct afb_results *r, enum afb_workload w);

/* The arenas a fixed glibc gives THREADS threads that all live at once:
 * one each plus main's, up to its limit of 8 per online CPU (2 on 32-bit
 * hosts). */
int afb_fixed_arenas(int threads, int online_cpus);

/* A / B, with 0/0 read as 1 (no lock waits either side is parity) and
 * x/0 as infinity.  NAN when either is missing. */
double afb_ratio(double a, double b);

/* A ratio for people: "1.23"; "n/a" for x/0 (the caller says why),
 * "-" when it cannot be formed.  Never "inf" or "nan". */
void afb_format_ratio(char *buf, size_t len, double q);

/* N timings as "median [min-max]" ("230 [219-251]"), with as many
 * decimals as the median's size needs; just the value for one run, "-"
 * for none or a value that is not a number.  V is not changed. */
void afb_format_spread(char *buf, size_t len, const double *v, int n);

/* Timings mean something only where every thread has a CPU of its own
 * and the host has CPUs to spare for the rest of its work: no more
 * threads than online CPUs, and at least this many of them.  Below it
 * the times measure the scheduler and the neighbours, not malloc. */
#define AFB_TIMING_MIN_CPUS 8

/* NULL where timings mean something (the rule above); else why not, in
 * BUF ("16 threads on 2 online CPUs"). */
const char *afb_timing_caveat(int threads, int online_cpus, char *buf, size_t len);

struct afb_check {
    char name[96];
    char detail[160];
    double value, target;
    int verdict; /* 1 met, 0 missed, -1 not measurable here */
};

/* The targets, as far as this run's cells allow.  Returns how
 * many were written to OUT (at most MAX). */
int afb_checks(const struct afb_results *r, struct afb_check *out, int max);

#endif
