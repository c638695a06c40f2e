/* Statistics and targets (stats.h). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenarule.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double afb_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void afb_cell_add(struct afb_cell *c, const struct afb_metrics *m)
{
    c->runs = realloc(c->runs, sizeof *c->runs * (size_t)(c->nruns + 1));
    c->runs[c->nruns++] = *m;
    c->status = AFB_OK;
}

void afb_results_finish(struct afb_results *r)
{
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++) {
                struct afb_cell *c = &r->cell[w][g][s];
                if (c->nruns == 0)
                    continue;
                double *v = malloc(sizeof *v * (size_t)c->nruns);
                for (int i = 0; i < AFB_METRIC_COUNT; i++) {
                    for (int k = 0; k < c->nruns; k++)
                        v[k] = *afb_metric_at(&c->runs[k], i);
                    *afb_metric_at(&c->median, i) = afb_median(v, c->nruns);
                }
                free(v);
            }
}

void afb_results_free(struct afb_results *r)
{
    for (int w = 0; w < AFB_W_COUNT; w++)
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = 0; s < AFB_S_COUNT; s++)
                free(r->cell[w][g][s].runs);
}

const struct afb_cell *afb_baseline(const struct afb_results *r, enum afb_workload w)
{
    const struct afb_cell *c = &r->cell[w][AFB_G_SYSTEM][AFB_S_PINNED];
    return c->status == AFB_OK ? c : NULL;
}

double afb_ratio(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    if (b == 0)
        return a == 0 ? 1 : INFINITY;
    return a / b;
}

void afb_format_ratio(char *buf, size_t len, double q)
{
    if (isnan(q))
        snprintf(buf, len, "-");
    else if (isinf(q))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%.2f", q);
}

void afb_format_spread(char *buf, size_t len, const double *v, int n)
{
    double *sorted = n > 0 ? malloc(sizeof *sorted * (size_t)n) : NULL;
    bool finite = sorted != NULL;
    for (int i = 0; finite && i < n; i++) {
        sorted[i] = v[i];
        finite = isfinite(v[i]);
    }
    if (!finite) {
        snprintf(buf, len, "-");
        free(sorted);
        return;
    }
    double median = afb_median(sorted, n), low = sorted[0], high = sorted[n - 1];
    /* Three significant digits or so: the spread on a shared host is
     * wider than any further digit. */
    int decimals = fabs(median) >= 100 ? 0 : fabs(median) >= 10 ? 1 : 2;
    if (n == 1)
        snprintf(buf, len, "%.*f", decimals, median);
    else
        snprintf(buf, len, "%.*f [%.*f-%.*f]", decimals, median, decimals, low, decimals, high);
    free(sorted);
}

const char *afb_timing_caveat(int threads, int online_cpus, char *buf, size_t len)
{
    if (threads <= online_cpus && online_cpus >= AFB_TIMING_MIN_CPUS)
        return NULL;
    int n = snprintf(buf, len, "%d thread%s on %d online CPU%s: ", threads, threads == 1 ? "" : "s",
                     online_cpus, online_cpus == 1 ? "" : "s");
    if (n >= 0 && (size_t)n < len) {
        if (threads > online_cpus)
            snprintf(buf + n, len - (size_t)n, "more threads than CPUs");
        else
            snprintf(buf + n, len - (size_t)n, "fewer than the %d CPUs timings need", AFB_TIMING_MIN_CPUS);
    }
    return buf;
}

static const struct afb_cell *ok(const struct afb_results *r, int w, int g, int s)
{
    const struct afb_cell *c = &r->cell[w][g][s];
    return c->status == AFB_OK ? c : NULL;
}

static int add(struct afb_check *out, int n, int max, int verdict, double value, double target,
               const char *name, const char *detail)
{
    if (n >= max)
        return n;
    out[n] = (struct afb_check){ .value = value, .target = target, .verdict = verdict };
    snprintf(out[n].name, sizeof out[n].name, "%s", name);
    snprintf(out[n].detail, sizeof out[n].detail, "%s", detail);
    return n + 1;
}

int afb_fixed_arenas(int threads, int online_cpus)
{
    return (int)afx_fixed_glibc_arenas(threads, online_cpus);
}

