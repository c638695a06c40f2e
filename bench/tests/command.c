/* The built program, end to end: exit codes and messages for bad input,
 * the reproducer's two lines, a host without an affected glibc, and (when
 * ARENAFIX_AFFECTED_GLIBC and ARENAFIX_TESTLIB are there) the arena
 * counts that show the bug and the fix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"
#include "stats.h"
#include "tests.h"

static char out[65536];

/* Run the benchmark with ARGS (shell words); its stdout+stderr in out. */
static int bench(const char *args)
{
    const char *bin = getenv("AFB_BENCH_BIN");
    ck_assert_msg(bin != NULL, "AFB_BENCH_BIN names the program under test");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", bin, args);
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
    static char buf[65536];
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s was written", path);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(bad_flag_exits_2_with_a_message)
{
    ck_assert_int_eq(bench("--nope"), 2);
    ck_assert_ptr_nonnull(strstr(out, "arenafix-bench: unknown option '--nope'"));
    ck_assert_int_eq(bench("-w nosuch"), 2);
    ck_assert_ptr_nonnull(strstr(out, "unknown workload 'nosuch'"));
    ck_assert_int_eq(bench("repro 4 true"), 2);
}
END_TEST

START_TEST(unusable_topology_exits_3)
{
    char path[] = "/tmp/afb-topo-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, "<topology>not hwloc", 19), 19);
    close(fd);
    char args[128];
    snprintf(args, sizeof args, "--show-placement --topology %s", path);
    ck_assert_int_eq(bench(args), 3);
    ck_assert_ptr_nonnull(strstr(out, "topology"));
    unlink(path);
}
END_TEST

START_TEST(every_pinning_path_runs)
{
    static const char *const paths[] = { "self", "pthread", "attr", "inherit", "hwloc" };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char args[160];
        snprintf(args, sizeof args, "-q -w repro,threads -s pinned -g system -t 2 -i 50 -r 1 --pin %s",
                 paths[i]);
        ck_assert_msg(bench(args) == 0, "--pin %s: %s", paths[i], out);
        ck_assert_ptr_nonnull(strstr(out, "system    pinned        "));
    }
}
END_TEST

START_TEST(reproducer_prints_its_two_lines)
{
    ck_assert_int_eq(bench("-i 1000 repro 3 true false"), 0);
    double ms = -1;
    ck_assert_int_eq(sscanf(out, "nr_cpu: 3 pin: yes fix: no\nthread average (ms): %lf\n", &ms), 1);
    ck_assert(ms > 0);
}
END_TEST

START_TEST(missing_affected_glibc_is_said_in_the_table)
{
    char csv[] = "/tmp/afb-csv-XXXXXX";
    close(mkstemp(csv));
    char args[256];
    snprintf(args, sizeof args, "-q -w repro -s pinned -t 2 -i 1000 -r 1 "
                                "--affected-glibc /nonexistent --csv %s --plot %s.svg", csv, csv);
    ck_assert_int_eq(bench(args), 0);
    ck_assert_ptr_null(strstr(out, "no plot"));
    ck_assert_ptr_nonnull(strstr(out, "affected  (all)         not available: /nonexistent"));
    ck_assert_ptr_nonnull(strstr(out, "system    pinned        "));
    char *text = slurp(csv);
    ck_assert_ptr_nonnull(strstr(text, "repro,system,pinned,ok,1,"));
    ck_assert_ptr_nonnull(strstr(text, "repro,affected,pinned,unavailable,0,"));
    char svg[64], gp[64];
    snprintf(svg, sizeof svg, "%s.svg", csv);
    snprintf(gp, sizeof gp, "%s.gp", csv);
    ck_assert_ptr_nonnull(strstr(slurp(gp), "set output"));
    if (system("command -v gnuplot >/dev/null") == 0)
        ck_assert_ptr_nonnull(strstr(slurp(svg), "<svg"));
    unlink(csv);
    unlink(svg);
    unlink(gp);
}
END_TEST

static int csv_arenas(const char *text, const char *row)
{
    const char *at = strstr(text, row);
    ck_assert_msg(at != NULL, "row %s in %s", row, text);
    double wall, ops, avg, arenas;
    ck_assert_int_eq(sscanf(at + strlen(row), "%lf,%lf,%lf,%lf", &wall, &ops, &avg, &arenas), 4);
    return (int)arenas;
}

START_TEST(affected_glibc_shows_the_bug_and_the_fix)
{
    const char *glibc = getenv("ARENAFIX_AFFECTED_GLIBC"), *lib = getenv("ARENAFIX_TESTLIB");
    if (!afb_glibc_dir_usable(glibc) || lib == NULL || access(lib, R_OK) != 0) {
        fprintf(stderr, "bench tests: no affected glibc or shim; arena counts not checked\n");
        return;
    }
    char csv[] = "/tmp/afb-csv-XXXXXX";
    close(mkstemp(csv));
    char args[256];
    snprintf(args, sizeof args, "-q -w repro -s unpinned,pinned,shim-mallopt -t 16 -i 2000 -r 1 "
                                "--csv %s", csv);
    ck_assert_int_eq(bench(args), 0);
    char *text = slurp(csv);
    int fixed = afb_fixed_arenas(16, (int)sysconf(_SC_NPROCESSORS_ONLN));
    ck_assert_int_eq(csv_arenas(text, "repro,system,pinned,ok,1,"), fixed);
    ck_assert_int_eq(csv_arenas(text, "repro,affected,pinned,ok,1,"), 9);
    ck_assert_int_eq(csv_arenas(text, "repro,affected,shim-mallopt,ok,1,"), fixed);

    /* Threads that inherit main's mask: mallopt mode fixes it, and so does
     * touch mode, which saw main narrow and starts them on the mask main
     * had before. */
    snprintf(args, sizeof args, "-q -w repro -s shim-mallopt,shim-touch -g affected --pin inherit "
                                "-t 16 -i 2000 -r 1 --csv %s", csv);
    ck_assert_int_eq(bench(args), 0);
    text = slurp(csv);
    ck_assert_int_eq(csv_arenas(text, "repro,affected,shim-mallopt,ok,1,"), fixed);
    ck_assert_int_eq(csv_arenas(text, "repro,affected,shim-touch,ok,1,"), fixed);
    unlink(csv);
}
END_TEST

Suite *command_suite(void)
{
    Suite *s = suite_create("command");
    TCase *tc = tcase_create("arenafix-bench");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bad_flag_exits_2_with_a_message);
    tcase_add_test(tc, unusable_topology_exits_3);
    tcase_add_test(tc, every_pinning_path_runs);
    tcase_add_test(tc, reproducer_prints_its_two_lines);
    tcase_add_test(tc, missing_affected_glibc_is_said_in_the_table);
    tcase_add_test(tc, affected_glibc_shows_the_bug_and_the_fix);
    suite_add_tcase(s, tc);
    return s;
}
