/* Argument parsing: every flag, the reproducer's arguments, the errors. */
#include <string.h>

#include "options.h"
#include "tests.h"

static struct afb_options o;
static char err[256];

static int parse(int argc, const char **argv)
{
    afb_options_default(&o);
    err[0] = '\0';
    return afb_options_parse(&o, argc, (char **)argv, err, sizeof err);
}
#define PARSE(...) parse(sizeof((const char *[]){ "arenafix-bench", __VA_ARGS__ }) / sizeof(char *), \
                         (const char *[]){ "arenafix-bench", __VA_ARGS__ })

START_TEST(defaults_run_everything)
{
    const char *argv[] = { "arenafix-bench" };
    ck_assert_int_eq(parse(1, argv), 0);
    ck_assert_int_eq(o.command, AFB_CMD_MATRIX);
    ck_assert_uint_eq(o.workloads, (1u << AFB_W_COUNT) - 1);
    ck_assert_uint_eq(o.scenarios, (1u << AFB_S_COUNT) - 1);
    ck_assert_uint_eq(o.glibcs, 3);
    ck_assert_int_eq(o.repeat, 3);
    ck_assert_int_eq(o.threads, 0);
    ck_assert_int_eq(o.pin, AFB_P_SELF);
}
END_TEST

START_TEST(long_short_and_equals_forms)
{
    ck_assert_int_eq(PARSE("-t", "32", "--iterations=500", "-w", "repro,conn", "--scenarios",
                           "pinned,shim-both", "-g", "affected", "-r", "5", "--placement=compact",
                           "--unit", "core", "--pin", "attr", "-o", "out", "-q"), 0);
    ck_assert_int_eq(o.threads, 32);
    ck_assert_int_eq(o.iterations, 500);
    ck_assert_uint_eq(o.workloads, 1u << AFB_W_REPRO | 1u << AFB_W_CONN);
    ck_assert_uint_eq(o.scenarios, 1u << AFB_S_PINNED | 1u << AFB_S_SHIM_BOTH);
    ck_assert_uint_eq(o.glibcs, 1u << AFB_G_AFFECTED);
    ck_assert_int_eq(o.repeat, 5);
    ck_assert_int_eq(o.spread, AFB_COMPACT);
    ck_assert_int_eq(o.unit, AFB_UNIT_CORE);
    ck_assert_int_eq(o.pin, AFB_P_ATTR);
    ck_assert_str_eq(o.out_dir, "out");
    ck_assert(o.quiet);
}
END_TEST

/* As every GNU tool reads them (getopt_long): a value joined to its
 * letter, letters grouped, a long name cut to an unambiguous prefix. */
START_TEST(joined_grouped_and_prefixed)
{
    ck_assert_int_eq(PARSE("-t4"), 0);
    ck_assert_int_eq(o.threads, 4);
    ck_assert_int_eq(PARSE("-qt", "6", "-r2"), 0);
    ck_assert(o.quiet);
    ck_assert_int_eq(o.threads, 6);
    ck_assert_int_eq(o.repeat, 2);
    ck_assert_int_eq(PARSE("--thr=8", "--plac", "compact"), 0);
    ck_assert_int_eq(o.threads, 8);
    ck_assert_int_eq(o.spread, AFB_COMPACT);
    ck_assert_int_eq(PARSE("--p", "x"), -1);   /* placement, pin, plot or preload */
    ck_assert_ptr_nonnull(strstr(err, "ambiguous option '--p'"));
    ck_assert_int_eq(PARSE("-qx"), -1);
    ck_assert_ptr_nonnull(strstr(err, "'-x'"));
    ck_assert_int_eq(PARSE("-t"), -1);
    ck_assert_ptr_nonnull(strstr(err, "--threads needs a value"));
    ck_assert_int_eq(PARSE("-t4", "--", "repro", "2", "yes", "no"), 0);
    ck_assert_int_eq(o.command, AFB_CMD_REPRO);
    ck_assert_int_eq(o.repro_nr_cpu, 2);
}
END_TEST

