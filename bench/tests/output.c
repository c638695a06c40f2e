/* Output formats and targets over hand-made results: the table, CSV,
 * JSON and plot script say what the cells hold, and say so plainly when
 * a glibc or the shim was not there. */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "plot.h"
#include "report.h"
#include "tests.h"

static struct afb_results r;
static struct afb_host host = { .online_cpus = 2, .packages = 1, .numa = 1, .cores = 2, .pus = 2,
                                .glibc = "2.36", .preload = "/x/libarenafix.so",
                                .placement = "spread by PU", .pin = "self" };

static void put(int w, int g, int s, double arenas, double waits, double wall)
{
    struct afb_metrics m = { .wall_ms = wall, .ops_per_s = 1000 / wall, .thread_avg_ms = wall / 2,
                             .arenas = arenas, .lockwaits = waits, .minflt = 100,
                             .maxrss_kb = 2048 };
    afb_cell_add(&r.cell[w][g][s], &m);
}

/* The system glibc's runs of the repro workload, and no affected glibc. */
static void setup(void)
{
    memset(&r, 0, sizeof r);
    r.threads = 16;
    r.online_cpus = 2;
    r.pin = AFB_P_SELF;
    for (int w = 0; w < AFB_W_COUNT; w++) {
        r.iterations[w] = 100;
        for (int s = 0; s < AFB_S_COUNT; s++) {
            struct afb_cell *c = &r.cell[w][AFB_G_AFFECTED][s];
            c->status = AFB_UNAVAILABLE;
            strcpy(c->note, "no affected glibc on this host (set ARENAFIX_AFFECTED_GLIBC)");
        }
    }
    put(AFB_W_REPRO, 0, AFB_S_PINNED, 16, 2.0, 100);
    put(AFB_W_REPRO, 0, AFB_S_PINNED, 16, 4.0, 300);
    put(AFB_W_REPRO, 0, AFB_S_PINNED, 16, 3.0, 200);
    put(AFB_W_REPRO, 0, AFB_S_SHIM_MALLOPT, 16, 3.0, 150);
    put(AFB_W_REPRO, 0, AFB_S_SHIM_TOUCH, 9, 0.0, 400);
    afb_results_finish(&r);
}

static void teardown(void)
{
    afb_results_free(&r);
}

/* What FN wrote, in a buffer the caller frees.  The memstream's pointer
 * lives in a static so that gcc's dangling-pointer analysis does not
 * mistake it for a local. */
static char *captured;
static size_t captured_len;
static char *capture(void (*fn)(FILE *))
{
    FILE *f = open_memstream(&captured, &captured_len);
    fn(f);
    fclose(f);
    return captured;
}

static struct afb_selection repro_only = { 1u << AFB_W_REPRO, (1u << AFB_S_COUNT) - 1, 3 };
static void table(FILE *f) { afb_report_table(f, &r, &repro_only, &host); }
static void csv(FILE *f) { afb_report_csv(f, &r, &repro_only); }
static void plot(FILE *f) { afb_plot_script(f, &r, &repro_only, "out/results.svg"); }
static void json(FILE *f)
{
    struct afb_check checks[16];
    int n = afb_checks(&r, checks, 16);
    afb_report_json(f, &r, &repro_only, &host, checks, n);
}

START_TEST(medians)
{
    double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
    ck_assert(afb_median(odd, 3) == 2);
    ck_assert(afb_median(even, 4) == 2.5);
    ck_assert(afb_median(odd, 0) == 0);
    const struct afb_metrics *m = &r.cell[AFB_W_REPRO][0][AFB_S_PINNED].median;
    ck_assert(m->wall_ms == 200 && m->lockwaits == 3.0);
}
END_TEST

START_TEST(ratios)
{
    ck_assert(afb_ratio(3, 2) == 1.5);
    ck_assert(afb_ratio(0, 0) == 1);
    ck_assert(isinf(afb_ratio(1, 0)));
    ck_assert(isnan(afb_ratio(NAN, 1)));
}
END_TEST