/* Arena count with the shim equals a fixed glibc's, every pinned run.
 * The reference is glibc's own rule, not the system glibc's run, so the
 * check still means something where the system glibc is affected too. */
static int check_arenas(const struct afb_results *r, struct afb_check *out, int n, int max)
{
    static const int allocating[] = { AFB_W_REPRO, AFB_W_MIXED, AFB_W_CONN };
    double fixed = afb_fixed_arenas(r->threads, r->online_cpus);
    for (size_t i = 0; i < sizeof allocating / sizeof *allocating; i++) {
        int w = allocating[i];
        for (int g = 0; g < AFB_G_COUNT; g++)
            for (int s = AFB_S_SHIM_MALLOPT; s <= AFB_S_SHIM_BOTH; s++) {
                const struct afb_cell *c = ok(r, w, g, s);
                if (c == NULL)
                    continue;
                char name[96], detail[160];
                snprintf(name, sizeof name, "arenas %s %s/%s == fixed glibc's", afb_workload_names[w],
                         afb_glibc_names[g], afb_scenario_names[s]);
                snprintf(detail, sizeof detail, "%.0f vs %.0f%s", c->median.arenas, fixed,
                         s == AFB_S_SHIM_TOUCH && r->pin == AFB_P_INHERIT && g == AFB_G_AFFECTED
                             ? " (touch mode cannot fix an inherited mask)" : "");
                n = add(out, n, max, c->median.arenas == fixed, c->median.arenas, fixed, name,
                        detail);
            }
    }
    return n;
}

/* A ratio in a target's detail, to three places; over zero it is no
 * number, and says so. */
static void detail_ratio(char *buf, size_t len, double q)
{
    if (isinf(q))
        snprintf(buf, len, "n/a (over 0)");
    else if (isnan(q))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3f", q);
}

/* A ratio target: cell A's metric over cell B's, at most (or at least) T. */
static int check_ratio(struct afb_check *out, int n, int max, const struct afb_cell *a,
                       const struct afb_cell *b, int metric, double target, int at_most,
                       const char *name)
{
    if (a == NULL || b == NULL)
        return n;
    struct afb_metrics ma = a->median, mb = b->median;
    double va = *afb_metric_at(&ma, metric), vb = *afb_metric_at(&mb, metric);
    double q = afb_ratio(va, vb);
    char detail[160], quotient[24];
    detail_ratio(quotient, sizeof quotient, q);
    snprintf(detail, sizeof detail, "%.4g / %.4g %s = %s (target %s %.2f)", va, vb,
             afb_metric_names[metric], quotient, at_most ? "<=" : ">=", target);
    return add(out, n, max, at_most ? q <= target : q >= target, q, target, name, detail);
}

static double fastest(const struct afb_cell *c)
{
    double best = c->runs[0].wall_ms;
    for (int k = 1; k < c->nruns; k++)
        best = c->runs[k].wall_ms < best ? c->runs[k].wall_ms : best;
    return best;
}

/* A churn overhead: a fixed cost per thread or process, which other
 * load on the host can only add to.  The verdict goes by the fastest run
 * of each side (best of N, the usual way to measure a fixed cost on a
 * busy host); the medians are given beside it.  Where timings mean
 * nothing (noise: afb_timing_caveat's reason), none: a 1% target is
 * within the noise of such a host, and the ratios are given alone. */
static int check_churn(struct afb_check *out, int n, int max, const struct afb_cell *with,
                       const struct afb_cell *without, double target, const char *name, const char *noise)
{
    if (with == NULL || without == NULL)
        return n;
    double a = fastest(with), b = fastest(without);
    double q = afb_ratio(a, b), qm = afb_ratio(with->median.wall_ms, without->median.wall_ms);
    char detail[160], best[24], medians[24];
    detail_ratio(best, sizeof best, q);
    detail_ratio(medians, sizeof medians, qm);
    int runs = with->nruns < without->nruns ? with->nruns : without->nruns;
    if (noise != NULL) {
        snprintf(detail, sizeof detail, "not judged, timings mean nothing here (%s); best of %d: %s, medians %s",
                 noise, runs, best, medians);
        return add(out, n, max, -1, q, target, name, detail);
    }
    snprintf(detail, sizeof detail, "best of %d: %.1f / %.1f ms = %s (target <= %.2f); "
             "medians %s", runs, a, b, best, target, medians);
    return add(out, n, max, q <= target, q, target, name, detail);
}

