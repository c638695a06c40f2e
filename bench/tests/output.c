/* Output formats and targets over hand-made results: the table, CSV,
 * JSON and plot script say what the cells hold, and say so plainly when
 * a glibc or the shim was not there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    /* base row: ratio 1.00 both ways */
    char *base = strstr(t, "system    pinned");
    ck_assert_ptr_nonnull(base);
    ck_assert_ptr_nonnull(strstr(base, "1.00    1.00  (base)"));
    /* shim: 150/200 time, 3/3 waits */
    char *shim = strstr(t, "system    shim-mallopt");
    ck_assert_ptr_nonnull(shim);
    ck_assert_ptr_nonnull(strstr(shim, "0.75    1.00\n"));
    ck_assert_ptr_nonnull(strstr(t, "affected  (all)         not available: no affected glibc"));
    ck_assert_ptr_nonnull(strstr(t, "affected glibc: none on this host"));
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
    tcase_add_test(tc, csv_has_one_row_per_cell);
    tcase_add_test(tc, json_is_balanced_and_complete);
    tcase_add_test(tc, json_strings_are_escaped);
    tcase_add_test(tc, plot_script_holds_the_data);
    tcase_add_test(tc, targets);
    tcase_add_test(tc, churn_goes_by_the_fastest_runs);
    tcase_add_test(tc, an_affected_system_glibc_is_noticed);
    suite_add_tcase(s, tc);
    return s;
}
