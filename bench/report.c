/* Table, CSV and JSON output (report.h). */
#include "report.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "workloads.h"

static const char *status_name(enum afb_status s)
{
    static const char *const names[] = { "not-run", "ok", "unavailable", "failed" };
    return names[s];
}

static int selected(const struct afb_selection *sel, int w, int g, int s)
{
    return (sel->workloads >> w & 1) && (sel->glibcs >> g & 1) && (sel->scenarios >> s & 1);
}

/* When every scenario of a glibc is unavailable for one reason, one line
 * says so instead of a column of dashes. */
static const char *all_unavailable(const struct afb_results *r, const struct afb_selection *sel,
                                   int w, int g)
{
    const char *note = NULL;
    for (int s = 0; s < AFB_S_COUNT; s++) {
        if (!selected(sel, w, g, s))
            continue;
        const struct afb_cell *c = &r->cell[w][g][s];
        if (c->status != AFB_UNAVAILABLE || (note && strcmp(note, c->note) != 0))
            return NULL;
        note = c->note;
    }
    return note;
}

void afb_report_table(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                      const struct afb_host *host)
{
    fprintf(out, "host: %d CPUs online, %d package%s, %d NUMA node%s, %d cores, %d PUs; "
                 "system glibc %s\n",
            host->online_cpus, host->packages, host->packages == 1 ? "" : "s", host->numa,
            host->numa == 1 ? "" : "s", host->cores, host->pus, host->glibc);
    fprintf(out, "affected glibc: %s%s%s%s\n", host->affected ? host->affected
                 : "none on this host (set ARENAFIX_AFFECTED_GLIBC or --affected-glibc); "
                   "without one the bug cannot show, only the fixed glibc and the shim's cost",
            host->affected && host->affected_note ? " (" : "",
            host->affected && host->affected_note ? host->affected_note : "",
            host->affected && host->affected_note ? ")" : "");
    fprintf(out, "shim: %s\n", host->preload ? host->preload : "not found (build it or --preload)");
    fprintf(out, "pinned scenarios pin by '%s', %s; baseline (x base) = system glibc, pinned\n",
            host->pin, host->placement);
    /* The baseline is only a fixed glibc if the system's is one. */
    const struct afb_cell *sys = afb_baseline(r, AFB_W_REPRO);
    int fixed = afb_fixed_arenas(r->threads, r->online_cpus);
    if (sys != NULL && sys->median.arenas < fixed)
        fprintf(out, "note: the system glibc looks affected too: its pinned run got %.0f arenas, "
                     "a fixed glibc gives %d\n", sys->median.arenas, fixed);
    /* Arenas and lock waits first: they show the bug on any host.  The
     * times come with their spread, and with a warning where the host
     * cannot make them mean anything. */
    char why[96];
    if (afb_timing_caveat(r->threads, r->online_cpus, why, sizeof why) != NULL)
        fprintf(out, "timings: not meaningful here (%s); read the arenas and lock waits. Times "
                     "need no more threads than CPUs and at least %d CPUs.\n",
                why, AFB_TIMING_MIN_CPUS);
    bool over_zero = false;
    for (int w = 0; w < AFB_W_COUNT; w++) {
        if (!(sel->workloads >> w & 1))
            continue;
        char what[160];
        afb_workload_describe((enum afb_workload)w, r->threads, r->iterations[w], what, sizeof what);
        fprintf(out, "\n== %s: %s\n", afb_workload_names[w], what);
        fprintf(out, "%-9s %-13s %6s %9s %7s  %-27s %6s %7s\n", "glibc", "scenario", "arenas",
                "waits/thr", "waits x", "wall ms: median [min-max]", "time x", "rss MiB");
        const struct afb_cell *base = afb_baseline(r, (enum afb_workload)w);
        for (int g = 0; g < AFB_G_COUNT; g++) {
            if (!(sel->glibcs >> g & 1))
                continue;
            const char *none = all_unavailable(r, sel, w, g);
            if (none != NULL) {
                fprintf(out, "%-9s %-13s not available: %s\n", afb_glibc_names[g], "(all)", none);
                continue;
            }
            for (int s = 0; s < AFB_S_COUNT; s++) {
                if (!selected(sel, w, g, s))
                    continue;
                const struct afb_cell *c = &r->cell[w][g][s];
                fprintf(out, "%-9s %-13s ", afb_glibc_names[g], afb_scenario_names[s]);
                if (c->status != AFB_OK) {
                    fprintf(out, "%s: %s\n", c->status == AFB_FAILED ? "failed" : "not available",
                            c->note);
                    continue;
                }
                const struct afb_metrics *m = &c->median;
                double wq = base ? afb_ratio(m->lockwaits, base->median.lockwaits) : NAN;
                char tq[16], wqs[16], wall[48];
                afb_format_ratio(tq, sizeof tq, base ? afb_ratio(m->wall_ms, base->median.wall_ms) : NAN);
                afb_format_ratio(wqs, sizeof wqs, wq);
                over_zero = over_zero || isinf(wq);
                double *walls = malloc(sizeof *walls * (size_t)c->nruns);
                for (int k = 0; walls != NULL && k < c->nruns; k++)
                    walls[k] = c->runs[k].wall_ms;
                afb_format_spread(wall, sizeof wall, walls, walls != NULL ? c->nruns : 0);
                free(walls);
                fprintf(out, "%6.0f %9.1f %7s  %-27s %6s %7.1f%s\n", m->arenas, m->lockwaits, wqs, wall,
                        tq, m->maxrss_kb / 1024, c == base ? "  (base)" : "");
            }
        }
    }
    if (over_zero)
        fprintf(out, "\nwaits x n/a: the baseline had no lock waits, so there is no ratio; the "
                     "waits per thread say how many.\n");
}

