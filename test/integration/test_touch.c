/* Touch mode touches exactly the threads that need it (those born on a
 * narrowed mask, and those that narrow their own), and leaves every
 * thread as glibc makes it: its attribute, detach state, errno and
 * stack.  C11 threads get the fix in every mode.  Each test runs on the
 * system glibc and on every affected one; the counts a fixed glibc gives
 * are the system glibc's without arenafix, or afx_fixed_arenas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const modes[] = { "mallopt", "touch", "both" };
enum { NMODES = sizeof modes / sizeof modes[0] };

static struct child c;

/* Run touchprobe ARGS under g, with the library in MODE (NULL: without). */
static void probe(const struct glibc *g, const char *mode, const char *const *args)
{
    char modevar[32];
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode ? mode : "");
    const char *env[] = { modevar, NULL };
    afx_run(&c, g, mode ? afx_testlib : NULL, env, "touchprobe", args);
    ck_assert_msg(c.status == 0, "touchprobe %s%s%s on %s, mode %s: status %d\n%s%s", args[0],
                  args[1] ? " " : "", args[1] ? args[1] : "", g->name, mode ? mode : "none",
                  c.status, c.out, c.err);
}

static int counter(const char *name)
{
    const char *p = strstr(c.out, name);
    ck_assert_msg(p != NULL, "no %s in: %s", name, c.out);
    return atoi(p + strlen(name));
}

/* ---- C11 threads ------------------------------------------------------- */

static const char *const c11_hows[] = { "c11-self", "c11-default", "c11-creator" };
enum { NC11 = sizeof c11_hows / sizeof c11_hows[0] };

/* 30 thrd_create threads pinned before their first malloc (by
 * themselves, by the process default attribute, by their creator):
 * glibc's thrd_create never calls pthread_create, so only an interposer
 * of its own sees them. */
START_TEST(c11_threads)
{
    const struct glibc *g = &afx_glibcs[_i / NC11];
    const char *how = c11_hows[_i % NC11];
    char threads[16];
    snprintf(threads, sizeof threads, "%d", AFX_THREADS);
    const char *args[] = { "threads", how, threads, threads, NULL };
    long fixed = afx_fixed_arenas(AFX_THREADS);
    probe(g, NULL, args);
    int without = afx_arenas(&c);
    printf("touch: glibc=%-17s %-12s without=%d", g->name, how, without);
    ck_assert_msg(without == (g->affected ? AFX_BUG_ARENAS : fixed),
                  "%s glibc, %s: %d arenas without arenafix", g->name, how, without);
    for (int m = 0; m < NMODES; m++) {
        probe(g, modes[m], args);
        int with = afx_arenas(&c);
        printf(" %s=%d", modes[m], with);
        ck_assert_msg(with == fixed, "%s glibc, %s, mode %s: %d arenas, a fixed glibc gives %ld",
                      g->name, how, modes[m], with, fixed);
        ck_assert_msg(counter("wrong-join=") == 0 && counter("wrong-cpu=") == 0,
                      "%s glibc, %s, mode %s: thrd_join lost the routine's int, or a thread "
                      "ran off its CPU: %s", g->name, how, modes[m], c.out);
    }
    printf(" fixed-glibc=%ld\n", fixed);
    fflush(stdout);
}
END_TEST

/* ---- only the threads that need it ------------------------------------- */

/* 30 threads, 4 of which allocate: a fixed glibc gives main's arena and
 * 4; a touch of every new thread would give its limit.  Unpinned, and
 * born with an attribute that has every allowed CPU: not narrow. */
START_TEST(idle_threads_untouched)
{
    const struct glibc *g = &afx_glibcs[_i / 2];
    const char *how = _i % 2 ? "attr-all" : "none";
    const char *args[] = { "threads", how, "30", "4", NULL };
    probe(&afx_glibcs[0], NULL, args);
    int oracle = afx_arenas(&c);
    ck_assert_int_eq(oracle, afx_fixed_arenas(4));
    printf("touch: glibc=%-17s 30 threads (%s), 4 allocate: system-without=%d", g->name, how,
           oracle);
    for (int m = 0; m < NMODES; m++) {
        probe(g, modes[m], args);
        int with = afx_arenas(&c);
        printf(" %s=%d", modes[m], with);
        ck_assert_msg(with == oracle, "%s glibc, mode %s: %d arenas for 4 allocating threads "
                      "of 30, a fixed glibc gives %d", g->name, modes[m], with, oracle);
    }
    printf("\n");
    fflush(stdout);
}
END_TEST

