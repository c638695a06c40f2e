#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "suites.h"

static struct afx_facts plain(long online)
{
    struct afx_facts f = { 0 };
    f.arenas = -1;
    f.thread_cpus = online;
    f.online = online;
    f.online_source = "/sys/devices/system/cpu/online";
    return f;
}

static char why[400];

START_TEST(default_sets_eight_per_cpu)
{
    struct afx_facts f = plain(64);
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(d.set_arena_max);
    ck_assert(!d.touch);
    ck_assert_int_eq(d.arena_max, 64 * (long)AFX_ARENAS_PER_CPU);
    /* 512 on 64-bit, 128 on 32-bit (2 arenas per CPU there) */
    char expected[32];
    snprintf(expected, sizeof expected, "arena_max=%ld (%ld x 64 CPUs", 64 * AFX_ARENAS_PER_CPU,
             AFX_ARENAS_PER_CPU);
    ck_assert_ptr_nonnull(strstr(why, expected));
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
    f.user.arena_max_from = AFX_FROM_ENV;
    f.user.arena_max = 4;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max && !d.touch);
    ck_assert_ptr_nonnull(strstr(why, "MALLOC_ARENA_MAX=4"));

    f.user.arena_max_from = AFX_FROM_TUNABLES;
    f.user.arena_max = 6;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "glibc.malloc.arena_max=6"));

    f = plain(8);
    f.cfg.mode = AFX_MODE_BOTH;
    f.program_arena_max = 3;
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max && !d.touch);
    ck_assert_ptr_nonnull(strstr(why, "mallopt(M_ARENA_MAX, 3)"));

    f = plain(8);
    f.foreign_malloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
    d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max);
    ck_assert_ptr_nonnull(strstr(why, "libjemalloc"));

}
END_TEST

/* glibc fixes its limit only once more than arena_test arenas exist:
 * threads alone say nothing (timer and AIO helpers have no arena). */
START_TEST(too_late_only_by_glibc_latch_rule)
{
    struct afx_facts f = plain(8);
    long test = AFX_ARENAS_PER_CPU;
    f.arenas = 1;
    ck_assert(afx_decide(&f, why, sizeof why).set_arena_max);
    f.arenas = test + 1;    /* maybe fixed already: setting it is harmless */
    ck_assert(afx_decide(&f, why, sizeof why).set_arena_max);
    f.arenas = test + 2;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert(!d.set_arena_max && !d.touch);
    ck_assert_ptr_nonnull(strstr(why, "too late"));
    f.user.arena_test_from = AFX_FROM_ENV;  /* a larger arena_test moves the latch */
    f.user.arena_test = 100;
    ck_assert(afx_decide(&f, why, sizeof why).set_arena_max);
}
END_TEST

/* The fixed glibc creates arena_test + 1 arenas before any limit. */
START_TEST(arena_test_keeps_its_effect)
{
    struct afx_facts f = plain(2);
    f.user.arena_test_from = AFX_FROM_TUNABLES;
    f.user.arena_test = 100;
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_test, 100);
    ck_assert_int_eq(d.arena_max, 101);
    ck_assert_ptr_nonnull(strstr(why, "GLIBC_TUNABLES"));
    f.program_arena_test = 50;      /* the program's mallopt comes later */
    d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_max, 51);
    f.program_arena_test = 0;
    f.user.arena_test = 3;
    d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_max, 2 * (long)AFX_ARENAS_PER_CPU);
}
END_TEST

/* A single CPU: glibc's default arena_test + 1 is above 8 x 1. */
START_TEST(one_cpu_keeps_default_arena_test)
{
    struct afx_facts f = plain(1);
    struct afx_decision d = afx_decide(&f, why, sizeof why);
    ck_assert_int_eq(d.arena_max, AFX_ARENAS_PER_CPU + 1);
    ck_assert_ptr_nonnull(strstr(why, "glibc's default"));
}
END_TEST

/* Touch mode says when it cannot help: a mask narrowed unseen. */
START_TEST(touch_says_when_it_cannot_help)
{
    struct afx_facts f = plain(16);
    f.cfg.mode = AFX_MODE_TOUCH;
    afx_decide(&f, why, sizeof why);
    ck_assert_ptr_null(strstr(why, "cannot"));
    f.thread_cpus = 1;
    afx_decide(&f, why, sizeof why);
    ck_assert_ptr_nonnull(strstr(why, "1 of 16 CPUs"));
    ck_assert_ptr_nonnull(strstr(why, "touch cannot widen it"));
    f.narrowing_seen = true;
    afx_decide(&f, why, sizeof why);
    ck_assert_ptr_null(strstr(why, "cannot"));
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
    tcase_add_test(tc, too_late_only_by_glibc_latch_rule);
    tcase_add_test(tc, arena_test_keeps_its_effect);
    tcase_add_test(tc, one_cpu_keeps_default_arena_test);
    tcase_add_test(tc, touch_says_when_it_cannot_help);
    tcase_add_test(tc, unknown_cpu_count_uses_two);
    tcase_add_test(tc, explanation_never_overflows);
    suite_add_tcase(s, tc);
    return s;
}