void afb_report_checks(FILE *out, const struct afb_check *checks, int n)
{
    if (n == 0)
        return;
    fprintf(out, "\ntargets:\n");
    for (int i = 0; i < n; i++)
        fprintf(out, "  [%s] %s: %s\n",
                checks[i].verdict == 1 ? " met " : checks[i].verdict == 0 ? "MISSED" : " n/a ",
                checks[i].name, checks[i].detail);
}

static void csv_number(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputc(',', out);
    else
        fprintf(out, ",%.6g", v);
}

void afb_report_csv(FILE *out, const struct afb_results *r, const struct afb_selection *sel)
{
    fprintf(out, "workload,glibc,scenario,status,runs");
    for (int i = 0; i < AFB_METRIC_COUNT; i++)
        fprintf(out, ",%s", afb_metric_names[i]);
    fprintf(out, ",time_ratio,waits_ratio,note\n");
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++) {
                if (!selected(sel, w, g, s))
                    continue;
                const struct afb_cell *c = &r->cell[w][g][s];
                const struct afb_cell *base = afb_baseline(r, (enum afb_workload)w);
                fprintf(out, "%s,%s,%s,%s,%d", afb_workload_names[w], afb_glibc_names[g],
                        afb_scenario_names[s], status_name(c->status), c->nruns);
                struct afb_metrics m = c->median;
                for (int i = 0; i < AFB_METRIC_COUNT; i++)
                    csv_number(out, c->status == AFB_OK ? *afb_metric_at(&m, i) : NAN);
                int ratios = c->status == AFB_OK && base != NULL;
                csv_number(out, ratios ? afb_ratio(m.wall_ms, base->median.wall_ms) : NAN);
                csv_number(out, ratios ? afb_ratio(m.lockwaits, base->median.lockwaits) : NAN);
                /* notes are ours and hold no quotes; quote for commas */
                fprintf(out, ",\"%s\"\n", c->status == AFB_OK ? "" : c->note);
            }
}

static void json_number(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.6g", v);
}

static void json_metrics(FILE *out, const struct afb_metrics *m)
{
    struct afb_metrics copy = *m;
    fputc('{', out);
    for (int i = 0; i < AFB_METRIC_COUNT; i++) {
        fprintf(out, "%s\"%s\": ", i ? ", " : "", afb_metric_names[i]);
        json_number(out, *afb_metric_at(&copy, i));
    }
    fputc('}', out);
}

void afb_report_json(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                     const struct afb_host *host, const struct afb_check *checks, int nchecks)
{
    fprintf(out, "{\n  \"version\": ");
    afx_json_quote(out, AFX_VERSION);
    fprintf(out, ",\n  \"host\": {\"online_cpus\": %d, \"packages\": %d, \"numa_nodes\": %d, "
                 "\"cores\": %d, \"pus\": %d, \"glibc\": ",
            host->online_cpus, host->packages, host->numa, host->cores, host->pus);
    afx_json_quote(out, host->glibc);
    fprintf(out, ", \"affected_glibc\": ");
    afx_json_quote(out, host->affected);
    fprintf(out, ", \"preload\": ");
    afx_json_quote(out, host->preload);
    fprintf(out, "},\n  \"threads\": %d, \"pin\": ", r->threads);
    afx_json_quote(out, host->pin);
    fprintf(out, ", \"placement\": ");
    afx_json_quote(out, host->placement);
    fprintf(out, ",\n  \"results\": [");
    int first = 1;
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++) {
                if (!selected(sel, w, g, s))
                    continue;
                const struct afb_cell *c = &r->cell[w][g][s];
                fprintf(out, "%s\n    {\"workload\": \"%s\", \"glibc\": \"%s\", \"scenario\": \"%s\", "
                             "\"iterations\": %ld, \"status\": \"%s\", \"note\": ",
                        first ? "" : ",", afb_workload_names[w], afb_glibc_names[g],
                        afb_scenario_names[s], r->iterations[w], status_name(c->status));
                first = 0;
                afx_json_quote(out, c->status == AFB_OK ? NULL : c->note);
                fprintf(out, ", \"median\": ");
                if (c->status == AFB_OK)
                    json_metrics(out, &c->median);
                else
                    fputs("null", out);
                fprintf(out, ", \"runs\": [");
                for (int k = 0; k < c->nruns; k++) {
                    fputs(k ? ", " : "", out);
                    json_metrics(out, &c->runs[k]);
                }
                fprintf(out, "]}");
            }
    fprintf(out, "\n  ],\n  \"targets\": [");
    for (int i = 0; i < nchecks; i++) {
        fprintf(out, "%s\n    {\"name\": ", i ? "," : "");
        afx_json_quote(out, checks[i].name);
        fprintf(out, ", \"detail\": ");
        afx_json_quote(out, checks[i].detail);
        fprintf(out, ", \"value\": ");
        json_number(out, checks[i].value);
        fprintf(out, ", \"target\": ");
        json_number(out, checks[i].target);
        fprintf(out, ", \"met\": %s}", checks[i].verdict == 1 ? "true"
                                       : checks[i].verdict == 0 ? "false" : "null");
    }
    fprintf(out, "\n  ]\n}\n");
}