static const char *const pin_hows[] = { "attr", "creator", "self" };
enum { NPIN = sizeof pin_hows / sizeof pin_hows[0] };

/* Stack below the routine's frame, as touchprobe stack HOW reports it. */
static long stack_seen(const struct glibc *g, const char *mode, const char *how)
{
    const char *args[] = { "stack", how, NULL };
    probe(g, mode, args);
    return counter("stack=");
}

/* Threads pinned by their attribute, by their creator, by themselves,
 * before their first malloc: the fixed count in touch mode, each on its
 * CPU, and their routine has the stack it has without arenafix (the
 * touch leaves nothing on it: the trampoline's work is done in a frame
 * that is gone, its mask buffers in the heap block). */
START_TEST(pinned_touched)
{
    const struct glibc *g = &afx_glibcs[_i / NPIN];
    const char *how = pin_hows[_i % NPIN];
    char threads[16];
    snprintf(threads, sizeof threads, "%d", AFX_THREADS);
    const char *args[] = { "threads", how, threads, threads, NULL };
    long fixed = afx_fixed_arenas(AFX_THREADS);
    for (int m = 1; m < NMODES; m++) {
        probe(g, modes[m], args);
        int with = afx_arenas(&c);
        ck_assert_msg(with == fixed && counter("wrong-cpu=") == 0,
                      "%s glibc, pinned by %s, mode %s: %d arenas (a fixed glibc gives %ld): %s",
                      g->name, how, modes[m], with, fixed, c.out);
    }
    /* Nothing of the touch may stay under the routine: the stacks differ
     * by a few words at most. */
    long without = stack_seen(g, NULL, how), touch = stack_seen(g, "touch", how);
    printf("touch: glibc=%-17s pinned by %-7s arenas=%ld stack: without=%ld touch=%ld\n",
           g->name, how, fixed, without, touch);
    fflush(stdout);
    ck_assert_msg(labs(without - touch) <= 64, "%s glibc, pinned by %s: %ld bytes of stack "
                  "under the routine in touch mode, %ld without", g->name, how, touch, without);
}
END_TEST

/* A C11 thread born pinned by the process default goes through the
 * int (*)(void *) trampoline: the same stack. */
START_TEST(c11_stack)
{
    const struct glibc *g = &afx_glibcs[_i];
    long without = stack_seen(g, NULL, "c11-default"), touch = stack_seen(g, "touch", "c11-default");
    ck_assert_msg(labs(without - touch) <= 64, "%s glibc: %ld bytes of stack under a C11 "
                  "routine in touch mode, %ld without", g->name, touch, without);
}
END_TEST

/* ---- the thread as glibc makes it -------------------------------------- */

/* Output of touchprobe ARGS in each mode, as without arenafix. */
static void same_as_without(const struct glibc *g, const char *const *args)
{
    static char bare[sizeof c.out];
    probe(g, NULL, args);
    snprintf(bare, sizeof bare, "%s", c.out);
    for (int m = 0; m < NMODES; m++) {
        probe(g, modes[m], args);
        ck_assert_msg(strcmp(c.out, bare) == 0, "touchprobe %s on %s, mode %s:\n%swithout:\n%s",
                      args[0], g->name, modes[m], c.out, bare);
    }
}

/* Detached from the first instruction: a join right after
 * pthread_create fails with EINVAL, for threads born pinned too. */
START_TEST(detached_from_start)
{
    const struct glibc *g = &afx_glibcs[_i];
    const char *args[] = { "detached", "200", NULL };
    probe(g, NULL, args);
    ck_assert_msg(strcmp(c.out, "joinable=0 not-detached-inside=0\n") == 0, "%s", c.out);
    same_as_without(g, args);
}
END_TEST

/* errno after pthread_create and thrd_create is what the real call left:
 * unchanged on success, a failed stack mmap's ENOMEM on failure. */