START_TEST(table_shows_rows_ratios_and_missing_glibc)
{
    char *t = capture(table);
    ck_assert_ptr_nonnull(strstr(t, "== repro: 16 threads x 100 malloc+free pairs"));
    /* Arenas and lock waits lead; the wall time is the median with the
     * spread of the runs (100, 300, 200 ms). */
    ck_assert_ptr_nonnull(strstr(t, "glibc     scenario      arenas waits/thr waits x  wall ms: median "
                                    "[min-max]   time x rss MiB\n"));
    char *base = strstr(t, "system    pinned");
    ck_assert_ptr_nonnull(base);
    ck_assert_msg(strncmp(base, "system    pinned            16       3.0    1.00  200 [100-300]   "
                                "              1.00     2.0  (base)\n", 98) == 0, "%s", t);
    /* shim: 150/200 time, 3/3 waits */
    char *shim = strstr(t, "system    shim-mallopt");
    ck_assert_ptr_nonnull(shim);
    ck_assert_msg(strncmp(shim, "system    shim-mallopt      16       3.0    1.00  150             "
                                "              0.75     2.0\n", 93) == 0, "%s", t);
    ck_assert_ptr_nonnull(strstr(t, "affected  (all)         not available: no affected glibc"));
    ck_assert_ptr_nonnull(strstr(t, "affected glibc: none on this host"));
    free(t);
}
END_TEST

/* The pure formatter of the times: median [min-max] of the runs. */
START_TEST(spread_is_median_min_max)
{
    char buf[64];
    double three[] = { 230.4, 219.4, 251.3 };
    afb_format_spread(buf, sizeof buf, three, 3);
    ck_assert_str_eq(buf, "230 [219-251]");
    ck_assert(three[0] == 230.4 && three[1] == 219.4);    /* the caller's order kept */
    double tens[] = { 98.94, 120.3, 95.1, 97.0 };
    afb_format_spread(buf, sizeof buf, tens, 4);
    ck_assert_str_eq(buf, "98.0 [95.1-120.3]");
    double one[] = { 5.123 };
    afb_format_spread(buf, sizeof buf, one, 1);
    ck_assert_str_eq(buf, "5.12");
    afb_format_spread(buf, sizeof buf, one, 0);
    ck_assert_str_eq(buf, "-");
    double broken[] = { 1, NAN }, endless[] = { INFINITY, 1 };
    afb_format_spread(buf, sizeof buf, broken, 2);
    ck_assert_str_eq(buf, "-");
    afb_format_spread(buf, sizeof buf, endless, 2);
    ck_assert_str_eq(buf, "-");
    afb_format_ratio(buf, sizeof buf, 1.5);
    ck_assert_str_eq(buf, "1.50");
    afb_format_ratio(buf, sizeof buf, INFINITY);
    ck_assert_str_eq(buf, "n/a");
    afb_format_ratio(buf, sizeof buf, NAN);
    ck_assert_str_eq(buf, "-");
}
END_TEST

/* "inf" or "nan" as a word of its own, in any case ("infix" is a
 * scenario, not a number). */
static bool has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; *p; p++)
        if (strncasecmp(p, word, n) == 0 && (p == text || !isalpha((unsigned char)p[-1]))
            && !isalpha((unsigned char)p[n]))
            return true;
    return false;
}

/* The fixed glibc with no lock waits, the affected one with some: every
 * ratio over zero is "n/a" with the reason, never "inf" or "nan". */
START_TEST(no_inf_or_nan_in_any_format)
{
    teardown();
    memset(&r, 0, sizeof r);
    r.threads = 16;
    r.online_cpus = 2;
    for (int w = 0; w < AFB_W_COUNT; w++)
        r.iterations[w] = 100;
    put(AFB_W_REPRO, AFB_G_SYSTEM, AFB_S_PINNED, 16, 0, 100);
    put(AFB_W_REPRO, AFB_G_AFFECTED, AFB_S_PINNED, 9, 2.5, 130);
    put(AFB_W_REPRO, AFB_G_AFFECTED, AFB_S_SHIM_MALLOPT, 16, 0.5, 90);
    put(AFB_W_REPRO, AFB_G_AFFECTED, AFB_S_TUNABLE, 16, 0, 95);
    put(AFB_W_THREADS, AFB_G_SYSTEM, AFB_S_PINNED, 1, 0, 0);
    put(AFB_W_THREADS, AFB_G_SYSTEM, AFB_S_SHIM_MALLOPT, 1, 0, 10);
    afb_results_finish(&r);
    static struct afb_selection all = { (1u << AFB_W_COUNT) - 1, (1u << AFB_S_COUNT) - 1, 3 };
    struct afb_check checks[32];
    int n = afb_checks(&r, checks, 32);
    char *outputs[4] = { NULL };
    size_t lens[4];
    FILE *f = open_memstream(&outputs[0], &lens[0]);
    afb_report_table(f, &r, &all, &host);
    afb_report_checks(f, checks, n);
    fclose(f);
    f = open_memstream(&outputs[1], &lens[1]);
    afb_report_csv(f, &r, &all);
    fclose(f);
    f = open_memstream(&outputs[2], &lens[2]);
    afb_report_json(f, &r, &all, &host, checks, n);
    fclose(f);
    static const char *const names[] = { "table", "CSV", "JSON" };
    for (int i = 0; i < 3; i++) {
        ck_assert_msg(!has_word(outputs[i], "inf") && !has_word(outputs[i], "nan")
                          && !has_word(outputs[i], "infinity"), "%s:\n%.1500s", names[i], outputs[i]);
    }
    char *affected = strstr(outputs[0], "affected  pinned             9       2.5     n/a  130 ");
    ck_assert_msg(affected != NULL, "%s", outputs[0]);
    ck_assert_ptr_nonnull(strstr(outputs[0], "waits x n/a: the baseline had no lock waits, so there is "
                                             "no ratio"));
    ck_assert_ptr_nonnull(strstr(outputs[0], "lockwaits = n/a (over 0) (target <= 1.10)"));
    for (int i = 0; i < 3; i++)
        free(outputs[i]);
}
END_TEST

