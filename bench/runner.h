/* The scenario runner: each run is a child process (this program again,
 * "run-one ..."), under the affected glibc's loader when the run is for
 * it, with the scenario's environment.  The child prints one result line
 * on stdout, which the parent reads back. */
#ifndef AFB_RUNNER_H
#define AFB_RUNNER_H

#include <stddef.h>

#include "model.h"

struct afb_run {
    const char *self;       /* this program, absolute */
    const char *glibc_dir;  /* the affected glibc, or NULL for the system's */
    enum afb_scenario scenario;
    const char *preload;    /* for the shim scenarios */
    int arena_max;          /* for the tunable scenario */
    enum afb_workload workload;
    int threads;
    long iterations;
    enum afb_pinpath pin;   /* for the pinned scenarios */
    const char *slots;      /* "cpus/cpus/...", one per thread */
};

/* Run one scenario.  Returns 0 with OUT filled, or -1 with ERR. */
int afb_run_one(const struct afb_run *run, struct afb_metrics *out, char *err, size_t errlen);

/* The child's side: argv after "run-one".  Returns the exit status. */
int afb_child_main(int argc, char **argv);

/* The result line: "afb-result wall_ms=... maxrss_kb=...". */
void afb_result_format(const struct afb_metrics *m, char *buf, size_t len);
/* Parse it back; -1 unless every metric is there. */
int afb_result_parse(const char *line, struct afb_metrics *m);

/* The first directory of LIST, a colon-separated list as the tests'
 * ARENAFIX_AFFECTED_GLIBC is (empty entries skipped), in BUF; NULL if
 * LIST names none.  The benchmark runs one affected glibc. */
const char *afb_first_glibc(const char *list, char *buf, size_t len);

/* Does DIR hold a loader and libc we can run programs with? */
int afb_glibc_dir_usable(const char *dir);

#endif
