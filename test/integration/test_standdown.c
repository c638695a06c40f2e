/* Never over a user's choice, and explain itself: the preload stands
 * down for every explicit arena setting, says so in one line, and
 * otherwise stays silent. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* The tests that need an affected glibc run on each, afx_proving(_i):
 * there a wrong decision shows. */
static void pinned(struct child *c, const struct glibc *g, const char *preload,
                   const char *const *env, const char *mallopt)
{
    const char *args[] = { "self", "30", mallopt, NULL };
    afx_run(c, g, preload, env, "pinned", args);
}

static struct child c;

static void expect_arenas(const struct glibc *g, long want)
{
    int got = afx_arenas(&c);
    ck_assert_msg(got == want, "%s glibc: %d arenas, expected %ld\n%s", g->name, got, want, c.err);
}

START_TEST(malloc_arena_max_wins)
{
    const char *env[] = { "MALLOC_ARENA_MAX=4", "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    expect_arenas(afx_proving(_i), 4);
    ck_assert_msg(strstr(c.err, "standing down: MALLOC_ARENA_MAX=4 is set") != NULL, "%s",
                  c.err);
}
END_TEST

START_TEST(tunable_wins)
{
    const char *env[] = { "GLIBC_TUNABLES=glibc.malloc.tcache_count=7:glibc.malloc.arena_max=3",
                          "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    expect_arenas(afx_proving(_i), 3);
    ck_assert_msg(strstr(c.err, "GLIBC_TUNABLES sets glibc.malloc.arena_max=3") != NULL, "%s",
                  c.err);
}
END_TEST

/* glibc's precedence: the tunable over the older variable. */
START_TEST(tunable_over_variable)
{
    const char *env[] = { "GLIBC_TUNABLES=glibc.malloc.arena_max=3", "MALLOC_ARENA_MAX=5",
                          "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    expect_arenas(afx_proving(_i), 3);
    ck_assert_msg(strstr(c.err, "GLIBC_TUNABLES") != NULL, "%s", c.err);
}
END_TEST

START_TEST(program_mallopt_wins)
{
    const char *env[] = { "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, "5");
    expect_arenas(afx_proving(_i), 5);
    ck_assert_msg(strstr(c.err, "the program called mallopt(M_ARENA_MAX, 5)") != NULL, "%s",
                  c.err);
}
END_TEST

START_TEST(explicit_arena_max)
{
    const char *env[] = { "ARENAFIX_ARENA_MAX=12", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    expect_arenas(afx_proving(_i), 12);
}
END_TEST

/* jemalloc has no glibc arenas to size: hands off. */
START_TEST(foreign_malloc)
{
    static const char *const candidates[] = {
        "/usr/lib/" AFX_MULTIARCH "/libjemalloc.so.2",
        "/usr/lib/libjemalloc.so.2",
        "/usr/lib64/libjemalloc.so.2",
    };
    const char *jemalloc = NULL;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (access(candidates[i], R_OK) == 0)
            jemalloc = candidates[i];
    if (jemalloc == NULL) {
        printf("SKIP: foreign malloc stand-down: libjemalloc.so.2 not installed "
               "(apt-get install libjemalloc2)\n");
        return;
    }
    char preload[4096];
    snprintf(preload, sizeof preload, "%s %s", jemalloc, afx_testlib);
    const char *env[] = { "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, &afx_glibcs[0], preload, env, NULL);
    ck_assert_msg(c.status == 0, "status %d: %s", c.status, c.err);
    ck_assert_msg(strstr(c.err, "standing down: malloc is not glibc's") != NULL, "%s", c.err);
    ck_assert_msg(strstr(c.err, "jemalloc") != NULL, "%s", c.err);
}
END_TEST

/* Silent by default; one line, at activation, when asked. */
START_TEST(silent_by_default_one_line_when_verbose)
{
    pinned(&c, afx_proving(_i), afx_testlib, NULL, NULL);
    expect_arenas(afx_proving(_i), afx_fixed_arenas(AFX_THREADS));
    ck_assert_msg(c.err[0] == '\0', "stderr not empty: %s", c.err);

    const char *env[] = { "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    ck_assert_int_eq(afx_log_lines(&c), 1);
    char expect[128];
    snprintf(expect, sizeof expect, "%ld CPUs online, this thread sees ", afx_online);
    ck_assert_msg(strstr(c.err, expect) != NULL, "%s", c.err);
    snprintf(expect, sizeof expect, "arena_max=%ld (", afx_online * (sizeof(long) == 4 ? 2 : 8));
    ck_assert_msg(strstr(c.err, expect) != NULL, "%s", c.err);
    ck_assert_msg(strstr(c.err, "mode mallopt)") != NULL, "%s", c.err);
}
END_TEST

/* A bad value: one warning naming it, then the default behaviour. */
START_TEST(malformed_variable_warns_once)
{
    const char *env[] = { "ARENAFIX_MODE=sometimes", "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, afx_proving(_i), afx_testlib, env, NULL);
    expect_arenas(afx_proving(_i), afx_fixed_arenas(AFX_THREADS));
    ck_assert_msg(strstr(c.err, "ignoring ARENAFIX_MODE=\"sometimes\"") != NULL, "%s", c.err);
    ck_assert_int_eq(afx_log_lines(&c), 2);     /* the warning, the activation */
}
END_TEST

/* Lazy by default: a program that never creates a thread or narrows
 * its mask never activates (its one line, at exit, says nothing was
 * changed).  Eager activates from the constructor. */
START_TEST(eager_activates_in_constructor)
{
    const char *lazy[] = { "ARENAFIX_VERBOSE=1", NULL };
    if (afx_emulated() && _i == 0)
        afx_skip("a lazy single-threaded program never activates",
                 "under an emulator: qemu-user's /proc/self/stat has no thread count and its "
                 "/proc/self/status counts the emulator's own thread, so arenafix sees two "
                 "threads from the constructor and explains itself (as when loaded late)");
    if (!afx_emulated()) {
        afx_run(&c, afx_proving(_i), afx_testlib, lazy, "single", NULL);
        ck_assert_int_eq(c.status, 0);
        ck_assert_msg(afx_log_lines(&c) == 1 && strstr(c.err, "nothing was changed") != NULL
                          && strstr(c.err, "arena_max=") == NULL,
                      "%s", c.err);
    }

    const char *eager[] = { "ARENAFIX_VERBOSE=1", "ARENAFIX_EAGER=1", NULL };
    afx_run(&c, afx_proving(_i), afx_testlib, eager, "single", NULL);
    ck_assert_int_eq(c.status, 0);
    ck_assert_int_eq(afx_log_lines(&c), 1);
    ck_assert_msg(strstr(c.err, "arena_max=") != NULL, "%s", c.err);
}
END_TEST

/* ---- at the latch: the count that decides ------------------------------ */

/* arenafix decides late when threads it did not see start made arenas
 * first (a library's threads started behind its back).  glibc has fixed
 * its limit only once more than arena_test + 1 arenas exist: with
 * exactly arena_test + 1 (main's and one per hidden thread) it must
 * still set its limit, with one more it must stand down, and say how
 * many it counted.  An arena counted twice moves both. */
static void hidden_then_pinned(const struct glibc *g, int hidden, int pinned_after)
{
    char first[32], then[32];
    snprintf(first, sizeof first, "hidden:%d", hidden);
    snprintf(then, sizeof then, "pinned:%d", pinned_after);
    const char *steps[] = { first, then, NULL };
    const char *env[] = { "ARENAFIX_MODE=mallopt", "ARENAFIX_VERBOSE=1", NULL };
    afx_run(&c, g, afx_testlib, env, "steps", steps);
}

START_TEST(late_decision_at_the_boundary)
{
    const struct glibc *g = afx_proving(_i);
    int threads = AFX_THREADS;
    hidden_then_pinned(g, AFX_PER_CPU, threads - AFX_PER_CPU);
    int in_time = afx_arenas(&c);
    ck_assert_msg(strstr(c.err, "too late") == NULL && strstr(c.err, "arena_max=") != NULL,
                  "%s glibc, %d arenas before arenafix decided: %s", g->name, AFX_PER_CPU + 1,
                  c.err);
    ck_assert_msg(in_time == afx_fixed_arenas(threads), "%s glibc: %d arenas, expected %ld\n%s",
                  g->name, in_time, afx_fixed_arenas(threads), c.err);

    hidden_then_pinned(g, AFX_PER_CPU + 1, threads - AFX_PER_CPU - 1);
    afx_arenas(&c);
    char expect[128];
    snprintf(expect, sizeof expect, "standing down: too late, %d arenas exist (more than "
             "arena_test %d + 1)", AFX_PER_CPU + 2, AFX_PER_CPU);
    ck_assert_msg(strstr(c.err, expect) != NULL, "%s glibc: expected \"%s\": %s", g->name,
                  expect, c.err);
    printf("standdown: glibc=%s %d arenas before the decision: arenas=%d (set); %d: stood "
           "down\n", g->name, AFX_PER_CPU + 1, in_time, AFX_PER_CPU + 2);
}
END_TEST

/* ---- touch mode's note on a mask narrowed unseen ------------------------- */

/* A process on one CPU from the start that moves to another one: the
 * move narrows nothing, so arenafix has seen no narrowing and touch
 * mode must still say it cannot help this thread's children. */
START_TEST(same_count_move_is_no_narrowing)
{
    if (afx_emulated()) {
        afx_skip("a move from one CPU to another",
                 "under an emulator: qemu-user reports the thread on both CPUs after the "
                 "program's unseen narrowing (\"this thread sees 2\"), with or without the "
                 "fix (run natively)");
        return;
    }
    const char *env[] = { "ARENAFIX_MODE=touch", "ARENAFIX_VERBOSE=1", NULL };
    afx_run(&c, &afx_glibcs[0], afx_testlib, env, "movecpu", NULL);
    if (c.status == 77) {
        afx_skip("a move from one CPU to another", "fewer than two CPUs allowed");
        return;
    }
    ck_assert_msg(c.status == 0, "status %d: %s%s", c.status, c.out, c.err);
    char expect[128];
    snprintf(expect, sizeof expect, "but this thread already runs on 1 of %ld CPUs, narrowed "
             "before arenafix was loaded", afx_online);
    ck_assert_msg(strstr(c.err, expect) != NULL, "%s", c.err);
}
END_TEST

/* ---- a malloc that is an IFUNC --------------------------------------------- */

/* An allocator that defines malloc as an IFUNC defines it all the same:
 * arenafix stands down and the count stays what it is without it (the
 * library forwards to glibc's allocator, so the arenas are countable). */
START_TEST(ifunc_malloc_is_foreign)
{
    const struct glibc *g = afx_proving(_i);
    char ifunc[4096], preload[8192];
    snprintf(ifunc, sizeof ifunc, "%s/libifuncmalloc.so", afx_bin);
    snprintf(preload, sizeof preload, "%s %s", afx_testlib, ifunc);
    pinned(&c, g, ifunc, NULL, NULL);
    int without = afx_arenas(&c);
    const char *env[] = { "ARENAFIX_VERBOSE=1", NULL };
    pinned(&c, g, preload, env, NULL);
    int with = afx_arenas(&c);
    printf("standdown: glibc=%s malloc an IFUNC of a preload: without=%d with=%d\n", g->name,
           without, with);
    ck_assert_msg(strstr(c.err, "standing down: malloc is not glibc's (it comes from ") != NULL
                  && strstr(c.err, "libifuncmalloc.so") != NULL, "%s", c.err);
    if (g->affected)
        ck_assert_int_eq(without, AFX_BUG_ARENAS);
    ck_assert_int_eq(with, without);
}
END_TEST

Suite *standdown_suite(void)
{
    Suite *s = suite_create("standdown");
    TCase *tc = tcase_create("choices");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, malloc_arena_max_wins, 0, afx_nproving());
    tcase_add_loop_test(tc, tunable_wins, 0, afx_nproving());
    tcase_add_loop_test(tc, tunable_over_variable, 0, afx_nproving());
    tcase_add_loop_test(tc, program_mallopt_wins, 0, afx_nproving());
    tcase_add_loop_test(tc, explicit_arena_max, 0, afx_nproving());
    tcase_add_test(tc, foreign_malloc);
    tcase_add_loop_test(tc, silent_by_default_one_line_when_verbose, 0, afx_nproving());
    tcase_add_loop_test(tc, malformed_variable_warns_once, 0, afx_nproving());
    tcase_add_loop_test(tc, eager_activates_in_constructor, 0, afx_nproving());
    tcase_add_loop_test(tc, late_decision_at_the_boundary, 0, afx_nproving());
    tcase_add_test(tc, same_count_move_is_no_narrowing);
    tcase_add_loop_test(tc, ifunc_malloc_is_foreign, 0, afx_nproving());
    suite_add_tcase(s, tc);
    return s;
}