/* The rule for timings that mean something, and the table saying so. */
START_TEST(small_host_timings_are_flagged)
{
    char why[96];
    ck_assert_ptr_nonnull(afb_timing_caveat(16, 2, why, sizeof why));
    ck_assert_str_eq(why, "16 threads on 2 online CPUs: more threads than CPUs");
    ck_assert_ptr_nonnull(afb_timing_caveat(2, 2, why, sizeof why));
    ck_assert_str_eq(why, "2 threads on 2 online CPUs: fewer than the 8 CPUs timings need");
    ck_assert_ptr_nonnull(afb_timing_caveat(65, 64, why, sizeof why));
    ck_assert_ptr_null(afb_timing_caveat(8, 8, why, sizeof why));
    ck_assert_ptr_null(afb_timing_caveat(16, 64, why, sizeof why));

    char *t = capture(table);   /* 16 threads, 2 CPUs */
    ck_assert_ptr_nonnull(strstr(t, "timings: not meaningful here (16 threads on 2 online CPUs: more "
                                    "threads than CPUs); read the arenas and lock waits."));
    free(t);
    r.online_cpus = 64;
    t = capture(table);
    ck_assert_ptr_null(strstr(t, "timings:"));
    free(t);
}
END_TEST

START_TEST(csv_has_one_row_per_cell)
{
    char *t = capture(csv);
    ck_assert_ptr_nonnull(strstr(t, "workload,glibc,scenario,status,runs,wall_ms,ops_per_s,"
                                    "thread_avg_ms,arenas,lockwaits,minflt,maxrss_kb,time_ratio,"
                                    "waits_ratio,note\n"));
    ck_assert_ptr_nonnull(strstr(t, "repro,system,pinned,ok,3,200,5,100,16,3,100,2048,1,1,\"\"\n"));
    ck_assert_ptr_nonnull(strstr(t, "repro,system,shim-mallopt,ok,1,150,"));
    ck_assert_ptr_nonnull(strstr(t, "repro,affected,pinned,unavailable,0,,,,,,,,,,\"no affected glibc"));
    int lines = 0;
    for (char *p = t; *p; p++)
        lines += *p == '\n';
    ck_assert_int_eq(lines, 1 + 2 * AFB_S_COUNT);
    free(t);
}
END_TEST

START_TEST(json_is_balanced_and_complete)
{
    char *t = capture(json);
    int depth = 0, in_string = 0;
    for (char *p = t; *p; p++) {
        if (*p == '"' && p[-1] != '\\')
            in_string = !in_string;
        if (!in_string && (*p == '{' || *p == '['))
            depth++;
        if (!in_string && (*p == '}' || *p == ']'))
            ck_assert_int_ge(--depth, 0);
    }
    ck_assert_int_eq(depth, 0);
    ck_assert_ptr_nonnull(strstr(t, "\"affected_glibc\": null"));
    ck_assert_ptr_nonnull(strstr(t, "\"scenario\": \"pinned\", \"iterations\": 100, \"status\": \"ok\""));
    ck_assert_ptr_nonnull(strstr(t, "\"runs\": [{\"wall_ms\": 100,"));
    ck_assert_ptr_nonnull(strstr(t, "\"status\": \"unavailable\""));
    ck_assert_ptr_nonnull(strstr(t, "\"median\": null"));
    ck_assert_ptr_nonnull(strstr(t, "\"met\": false"));  /* touch: 9 arenas */
    free(t);
}
END_TEST