int afb_checks(const struct afb_results *r, struct afb_check *out, int max)
{
    int n = check_arenas(r, out, 0, max);
    int aff = ok(r, AFB_W_REPRO, AFB_G_AFFECTED, AFB_S_SHIM_MALLOPT) ? AFB_G_AFFECTED : AFB_G_SYSTEM;

    for (int w = AFB_W_REPRO; w <= AFB_W_MIXED; w++) {
        char name[96];
        snprintf(name, sizeof name, "lock waits %s %s/shim-mallopt <= 1.1 x fixed glibc's",
                 afb_workload_names[w], afb_glibc_names[aff]);
        n = check_ratio(out, n, max, ok(r, w, aff, AFB_S_SHIM_MALLOPT),
                        ok(r, w, AFB_G_SYSTEM, AFB_S_PINNED), 4, 1.1, 1, name);
        /* The same glibc build with the same arena count, for reference:
         * separates what the shim does from what the two builds do. */
        snprintf(name, sizeof name, "lock waits %s %s/shim-mallopt <= 1.1 x %s/tunable",
                 afb_workload_names[w], afb_glibc_names[aff], afb_glibc_names[aff]);
        n = check_ratio(out, n, max, ok(r, w, aff, AFB_S_SHIM_MALLOPT),
                        ok(r, w, aff, AFB_S_TUNABLE), 4, 1.1, 1, name);
    }
    /* Times are judged only where the table does not say they mean
     * nothing. */
    char why[96];
    const char *noise = afb_timing_caveat(r->threads, r->online_cpus, why, sizeof why);
    for (int g = 0; g < AFB_G_COUNT; g++) {
        char name[96];
        snprintf(name, sizeof name, "thread churn %s: preload <= 1.01 x without", afb_glibc_names[g]);
        n = check_churn(out, n, max, ok(r, AFB_W_THREADS, g, AFB_S_SHIM_MALLOPT),
                        ok(r, AFB_W_THREADS, g, AFB_S_PINNED), 1.01, name, noise);
        snprintf(name, sizeof name, "exec churn %s: preload <= 1.03 x without", afb_glibc_names[g]);
        n = check_churn(out, n, max, ok(r, AFB_W_EXEC, g, AFB_S_SHIM_MALLOPT),
                        ok(r, AFB_W_EXEC, g, AFB_S_PINNED), 1.03, name, noise);
    }

    /* Throughput against the unpinned run and the tunable means something
     * only where threads really run in parallel. */
    const struct afb_cell *shim = ok(r, AFB_W_REPRO, aff, AFB_S_SHIM_MALLOPT);
    const struct afb_cell *unp = ok(r, AFB_W_REPRO, aff, AFB_S_UNPINNED);
    const struct afb_cell *tun = ok(r, AFB_W_REPRO, aff, AFB_S_TUNABLE);
    if (r->online_cpus >= 16 && noise != NULL && shim != NULL) {
        char detail[160];
        snprintf(detail, sizeof detail, "not judged, timings mean nothing here (%s)", noise);
        n = add(out, n, max, -1, NAN, 0.95, "throughput repro shim >= 0.95 x unpinned, tunable", detail);
    } else if (r->online_cpus >= 16) {
        n = check_ratio(out, n, max, shim, unp, 1, 0.95, 0, "throughput repro shim >= 0.95 x unpinned");
        n = check_ratio(out, n, max, shim, tun, 1, 0.95, 0, "throughput repro shim >= 0.95 x tunable");
    } else if (shim != NULL) {
        char detail[160];
        snprintf(detail, sizeof detail, "needs >= 16 CPUs; this host has %d", r->online_cpus);
        n = add(out, n, max, -1, NAN, 0.95, "throughput repro shim >= 0.95 x unpinned, tunable", detail);
    }
    return n;
}
