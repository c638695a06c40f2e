/* The command line: parsed into a plain struct by a pure function, so
 * every flag and every error message is unit-tested without running a
 * benchmark. */
#ifndef AFB_OPTIONS_H
#define AFB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum afb_command {
    AFB_CMD_MATRIX,   /* the default: run the scenario matrix */
    AFB_CMD_PLACEMENT,/* --show-placement: print the plan and exit */
    AFB_CMD_REPRO,    /* repro NR_CPU PIN FIX: the upstream program */
    AFB_CMD_CHILD,    /* run-one ...: one scenario, inside its child */
    AFB_CMD_HELP,
    AFB_CMD_VERSION,
};

enum afb_spread { AFB_SPREAD, AFB_COMPACT };
enum afb_unit { AFB_UNIT_PU, AFB_UNIT_CORE };

struct afb_options {
    enum afb_command command;
    int threads;             /* 0: one per unit, at least 16 */
    long iterations;         /* 0: each workload's default */
    unsigned workloads;      /* bit (1u << enum afb_workload) */
    unsigned scenarios;      /* bit (1u << enum afb_scenario) */
    unsigned glibcs;         /* bit (1u << enum afb_glibc) */
    int repeat;
    enum afb_spread spread;
    enum afb_unit unit;
    enum afb_pinpath pin;    /* how pinned scenarios pin */
    bool quiet;              /* no progress even on a terminal */
    const char *out_dir;     /* results.{csv,json,svg} there */
    const char *csv, *json, *plot;
    const char *topology;    /* hwloc XML to plan against, else the host */
    const char *affected;    /* directory of the affected ld.so + libc */
    const char *preload;     /* the libarenafix.so the shim scenarios load */

    /* repro */
    int repro_nr_cpu;
    bool repro_pin, repro_fix;

    /* run-one: the child's arguments (argv after "run-one") */
    int child_argc;
    char **child_argv;
};

/* The defaults: every workload and scenario, both glibcs, 3 repeats,
 * spread by PU, threads pinning themselves. */
void afb_options_default(struct afb_options *o);

/* Parse argv[1..argc) into O (which holds the defaults already).
 * Returns 0, or -1 with a one-line message in ERR. */
int afb_options_parse(struct afb_options *o, int argc, char **argv, char *err, size_t errlen);

/* Parse "a,b,c" or "all" against NAMES into a bit set; -1 if a name is
 * unknown (ERR names it). */
long afb_parse_set(const char *text, const char *const *names, int n, const char *what,
                   char *err, size_t errlen);

/* The reproducer's booleans: true/false, yes/no, 1/0.  -1 otherwise. */
int afb_parse_bool(const char *text);

extern const char afb_usage[];

#endif