START_TEST(errno_as_glibc)
{
    if (afx_emulated()) {
        afx_skip("errno after a create whose stack mmap fails",
                 "under an emulator: qemu-user takes the 64 TiB stack request on itself and "
                 "hangs there, with or without the library (run natively)");
        return;
    }
    const char *args[] = { "errno", NULL };
    same_as_without(&afx_glibcs[_i], args);
    ck_assert_msg(strstr(c.out, "no-stack: rc=11 errno=12") != NULL, "%s", c.out);
}
END_TEST

/* A thread born pinned to the last CPU by its attribute: only that CPU
 * from its routine's start, and the attribute's guard size, stack size
 * and explicit scheduling policy. */
START_TEST(attribute_kept)
{
    const char *args[] = { "attr", NULL };
    same_as_without(&afx_glibcs[_i], args);
    ck_assert_msg(strstr(c.out, "policy=SCHED_OTHER") != NULL, "%s", c.out);
}
END_TEST

/* The threads of each sigpin run: 20, or AFX_SIGPIN_THREADS (the fast
 * tier's fewer: the allocator each one starts spins until its 100
 * signals are in, longer the busier the machine, and a handler that
 * mallocs deadlocks in the first few). */
static const char *sigpin_threads(void)
{
    static char count[24];
    snprintf(count, sizeof count, "%ld", afx_env_count("AFX_SIGPIN_THREADS", 20));
    return count;
}

/* A thread touched once then narrowed again from a signal handler that
 * interrupts its mallocs: the handler's call mallocs nothing. */
START_TEST(touched_once)
{
    const struct glibc *g = &afx_glibcs[_i / 2];
    const char *args[] = { "sigpin", _i % 2 ? "attr" : "self", sigpin_threads(), NULL };
    probe(g, "touch", args);
    ck_assert_msg(strcmp(c.out, "sigpin: ok\n") == 0, "%s%s", c.out, c.err);
}
END_TEST

/* The program's libraries took pthread keys before arenafix's constructor
 * ran (libmanykeys.so, whose constructor runs first): 40, past glibc's
 * first 32, whose values glibc allocates a block for at the first
 * pthread_setspecific; marking a thread touched must not be its first
 * malloc, on the narrow mask.  Every key: touch mode cannot mark, and is
 * left out (said), and no narrowing from a signal handler mallocs. */
START_TEST(program_holds_keys)
{
    const struct glibc *g = &afx_glibcs[_i / NPIN];
    const char *how = pin_hows[_i % NPIN];
    char preload[8300];
    snprintf(preload, sizeof preload, "%s %s/libmanykeys.so", afx_testlib, afx_bin);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", AFX_THREADS);
    const char *args[] = { "threads", how, threads, threads, NULL };
    const char *env[] = { "ARENAFIX_MODE=touch", "AFX_KEYS=40", NULL };
    afx_run(&c, g, preload, env, "touchprobe", args);
    long fixed = afx_fixed_arenas(AFX_THREADS);
    ck_assert_msg(c.status == 0 && afx_arenas(&c) == fixed,
                  "%s glibc, pinned by %s, 40 keys taken first: status %d, %d arenas (a fixed "
                  "glibc gives %ld): %s%s", g->name, how, c.status, afx_arenas(&c), fixed, c.out,
                  c.err);

    const char *sigpin[] = { "sigpin", _i % 2 ? "attr" : "self", sigpin_threads(), NULL };
    const char *all[] = { "ARENAFIX_MODE=touch", "ARENAFIX_VERBOSE=1", "AFX_KEYS=all", NULL };
    afx_run(&c, g, preload, all, "touchprobe", sigpin);
    ck_assert_msg(c.status == 0 && strcmp(c.out, "sigpin: ok\n") == 0
                      && strstr(c.err, "no pthread key left for touch mode's mark") != NULL,
                  "%s glibc, every key taken: status %d: %s%s", g->name, c.status, c.out, c.err);
}
END_TEST

/* ---- the placement a creator makes ------------------------------------ */

static const char *const place_hows[] = { "attr", "c11-default", "creator" };
static const long place_tries[] = { 20000, 10000, 10000 };
enum { NPLACE = sizeof place_hows / sizeof place_hows[0] };

