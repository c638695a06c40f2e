/* Programs that lock themselves down, threads glibc starts itself, and
 * the mode that must change nothing.
 *
 * A program whose seccomp filter kills it on open or openat (a browser,
 * a sandbox, systemd's SystemCallFilter=) must create its threads with
 * the library loaded as without it, in every mode: arenafix reads what
 * it needs before main.  A process that starts on fewer CPUs than are
 * online (taskset, a cpuset, CPUAffinity=) gets the fixed glibc's limit
 * even when only glibc's own threads (SIGEV_THREAD timers) make arenas.
 * ARENAFIX_MODE=off gives what no preload gives, on every glibc. */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "arenas.h"
#include "harness.h"

static struct child c;

static const char *const modes[] = { NULL, "mallopt", "touch", "both", "off" };
enum { NMODES = sizeof modes / sizeof modes[0] };

static int run_mode(const struct glibc *g, const char *mode, const char *const *args)
{
    char modevar[32];
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode != NULL ? mode : "");
    const char *env[] = { modevar, NULL };
    afx_run(&c, g, mode != NULL ? afx_testlib : NULL, env, "sandboxed", args);
    return c.status == 0 && strstr(c.out, "arenas=") != NULL ? afx_arenas(&c) : -1;
}

/* The system glibc, fixed, itself reads /sys when it fixes its limit:
 * such a filter kills the program there without any preload.  The
 * proof runs on the affected glibcs, where glibc reads nothing. */
START_TEST(locked_down_program_makes_its_threads)
{
    const struct glibc *g = afx_proving(_i);
    if (!g->affected) {
        afx_skip("a program locked down by seccomp", "no affected glibc at hand");
        return;
    }
    if (afx_emulated()) {
        afx_skip("a program locked down by seccomp",
                 "under an emulator: qemu-user installs no seccomp filter for its guest");
        return;
    }
    const char *args[] = { "--seccomp", "pinned", "30", NULL };
    for (int m = 0; m < NMODES; m++) {
        int arenas = run_mode(g, modes[m], args);
        const char *mode = modes[m] != NULL ? modes[m] : "no preload";
        printf("sandbox: glibc=%s seccomp kills open/openat, 30 pinned threads, %s: status=%d "
               "arenas=%d\n", g->name, mode, c.status, arenas);
        ck_assert_msg(c.status == 0, "%s, %s: status %d (159: killed by the filter)\n%s%s",
                      g->name, mode, c.status, c.out, c.err);
        bool fixes = modes[m] != NULL && strcmp(modes[m], "off") != 0;
        ck_assert_msg(arenas == (fixes ? afx_fixed_arenas(30) : AFX_BUG_ARENAS),
                      "%s, %s: %d arenas", g->name, mode, arenas);
    }
}
END_TEST

/* Narrowed from outside before it starts, as taskset and CPUAffinity=
 * do: every thread, the ones glibc starts too, inherits one CPU. */
START_TEST(glibc_threads_in_a_process_started_narrow)
{
    const struct glibc *g = afx_proving(_i);
    if (afx_online < 2) {
        afx_skip("a process started narrow", "one CPU online: nothing is narrower");
        return;
    }
    cpu_set_t wide, one;
    ck_assert(first_allowed_cpu(&wide, &one));
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    const char *args[] = { "timers", "30", NULL };
    int oracle = run_mode(&afx_glibcs[0], NULL, args);
    int without = run_mode(g, NULL, args);
    int mallopt = run_mode(g, "mallopt", args);
    int both = run_mode(g, "both", args);
    int off = run_mode(g, "off", args);
    ck_assert_int_eq(sched_setaffinity(0, sizeof wide, &wide), 0);
    printf("sandbox: on one CPU from the start, 30 SIGEV_THREAD timers' threads: system=%d "
           "%s=%d %s+arenafix: mallopt=%d both=%d off=%d\n", oracle, g->name, without, g->name,
           mallopt, both, off);
    ck_assert_int_eq(oracle, afx_fixed_arenas(30));
    if (g->affected)
        ck_assert_int_eq(without, AFX_BUG_ARENAS);
    ck_assert_int_eq(mallopt, oracle);
    ck_assert_int_eq(both, oracle);
    ck_assert_int_eq(off, without);
}
END_TEST

/* Narrowed by its main thread after it started, then SIGEV_THREAD
 * timers: glibc starts their threads itself, on the main thread's one
 * CPU, and no interposer sees them start; timer_create is where
 * arenafix sets the limit (0.1.0: 9 arenas on every affected glibc). */