START_TEST(json_strings_are_escaped)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    afx_json_quote(f, "a\"b\\c\n");
    fclose(f);
    ck_assert_str_eq(text, "\"a\\\"b\\\\c\\u000a\"");
    free(text);
}
END_TEST

START_TEST(plot_script_holds_the_data)
{
    char *t = capture(plot);
    ck_assert_ptr_nonnull(strstr(t, "set terminal svg"));
    ck_assert_ptr_nonnull(strstr(t, "set output 'out/results.svg'"));
    /* scenario, then arenas, lock waits, wall time: system then affected */
    ck_assert_ptr_nonnull(strstr(t, "\npinned 16 NaN 3 NaN 200 NaN\n"));
    ck_assert_ptr_nonnull(strstr(t, "\nunpinned NaN NaN NaN NaN NaN NaN\n"));
    /* no affected glibc: no series for it, or gnuplot stops */
    ck_assert_ptr_nonnull(strstr(t, "plot $data using 2 title 'system'"));
    ck_assert_ptr_null(strstr(t, "title 'affected'"));
    ck_assert_ptr_nonnull(strstr(t, "\"shim\\nmallopt\" 4"));
    free(t);
}
END_TEST

START_TEST(targets)
{
    struct afb_check c[32];
    int n = afb_checks(&r, c, 32);
    int arenas_ok = -2, touch = -2, waits = -2, throughput = -2;
    for (int i = 0; i < n; i++) {
        if (strcmp(c[i].name, "arenas repro system/shim-mallopt == fixed glibc's") == 0)
            arenas_ok = c[i].verdict;
        if (strcmp(c[i].name, "arenas repro system/shim-touch == fixed glibc's") == 0)
            touch = c[i].verdict;
        if (strstr(c[i].name, "lock waits repro") != NULL)
            waits = c[i].verdict;
        if (strstr(c[i].name, "throughput") != NULL)
            throughput = c[i].verdict;
    }
    ck_assert_int_eq(arenas_ok, 1);
    ck_assert_int_eq(touch, 0);
    ck_assert_int_eq(waits, 1);      /* 3 / 3 */
    ck_assert_int_eq(throughput, -1); /* 2 CPUs: not measurable */
}
END_TEST

START_TEST(churn_goes_by_the_fastest_runs)
{
    /* On a host whose timings mean something. */
    r.online_cpus = 64;
    /* Noise only adds: a slow median must not hide a cost within 1%. */
    put(AFB_W_THREADS, 0, AFB_S_PINNED, 3, 0, 99.5);
    put(AFB_W_THREADS, 0, AFB_S_PINNED, 3, 0, 150);
    put(AFB_W_THREADS, 0, AFB_S_PINNED, 3, 0, 400);
    put(AFB_W_THREADS, 0, AFB_S_SHIM_MALLOPT, 3, 0, 100);
    put(AFB_W_THREADS, 0, AFB_S_SHIM_MALLOPT, 3, 0, 200);
    put(AFB_W_THREADS, 0, AFB_S_SHIM_MALLOPT, 3, 0, 300);
    put(AFB_W_EXEC, 0, AFB_S_PINNED, 1, 0, 100);
    put(AFB_W_EXEC, 0, AFB_S_SHIM_MALLOPT, 1, 0, 104);
    afb_results_finish(&r);
    struct afb_check c[32];
    int n = afb_checks(&r, c, 32), threads = -2, exec = -2;
    for (int i = 0; i < n; i++) {
        if (strcmp(c[i].name, "thread churn system: preload <= 1.01 x without") == 0) {
            threads = c[i].verdict;
            ck_assert_ptr_nonnull(strstr(c[i].detail, "medians 1.333"));
        }
        if (strcmp(c[i].name, "exec churn system: preload <= 1.03 x without") == 0)
            exec = c[i].verdict;
    }
    ck_assert_int_eq(threads, 1);
    ck_assert_int_eq(exec, 0); /* 4% is over 3% */
}
END_TEST

/* Where the table says timings mean nothing here (16 threads on 2
 * CPUs), no time is graded: a churn within 1% on best of 5, or a
 * throughput, would be a verdict from noise.  The ratios are still
 * printed. */