START_TEST(paths)
{
    ck_assert_int_eq(PARSE("--csv", "a.csv", "--json=b.json", "--plot", "c.png", "--topology",
                           "t.xml", "--affected-glibc", "/g", "--preload", "/l.so"), 0);
    ck_assert_str_eq(o.csv, "a.csv");
    ck_assert_str_eq(o.json, "b.json");
    ck_assert_str_eq(o.plot, "c.png");
    ck_assert_str_eq(o.topology, "t.xml");
    ck_assert_str_eq(o.affected, "/g");
    ck_assert_str_eq(o.preload, "/l.so");
    ck_assert_int_eq(PARSE("--csv="), -1);
}
END_TEST

START_TEST(bad_flags_say_what_is_wrong)
{
    ck_assert_int_eq(PARSE("--frobnicate"), -1);
    ck_assert_ptr_nonnull(strstr(err, "--frobnicate"));
    ck_assert_int_eq(PARSE("-x"), -1);
    ck_assert_ptr_nonnull(strstr(err, "-x"));
    ck_assert_int_eq(PARSE("-t", "0"), -1);
    ck_assert_ptr_nonnull(strstr(err, "--threads"));
    ck_assert_int_eq(PARSE("-t", "12abc"), -1);
    ck_assert_int_eq(PARSE("--threads"), -1);
    ck_assert_ptr_nonnull(strstr(err, "needs a value"));
    ck_assert_int_eq(PARSE("-w", "repro,nosuch"), -1);
    ck_assert_ptr_nonnull(strstr(err, "nosuch"));
    ck_assert_int_eq(PARSE("-w", "repro,"), -1);
    ck_assert_int_eq(PARSE("-s", "pinned", "-g", "neither"), -1);
    ck_assert_int_eq(PARSE("--placement", "scatter"), -1);
    ck_assert_int_eq(PARSE("--unit", "socket"), -1);
    ck_assert_int_eq(PARSE("--pin", "none"), -1); /* unpinned is a scenario, not a path */
    ck_assert_ptr_nonnull(strstr(err, "inherit or hwloc"));
    ck_assert_int_eq(PARSE("-r", "0"), -1);
    ck_assert_int_eq(PARSE("--quiet=yes"), -1);
    ck_assert_int_eq(PARSE("stray"), -1);
    ck_assert_ptr_nonnull(strstr(err, "stray"));
}
END_TEST

START_TEST(reproducer_arguments)
{
    ck_assert_int_eq(PARSE("repro", "32", "true", "false"), 0);
    ck_assert_int_eq(o.command, AFB_CMD_REPRO);
    ck_assert_int_eq(o.repro_nr_cpu, 32);
    ck_assert(o.repro_pin);
    ck_assert(!o.repro_fix);
    ck_assert_int_eq(PARSE("-i", "10", "repro", "4", "no", "YES"), 0);
    ck_assert_int_eq(o.iterations, 10);
    ck_assert(!o.repro_pin && o.repro_fix);
    ck_assert_int_eq(PARSE("repro", "32", "true"), -1);
    ck_assert_ptr_nonnull(strstr(err, "NR_CPU PIN FIX"));
    ck_assert_int_eq(PARSE("repro", "x", "true", "false"), -1);
    ck_assert_int_eq(PARSE("repro", "4", "maybe", "false"), -1);
    ck_assert_ptr_nonnull(strstr(err, "maybe"));
}
END_TEST

START_TEST(commands)
{
    ck_assert_int_eq(PARSE("--help"), 0);
    ck_assert_int_eq(o.command, AFB_CMD_HELP);
    ck_assert_int_eq(PARSE("--show-placement", "-t", "8"), 0);
    ck_assert_int_eq(o.command, AFB_CMD_PLACEMENT);
    ck_assert_int_eq(PARSE("run-one", "repro", "2"), 0);
    ck_assert_int_eq(o.command, AFB_CMD_CHILD);
    ck_assert_int_eq(o.child_argc, 2);
    ck_assert_str_eq(o.child_argv[0], "repro");
}
END_TEST

Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, defaults_run_everything);
    tcase_add_test(tc, long_short_and_equals_forms);
    tcase_add_test(tc, joined_grouped_and_prefixed);
    tcase_add_test(tc, paths);
    tcase_add_test(tc, bad_flags_say_what_is_wrong);
    tcase_add_test(tc, reproducer_arguments);
    tcase_add_test(tc, commands);
    suite_add_tcase(s, tc);
    return s;
}
