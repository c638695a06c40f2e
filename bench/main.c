/* arenafix-bench: the pinned-thread benchmark.  Plans the placement with
 * hwloc, runs each (workload, glibc, scenario) as a child process,
 * interleaved and repeated, and reports medians with ratios against the
 * fixed glibc.  See docs/benchmarks.md. */
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crossglibc.h"
#include "loader.h"
#include "options.h"
#include "pin.h"
#include "placement.h"
#include "plot.h"
#include "report.h"
#include "runner.h"
#include "stats.h"
#include "workloads.h"

#ifndef AFB_SHIM_PATH
#define AFB_SHIM_PATH "/usr/local/lib/arenafix/libarenafix.so"
#endif

#define EXIT_BAD_USAGE 2
#define EXIT_BAD_TOPOLOGY 3

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "arenafix-bench: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* This program's path for the children.  Run through an explicit loader
 * (as the affected-glibc children are), /proc/self/exe names the loader,
 * and argv[0] is the program. */
static char *self_path(const char *argv0)
{
    static char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
        const char *base = strrchr(buf, '/');
        if (strncmp(base ? base + 1 : buf, "ld-", 3) != 0)
            return buf;
    }
    if (realpath(argv0, buf) == NULL)
        die(1, "cannot find this program's path (%s)", argv0);
    return buf;
}

/* Every slot's cpulist joined with '/', the form run-one takes. */
static char *slots_text(const struct afb_plan *plan)
{
    size_t len = 1;
    for (int s = 0; s < plan->nslots; s++)
        len += strlen(plan->cpus[s]) + 1;
    char *text = calloc(len, 1);
    for (int s = 0; s < plan->nslots; s++) {
        if (s > 0)
            strcat(text, "/");
        strcat(text, plan->cpus[s]);
    }
    return text;
}

static const char *find_preload(const struct afb_options *o)
{
    const char *lib = o->preload ? o->preload : getenv("ARENAFIX_TESTLIB");
    if (lib == NULL || *lib == '\0')
        lib = AFB_SHIM_PATH;
    return access(lib, R_OK) == 0 ? lib : NULL;
}

static void mkdirs(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0777);
            *p = '/';
        }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        die(1, "cannot create the output directory %s", dir);
}

static FILE *open_output(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        die(1, "cannot write %s", path);
    return f;
}

/* The affected glibc: --affected-glibc, else the tests' variable; of a
 * list (DIR:DIR...), the first.  Where neither names one (a clone outside
 * this project's layout), Debian's cross glibc where it is installed:
 * the runs then show whether it has the bug. */
static const char *affected_setting(const struct afb_options *o, char *buf, size_t len, bool *cross)
{
    const char *named = afb_first_glibc(o->affected ? o->affected
                                                    : getenv("ARENAFIX_AFFECTED_GLIBC"),
                                        buf, len);
    *cross = false;
#ifdef AFX_CROSS_GLIBC
    if (named == NULL && afb_glibc_dir_usable(AFX_CROSS_GLIBC)) {
        *cross = true;
        return AFX_CROSS_GLIBC;
    }
#endif
    return named;
}

static int run_repro(const struct afb_options *o, const struct afb_plan *plan, char **argv)
{
    long it = o->iterations ? o->iterations : afb_default_iterations(AFB_W_REPRO);
    if (o->glibcs == 1u << AFB_G_AFFECTED) {
        /* Re-exec under the affected glibc, which runs the same command
         * with the same placement. */
        char first[PATH_MAX];
        bool cross;
        const char *dir = affected_setting(o, first, sizeof first, &cross);
        if (!afb_glibc_dir_usable(dir))
            die(EXIT_BAD_USAGE, "%s", "no affected glibc: set ARENAFIX_AFFECTED_GLIBC or --affected-glibc");
        char loader[PATH_MAX], iters[24], cpus[16];
        snprintf(loader, sizeof loader, "%s/%s", dir, AFX_LOADER);
        snprintf(iters, sizeof iters, "%ld", it);
        snprintf(cpus, sizeof cpus, "%d", o->repro_nr_cpu);
        execl(loader, loader, "--library-path", dir, self_path(argv[0]), "-i", iters,
              "--placement", o->spread == AFB_SPREAD ? "spread" : "compact",
              "--unit", o->unit == AFB_UNIT_CORE ? "core" : "pu", "repro", cpus, o->repro_pin ? "true" : "false", o->repro_fix ? "true" : "false", (char *)NULL);
        die(1, "cannot run %s", loader);
    }
    cpu_set_t *slots = calloc((size_t)plan->nslots, sizeof *slots);
    for (int s = 0; s < plan->nslots; s++)
        afb_cpulist_parse(plan->cpus[s], &slots[s]);
    double avg = afb_repro_run(o->repro_nr_cpu, o->repro_pin, o->repro_fix, it, slots, plan->nslots);
    printf("nr_cpu: %d pin: %s fix: %s\n", o->repro_nr_cpu, o->repro_pin ? "yes" : "no",
           o->repro_fix ? "yes" : "no");
    printf("thread average (ms): %f\n", avg);
    free(slots);
    return 0;
}

