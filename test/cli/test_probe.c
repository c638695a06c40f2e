/* arenafix probe, on the system glibc and on an affected one. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

START_TEST(system_glibc_not_affected)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "verdict: not affected") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenas, pinned:     13") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(affected_glibc_affected)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", g));
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "verdict: affected") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenas, pinned:     9\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "with libarenafix:   13") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(json)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--json"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"not affected\",\"exit_status\":0,", 41) == 0, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned\":13,") != NULL, "%s", r.out);
    run_free(&r);

    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", g, "--json"));
    ck_assert_status(&r, 3);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"affected\",\"exit_status\":3,", 37) == 0, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned\":9,") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"arenas_pinned_with_library\":13,") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* One CPU allowed to the whole probe: the online count still rules. */
START_TEST(narrow_process_affinity)
{
    struct run r;
    run(&r, NULL, ARGV("taskset", "-c", "0", cli(), "probe"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "process affinity:   1 (0)") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(bad_input)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "probe", "--glibc", "/no/such/dir"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "--glibc /no/such/dir: no executable") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "extra"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "probe", "--glibc"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "needs a value") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("probe");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, system_glibc_not_affected);
    tcase_add_test(tc, affected_glibc_affected);
    tcase_add_test(tc, json);
    tcase_add_test(tc, narrow_process_affinity);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    return s;
}