START_TEST(glibc_threads_after_the_process_narrowed)
{
    const struct glibc *g = afx_proving(_i);
    if (afx_online < 2) {
        afx_skip("a process that narrows, then arms timers", "one CPU online: nothing is narrower");
        return;
    }
    const char *args[] = { "pin-timers", "30", NULL };
    int oracle = run_mode(&afx_glibcs[0], NULL, args);
    int without = run_mode(g, NULL, args);
    int mallopt = run_mode(g, "mallopt", args);
    int both = run_mode(g, "both", args);
    printf("sandbox: the main thread pins itself, then 30 SIGEV_THREAD timers' threads: "
           "system=%d %s=%d %s+arenafix: mallopt=%d both=%d\n", oracle, g->name, without,
           g->name, mallopt, both);
    ck_assert_int_eq(oracle, afx_fixed_arenas(30));
    if (g->affected)
        ck_assert_int_eq(without, AFX_BUG_ARENAS);
    ck_assert_int_eq(mallopt, oracle);
    ck_assert_int_eq(both, oracle);
}
END_TEST

/* Started narrow, the program keeps glibc's window as on a fixed glibc:
 * its own choices, made before its threads or after its first, count
 * (its arena_test raises the limit, its M_ARENA_MAX replaces it).
 * 0.1.0 set its limit before main there, and a choice made after the
 * first thread gave 16 arenas where the fixed glibc gives 4 and 21. */
START_TEST(choices_in_a_process_started_narrow)
{
    const struct glibc *g = afx_proving(_i);
    if (afx_online < 2) {
        afx_skip("a process started narrow", "one CPU online: nothing is narrower");
        return;
    }
    static const char *const scenarios[][4] = {
        { "mallopt:test:100", "pinned:21" },
        { "mallopt:max:2", "pinned:20" },
        /* the program's limit stays when its arena_test comes after */
        { "mallopt:max:2", "mallopt:test:64", "free:12" },
        { "pinned:30" },
        { "one", "mallopt:max:4", "pinned:30" },
        { "one", "mallopt:test:20", "pinned:30" },
    };
    cpu_set_t wide, one;
    ck_assert(first_allowed_cpu(&wide, &one));
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        const char *const *steps = scenarios[i];
        const char *mallopt[] = { "ARENAFIX_MODE=mallopt", NULL };
        ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
        afx_run(&c, &afx_glibcs[0], NULL, NULL, "steps", steps);
        int oracle = afx_arenas(&c);
        afx_run(&c, g, afx_testlib, mallopt, "steps", steps);
        int with = afx_arenas(&c);
        ck_assert_int_eq(sched_setaffinity(0, sizeof wide, &wide), 0);
        printf("sandbox: on one CPU from the start, \"%s %s %s\": system=%d %s+arenafix=%d\n",
               steps[0], steps[1] != NULL ? steps[1] : "",
               steps[1] != NULL && steps[2] != NULL ? steps[2] : "", oracle, g->name, with);
        ck_assert_msg(with == oracle, "\"%s\" started narrow on %s: %d arenas, the fixed glibc "
                      "gives %d\n%s", steps[0], g->name, with, oracle, c.err);
    }
}
END_TEST

/* Off is the library-free process, whatever the way threads pin. */
START_TEST(off_changes_nothing)
{
    const struct glibc *g = afx_proving(_i);
    static const char *const paths[] = { "self", "attr", "inherit", "pthread" };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        const char *args[] = { paths[p], "30", NULL };
        const char *off[] = { "ARENAFIX_MODE=off", NULL };
        afx_run(&c, g, NULL, NULL, "pinned", args);
        int without = afx_arenas(&c);
        afx_run(&c, g, afx_testlib, off, "pinned", args);
        int with = afx_arenas(&c);
        printf("sandbox: glibc=%s pinned %s 30: without=%d off=%d\n", g->name, paths[p],
               without, with);
        ck_assert_msg(with == without, "%s, %s: %d arenas with mode off, %d without", g->name,
                      paths[p], with, without);
    }
    /* Threads that pin themselves and malloc on a stack left as it is:
     * what the interposers leave below them is what glibc leaves. */
    const char *unclean[] = { "unclean", "30", NULL };
    int without = run_mode(g, NULL, unclean);
    int with = run_mode(g, "off", unclean);
    printf("sandbox: glibc=%s pinned on an uncleaned stack 30: without=%d off=%d\n", g->name,
           without, with);
    ck_assert_msg(with == without, "%s, stack not cleared: %d arenas with mode off, %d without",
                  g->name, with, without);
}
END_TEST

Suite *sandbox_suite(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, locked_down_program_makes_its_threads, 0, afx_nproving());
    tcase_add_loop_test(tc, glibc_threads_in_a_process_started_narrow, 0, afx_nproving());
    tcase_add_loop_test(tc, glibc_threads_after_the_process_narrowed, 0, afx_nproving());
    tcase_add_loop_test(tc, choices_in_a_process_started_narrow, 0, afx_nproving());
    tcase_add_loop_test(tc, off_changes_nothing, 0, afx_nproving());
    suite_add_tcase(s, tc);
    return s;
}