START_TEST(no_verdict_from_noise)
{
    put(AFB_W_THREADS, 0, AFB_S_PINNED, 3, 0, 419);
    put(AFB_W_THREADS, 0, AFB_S_SHIM_MALLOPT, 3, 0, 418);
    put(AFB_W_EXEC, 0, AFB_S_PINNED, 1, 0, 100);
    put(AFB_W_EXEC, 0, AFB_S_SHIM_MALLOPT, 1, 0, 200);
    afb_results_finish(&r);
    struct afb_check c[32];
    int n = afb_checks(&r, c, 32), graded = 0;
    for (int i = 0; i < n; i++) {
        if (strstr(c[i].name, "churn") == NULL)
            continue;
        graded++;
        ck_assert_msg(c[i].verdict == -1, "%s: verdict %d from noise", c[i].name, c[i].verdict);
        ck_assert_msg(strstr(c[i].detail, "not judged, timings mean nothing here (16 threads on 2 online CPUs: "
                                          "more threads than CPUs)") != NULL, "%s", c[i].detail);
    }
    ck_assert_int_eq(graded, 2);
    char *t = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&t, &len);
    afb_report_checks(f, c, n);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(t, "  [ n/a ] thread churn system: preload <= 1.01 x without: not judged, timings "
                                    "mean nothing here (16 threads on 2 online CPUs: more threads than CPUs); "
                                    "best of 1: 0.998, medians 0.998\n"));
    ck_assert_ptr_null(strstr(t, "churn system: preload <= 1.03 x without: best of"));
    free(t);

    /* 64 threads on 32 CPUs: throughput is not judged either. */
    r.online_cpus = 32;
    r.threads = 64;
    put(AFB_W_REPRO, 0, AFB_S_UNPINNED, 16, 0, 100);
    put(AFB_W_REPRO, 0, AFB_S_TUNABLE, 16, 0, 100);
    afb_results_finish(&r);
    n = afb_checks(&r, c, 32);
    int throughput = 0;
    for (int i = 0; i < n; i++)
        if (strstr(c[i].name, "throughput") != NULL) {
            throughput++;
            ck_assert_msg(c[i].verdict == -1 && strstr(c[i].detail, "more threads than CPUs") != NULL, "%s: %s",
                          c[i].name, c[i].detail);
        }
    ck_assert_int_eq(throughput, 1);
}
END_TEST

START_TEST(an_affected_system_glibc_is_noticed)
{
    /* Where the system glibc is affected its pinned run gets 9 arenas:
     * the shim is still judged against what a fixed glibc gives. */
    teardown();
    memset(&r, 0, sizeof r);
    r.threads = 16;
    r.online_cpus = 2;
    put(AFB_W_REPRO, 0, AFB_S_PINNED, 9, 4, 100);
    put(AFB_W_REPRO, 0, AFB_S_SHIM_MALLOPT, 16, 0, 100);
    put(AFB_W_REPRO, 0, AFB_S_SHIM_BOTH, 9, 0, 100);
    afb_results_finish(&r);
    struct afb_check c[32];
    int n = afb_checks(&r, c, 32), mallopt = -2, both = -2;
    for (int i = 0; i < n; i++) {
        if (strcmp(c[i].name, "arenas repro system/shim-mallopt == fixed glibc's") == 0)
            mallopt = c[i].verdict;
        if (strcmp(c[i].name, "arenas repro system/shim-both == fixed glibc's") == 0)
            both = c[i].verdict;
    }
    ck_assert_int_eq(mallopt, 1);
    ck_assert_int_eq(both, 0);
    char *t = capture(table);
    ck_assert_ptr_nonnull(strstr(t, "note: the system glibc looks affected too: its pinned run got 9 "
                                    "arenas, a fixed glibc gives 16"));
    free(t);
    ck_assert_int_eq(afb_fixed_arenas(16, 64), 17);
    ck_assert_int_eq(afb_fixed_arenas(64, 2), 16);
}
END_TEST

Suite *output_suite(void)
{
    Suite *s = suite_create("output");
    TCase *tc = tcase_create("formats");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, medians);
    tcase_add_test(tc, ratios);
    tcase_add_test(tc, table_shows_rows_ratios_and_missing_glibc);
    tcase_add_test(tc, spread_is_median_min_max);
    tcase_add_test(tc, no_inf_or_nan_in_any_format);
    tcase_add_test(tc, small_host_timings_are_flagged);
    tcase_add_test(tc, csv_has_one_row_per_cell);
    tcase_add_test(tc, json_is_balanced_and_complete);
    tcase_add_test(tc, json_strings_are_escaped);
    tcase_add_test(tc, plot_script_holds_the_data);
    tcase_add_test(tc, targets);
    tcase_add_test(tc, churn_goes_by_the_fastest_runs);
    tcase_add_test(tc, no_verdict_from_noise);
    tcase_add_test(tc, an_affected_system_glibc_is_noticed);
    suite_add_tcase(s, tc);
    return s;
}