/* Those tries of each way of birth: make check-releases.  The fast tier
 * (make check) asks for fewer, the same for each, with
 * AFX_PLACEMENT_TRIES: a loss came once in a few hundred tries. */
static long placement_tries(int how)
{
    return afx_env_count("AFX_PLACEMENT_TRIES", place_tries[how]);
}

/* glibc sets a new thread's attribute (or inherited) mask before
 * pthread_create returns: a pthread_setaffinity_np the creator makes
 * right after it is the thread's mask from then on, and the creator reads
 * the birth mask before it.  A touch that took the birth mask back after
 * the call returned lost one move in a few hundred, for threads pinned
 * by their attribute, by the process default (C11), by their creator. */
START_TEST(creator_placement_kept)
{
    const struct glibc *g = &afx_glibcs[_i / NPLACE];
    const char *how = place_hows[_i % NPLACE];
    /* Under an emulator a try costs some hundred times as much: a
     * twentieth of them, so that the run ends within its limit, and 50 at
     * least (the fast tier's 300 would give 15: a creator that does not
     * wait for the hand-off loses 5-7 in 300, often none in 15). */
    char tries[24];
    long n = placement_tries(_i % NPLACE), least = n < 50 ? n : 50;
    if (afx_emulated())
        n = n / 20 > least ? n / 20 : least;
    snprintf(tries, sizeof tries, "%ld", n);
    const char *args[] = { "placement", how, tries, NULL };
    const char *const runs[] = { NULL, "touch", "both" };
    /* Thousands of creations in one child: a loaded host may take minutes
     * where an idle one takes seconds.  A hang is still caught. */
    afx_run_limit_s = 240;
    printf("touch: glibc=%-17s placement by the creator, born by %-11s", g->name, how);
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        char modevar[32];
        snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", runs[r] ? runs[r] : "");
        const char *env[] = { modevar, NULL };
        afx_run(&c, g, runs[r] ? afx_testlib : NULL, env, "touchprobe", args);
        if (c.status == 3 && strstr(c.out, "one allowed CPU") != NULL) {
            afx_skip("a creator's placement of a new thread",
                     "one allowed CPU: no second mask to move a thread to");
            return;
        }
        ck_assert_msg(c.status == 0, "touchprobe placement %s on %s, mode %s: status %d\n%s%s",
                      how, g->name, runs[r] ? runs[r] : "none", c.status, c.out, c.err);
        int lost = counter("lost="), wrong_birth = counter("wrong-birth=");
        printf(" %s=%d/%d", runs[r] ? runs[r] : "without", lost, wrong_birth);
        ck_assert_msg(lost == 0 && wrong_birth == 0,
                      "%s glibc, born by %s, mode %s, %s tries: a creator's "
                      "pthread_setaffinity_np undone, or the mask it read after the create "
                      "not the birth one: %s", g->name, how, runs[r] ? runs[r] : "none",
                      tries, c.out);
    }
    afx_run_limit_s = AFX_RUN_LIMIT_S;
    printf(" (lost/wrong-birth of %s)\n", tries);
    fflush(stdout);
}
END_TEST

Suite *touch_suite(void)
{
    Suite *s = suite_create("touch");
    TCase *tc = tcase_create("touch");
    tcase_set_timeout(tc, 800);
    tcase_add_loop_test(tc, c11_threads, 0, afx_nglibcs * NC11);
    tcase_add_loop_test(tc, idle_threads_untouched, 0, afx_nglibcs * 2);
    tcase_add_loop_test(tc, pinned_touched, 0, afx_nglibcs * NPIN);
    tcase_add_loop_test(tc, c11_stack, 0, afx_nglibcs);
    tcase_add_loop_test(tc, detached_from_start, 0, afx_nglibcs);
    tcase_add_loop_test(tc, errno_as_glibc, 0, afx_nglibcs);
    tcase_add_loop_test(tc, attribute_kept, 0, afx_nglibcs);
    tcase_add_loop_test(tc, touched_once, 0, afx_nglibcs * 2);
    tcase_add_loop_test(tc, program_holds_keys, 0, afx_nglibcs * NPIN);
    tcase_add_loop_test(tc, creator_placement_kept, 0, afx_nglibcs * NPLACE);
    suite_add_tcase(s, tc);
    return s;
}
