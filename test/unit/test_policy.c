#include <string.h>

#include "policy.h"
#include "suites.h"

static struct afx_facts plain(long online)
{
    struct afx_facts f = { 0 };
    f.threads = 1;
    f.online = online;
    f.online_source = "/sys/devices/system/cpu/online";
    return f;
}

static char why[320];

START_TEST(default_sets_eight_per_cpu)
{
    struct afx_facts f = plain(64);
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(d.set_arena_max);
    ck_assert(!d.touch);
    ck_assert_int_eq(d.arena_max, 64 * (long)AFX_ARENAS_PER_CPU);
    ck_assert_ptr_nonnull(strstr(why, "arena_max=512"));
    ck_assert_ptr_nonnull(strstr(why, "mode mallopt"));
}
END_TEST

START_TEST(explicit_arena_max_wins_over_count)
{
    struct afx_facts f = plain(64);
    f.cfg.arena_max = 20;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_max, 20);
    ck_assert_ptr_nonnull(strstr(why, "ARENAFIX_ARENA_MAX"));
}
END_TEST

START_TEST(modes)
{
    struct afx_facts f = plain(4);
    f.cfg.mode = AFX_MODE_TOUCH;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(d.touch && !d.set_arena_max);
    f.cfg.mode = AFX_MODE_BOTH;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(d.touch && d.set_arena_max);
    ck_assert_int_eq(d.arena_max, 4 * (long)AFX_ARENAS_PER_CPU);
    f.cfg.mode = AFX_MODE_OFF;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.touch && !d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "off"));
}
END_TEST

/* Each user choice makes it stand down, in glibc's precedence. */
START_TEST(stands_down_for_user_choices)
{
    struct afx_facts f = plain(8);
    f.env_set = true;
    f.env_value = 4;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max && !d.touch);
    ck_assert_ptr_nonnull(strstr(why, "MALLOC_ARENA_MAX=4"));

    f.tunable_set = true;
    f.tunable_value = 6;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "glibc.malloc.arena_max=6"));

    f = plain(8);
    f.cfg.mode = AFX_MODE_BOTH;
    f.program_mallopt = true;
    f.program_mallopt_value = 3;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max && !d.touch);
    ck_assert_ptr_nonnull(strstr(why, "mallopt(M_ARENA_MAX, 3)"));

    f = plain(8);
    f.foreign_malloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "libjemalloc"));

    f = plain(8);
    f.threads = 5;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "5 threads"));
}
END_TEST

/* glibc ignores the malloc tunables in secure-execution processes, so
 * they are no user choice there. */
START_TEST(secure_ignores_environment_settings)
{
    struct afx_facts f = plain(8);
    f.secure = true;
    f.env_set = f.tunable_set = true;
    f.env_value = f.tunable_value = 2;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(d.set_arena_max);
    ck_assert_int_eq(d.arena_max, 8 * (long)AFX_ARENAS_PER_CPU);
}
END_TEST

START_TEST(unknown_cpu_count_uses_two)
{
    struct afx_facts f = plain(0);
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_max, 2 * (long)AFX_ARENAS_PER_CPU);
}
END_TEST

START_TEST(explanation_never_overflows)
{
    char small[16];
    struct afx_facts f = plain(8);
    f.foreign_malloc = "/a/very/long/path/that/does/not/fit/anywhere/libsomething.so";
    afx_decide(&f, small, sizeof small);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

Suite *policy_suite(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, default_sets_eight_per_cpu);
    tcase_add_test(tc, explicit_arena_max_wins_over_count);
    tcase_add_test(tc, modes);
    tcase_add_test(tc, stands_down_for_user_choices);
    tcase_add_test(tc, secure_ignores_environment_settings);
    tcase_add_test(tc, unknown_cpu_count_uses_two);
    tcase_add_test(tc, explanation_never_overflows);
    suite_add_tcase(s, tc);
    return s;
}