static int is_shim(int s)
{
    return s >= AFB_S_SHIM_MALLOPT && s <= AFB_S_SHIM_BOTH;
}

/* Mark the cells that cannot run on this host, with the reason. */
static void mark_unavailable(struct afb_results *r, const char *affected, const char *preload,
                             const char *affected_why)
{
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++) {
                struct afb_cell *c = &r->cell[w][g][s];
                if (g == AFB_G_AFFECTED && affected == NULL) {
                    c->status = AFB_UNAVAILABLE;
                    snprintf(c->note, sizeof c->note, "%s", affected_why);
                } else if (is_shim(s) && preload == NULL) {
                    c->status = AFB_UNAVAILABLE;
                    snprintf(c->note, sizeof c->note,
                             "no libarenafix.so (run make, or set ARENAFIX_TESTLIB / --preload)");
                }
            }
}

static int run_matrix(const struct afb_options *o, const struct afb_plan *plan, char **argv)
{
    char first[PATH_MAX];
    bool cross;
    const char *dir = affected_setting(o, first, sizeof first, &cross);
    const char *affected = afb_glibc_dir_usable(dir) ? dir : NULL;
    char affected_why[160];
    if (dir == NULL || *dir == '\0')
        snprintf(affected_why, sizeof affected_why,
                 "no affected glibc on this host (set ARENAFIX_AFFECTED_GLIBC%s)",
#ifdef AFX_CROSS_PACKAGE
                 ", or install " AFX_CROSS_PACKAGE
#else
                 ""
#endif
        );
    else
        snprintf(affected_why, sizeof affected_why, "%.100s holds no ld.so + libc.so.6", dir);
    const char *preload = find_preload(o);

    struct afb_results *r = calloc(1, sizeof *r);
    r->threads = plan->nslots;
    r->online_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    r->pin = o->pin;
    for (int w = 0; w < AFB_W_COUNT; w++)
        r->iterations[w] = o->iterations ? o->iterations : afb_default_iterations((enum afb_workload)w);
    mark_unavailable(r, affected, preload, affected_why);

    char *slots = slots_text(plan);
    struct afb_run run = {
        .self = self_path(argv[0]), .preload = preload, .arena_max = 8 * r->online_cpus,
        .threads = plan->nslots, .pin = o->pin, .slots = slots,
    };
    int total = 0, done = 0, failed = 0;
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++)
                total += (o->workloads >> w & 1) && (o->glibcs >> g & 1) &&
                         (o->scenarios >> s & 1) && r->cell[w][g][s].status == AFB_NOT_RUN;
    total *= o->repeat;
    int progress = !o->quiet && isatty(STDERR_FILENO);

    /* Scenarios interleave within each repeat, so a slow minute on a
     * shared host spreads over all of them instead of one. */
    for (int w = 0; w < AFB_W_COUNT; w++) {
        if (!(o->workloads >> w & 1))
            continue;
        for (int k = 0; k < o->repeat; k++)
            for (int s = 0; s < AFB_S_COUNT; s++)
                for (int g = 0; g < AFB_G_COUNT; g++) {
                    struct afb_cell *c = &r->cell[w][g][s];
                    if (!(o->glibcs >> g & 1) || !(o->scenarios >> s & 1) ||
                        c->status == AFB_UNAVAILABLE || c->status == AFB_FAILED)
                        continue;
                    if (progress)
                        fprintf(stderr, "\r\033[K[%d/%d] %s %s/%s", ++done, total,
                                afb_workload_names[w], afb_glibc_names[g], afb_scenario_names[s]);
                    run.workload = (enum afb_workload)w;
                    run.iterations = r->iterations[w];
                    run.scenario = (enum afb_scenario)s;
                    run.glibc_dir = g == AFB_G_AFFECTED ? affected : NULL;
                    struct afb_metrics m;
                    if (afb_run_one(&run, &m, c->note, sizeof c->note) == 0) {
                        afb_cell_add(c, &m);
                    } else {
                        c->status = AFB_FAILED;
                        failed++;
                    }
                }
    }
    if (progress)
        fprintf(stderr, "\r\033[K");
    afb_results_finish(r);

    struct afb_check checks[64];
    int nchecks = afb_checks(r, checks, 64);
    char placement[128];
    snprintf(placement, sizeof placement, "%s by %s", plan->spread == AFB_SPREAD ? "spread" : "compact",
             plan->unit == AFB_UNIT_CORE ? "core" : "PU");
    struct afb_host host = {
        .online_cpus = r->online_cpus, .packages = plan->npackages, .numa = plan->nnuma,
        .cores = plan->ncores, .pus = plan->npus, .glibc = gnu_get_libc_version(),
        .affected = affected, .preload = preload, .placement = placement,
#ifdef AFX_CROSS_PACKAGE
        .affected_note = cross ? "Debian's " AFX_CROSS_PACKAGE ", found where none was named" : NULL,
#endif
        .pin = afb_pinpath_names[o->pin],
    };
    struct afb_selection sel = { o->workloads, o->scenarios, o->glibcs };
    afb_plan_describe(plan, stdout);
    afb_report_table(stdout, r, &sel, &host);
    afb_report_checks(stdout, checks, nchecks);

    char path[3][PATH_MAX];
    const char *csv = o->csv, *json = o->json, *plot = o->plot;
    if (o->out_dir != NULL) {
        mkdirs(o->out_dir);
        snprintf(path[0], sizeof path[0], "%s/results.csv", o->out_dir);
        snprintf(path[1], sizeof path[1], "%s/results.json", o->out_dir);
        snprintf(path[2], sizeof path[2], "%s/results.svg", o->out_dir);
        csv = csv ? csv : path[0];
        json = json ? json : path[1];
        plot = plot ? plot : path[2];
    }
    if (csv != NULL) {
        FILE *f = open_output(csv);
        afb_report_csv(f, r, &sel);
        fclose(f);
    }
    if (json != NULL) {
        FILE *f = open_output(json);
        afb_report_json(f, r, &sel, &host, checks, nchecks);
        fclose(f);
    }
    if (plot != NULL) {
        char script[PATH_MAX + 4], err[PATH_MAX + 100];
        snprintf(script, sizeof script, "%.*s.gp", (int)(strrchr(plot, '.') > strrchr(plot, '/')
                 ? strrchr(plot, '.') - plot : (long)strlen(plot)), plot);
        FILE *f = open_output(script);
        afb_plot_script(f, r, &sel, plot);
        fclose(f);
        if (afb_plot_render(script, err, sizeof err) != 0)
            fprintf(stderr, "arenafix-bench: no plot: %s\n", err);
    }
    if (csv || json || plot)
        printf("\nwritten:%s%s%s%s%s%s\n", csv ? " " : "", csv ? csv : "", json ? " " : "",
               json ? json : "", plot ? " " : "", plot ? plot : "");
    free(slots);
    afb_results_free(r);
    free(r);
    if (failed)
        fprintf(stderr, "arenafix-bench: %d run%s failed (see the table)\n", failed,
                failed == 1 ? "" : "s");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct afb_options o;
    char err[256];
    afb_options_default(&o);
    if (afb_options_parse(&o, argc, argv, err, sizeof err) != 0)
        die(EXIT_BAD_USAGE, "%s", err);
    switch (o.command) {
    case AFB_CMD_HELP:
        fputs(afb_usage, stdout);
        return 0;
    case AFB_CMD_VERSION:
        printf("arenafix-bench %s\n", AFX_VERSION);
        return 0;
    case AFB_CMD_CHILD:
        return afb_child_main(o.child_argc, o.child_argv);
    default:
        break;
    }

    hwloc_topology_t topo;
    struct afb_plan plan;
    if (afb_topology_load(&topo, o.topology, err, sizeof err) != 0)
        die(EXIT_BAD_TOPOLOGY, "%s", err);
    int threads = o.command == AFB_CMD_REPRO ? o.repro_nr_cpu : o.threads;
    if (afb_plan_make(topo, threads, o.spread, o.unit, &plan, err, sizeof err) != 0)
        die(EXIT_BAD_TOPOLOGY, "%s", err);
    hwloc_topology_destroy(topo);

    int rc;
    if (o.command == AFB_CMD_PLACEMENT) {
        afb_plan_describe(&plan, stdout);
        for (int s = 0; s < plan.nslots; s++)
            printf("thread %d: package %d, CPUs %s\n", s, plan.package[s], plan.cpus[s]);
        rc = 0;
    } else if (o.command == AFB_CMD_REPRO) {
        rc = run_repro(&o, &plan, argv);
    } else {
        rc = run_matrix(&o, &plan, argv);
    }
    afb_plan_free(&plan);
    return rc;
}
