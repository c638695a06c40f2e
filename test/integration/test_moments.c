/* The moments around the one where the limit is set (test/progs/moments.c
 * makes each happen on purpose): creators racing it, a fork in the middle
 * of it, no descriptor left, no /proc.  Each on every glibc at hand,
 * without the library and with it (mallopt and both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const moments[] = { "race", "readers", "fork", "emfile", "emfile-first",
                                       "noproc", "fewnoproc" };
enum { NMOMENTS = sizeof moments / sizeof moments[0] };

/* N from a line "NAME=N" of the child's output, -1 if absent. */
static int value(const struct child *c, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = c->out; (p = strstr(p, name)) != NULL; p++)
        if ((p == c->out || p[-1] == '\n') && p[len] == '=')
            return atoi(p + len + 1);
    return -1;
}

static void run(struct child *c, const struct glibc *g, const char *moment, const char *mode)
{
    char modevar[32];
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode != NULL ? mode : "");
    const char *env[] = { modevar, NULL };
    const char *args[] = { moment, NULL };
    afx_run(c, g, mode != NULL ? afx_testlib : NULL, env, "moments", args);
}

START_TEST(each_moment)
{
    const struct glibc *g = &afx_glibcs[_i / NMOMENTS];
    const char *moment = moments[_i % NMOMENTS];
    bool forks = strcmp(moment, "fork") == 0;
    /* The count to compare: the forked child's, for a fork. */
    const char *counted = forks ? "child-arenas" : "arenas";
    struct child *c = calloc(1, sizeof *c);

    run(c, g, moment, NULL);
    bool noproc = strstr(moment, "noproc") != NULL;
    if (c->status == 2 && noproc && strstr(c->err, "unshare")) {
        afx_skip("the moment without /proc", c->err);
        free(c);
        return;
    }
    ck_assert_msg(c->status == 0, "%s glibc, %s without the library: status %d: %s%s",
                  g->name, moment, c->status, c->out, c->err);
    int without = value(c, counted);
    /* The fixed glibc's count, or what arenafix must give instead. */
    long expected = afx_fixed_arenas(AFX_THREADS);
    /* The program's own mallopt(M_ARENA_MAX, 3).  (For emfile, the fixed
     * glibc itself counts the calling thread's mask when it can open
     * nothing, and gives the bug's count: arenafix remembers the online
     * count instead.) */
    long expected_without = 3;
    if (strcmp(moment, "noproc") == 0)
        expected = 3;
    /* On 32-bit, arena_test is 2: the two threads that stay bring the
     * process past it, arenafix sets its limit first, and the program's
     * value comes too late for it (libarenafix(7), BUGS AND LIMITATIONS). */
    if (strcmp(moment, "noproc") == 0 && AFX_PER_CPU <= 2)
        expected = afx_fixed_arenas(AFX_THREADS);
    /* 30 threads of which 4 malloc: what the fixed glibc gives 4, as
     * without the library (5; 4 on a 32-bit host of 2 CPUs, whose limit
     * is 2 x 2). */
    if (strcmp(moment, "fewnoproc") == 0)
        expected = afx_fixed_arenas(4);

    int with[2];
    static const char *const modes[] = { "mallopt", "both" };
    for (int m = 0; m < 2; m++) {
        run(c, g, moment, modes[m]);
        ck_assert_msg(c->status == 0, "%s glibc, %s, mode %s: status %d: %s%s", g->name,
                      moment, modes[m], c->status, c->out, c->err);
        with[m] = value(c, counted);
    }
    printf("moments: glibc=%-17s moment=%-8s %s without=%d mallopt=%d both=%d expected=%ld\n",
           g->name, moment, counted, without, with[0], with[1], expected);
    fflush(stdout);
    if (noproc)
        ck_assert_msg(without == (strcmp(moment, "noproc") == 0 ? expected_without : expected),
                      "%s glibc, no /proc: %d arenas without the library, expected the "
                      "program's", g->name, without);
    for (int m = 0; m < 2; m++)
        ck_assert_msg(with[m] == expected, "%s glibc, %s, mode %s: %s %d, expected %ld",
                      g->name, moment, modes[m], counted, with[m], expected);
    free(c);
}
END_TEST

/* The program's mallopt(M_ARENA_MAX, 4), from another thread at the
 * moment the library sets its own limit: the program's value stands, as
 * on the fixed glibc, where the arenas stay as many as there were at the
 * call (0.1.0: the library's 16 went over it). */
START_TEST(program_mallopt_while_setting)
{
    const struct glibc *g = &afx_glibcs[_i];
    /* The program calls after its 7th worker has malloced and counts 8
     * arenas, one a thread: glibc's own limit (AFX_PER_CPU a CPU: 8 on
     * 64-bit, 2 on 32-bit) must allow 8. */
    if (AFX_PER_CPU * afx_online < 8) {
        char what[96], why[160];
        snprintf(what, sizeof what, "the program's mallopt while the library sets its limit, on %s", g->name);
        snprintf(why, sizeof why, "%ld CPUs: this glibc allows %d arenas a CPU, fewer than the 8 the program "
                 "counts on", afx_online, AFX_PER_CPU);
        afx_skip(what, why);
        return;
    }
    struct child *c = calloc(1, sizeof *c);
    static const char *const modes[] = { NULL, "mallopt", "both" };
    for (int m = 0; m < 3; m++) {
        run(c, g, "mallopt", modes[m]);
        int at = value(c, "at-mallopt"), arenas = value(c, "arenas");
        printf("moments: glibc=%-17s moment=mallopt  mode=%-7s at-mallopt=%d arenas=%d\n",
               g->name, modes[m] != NULL ? modes[m] : "(none)", at, arenas);
        fflush(stdout);
        ck_assert_msg(c->status == 0 && at > 0 && arenas == at,
                      "%s glibc, mode %s: status %d, %d arenas at the program's "
                      "mallopt(M_ARENA_MAX, 4), %d at the end: %s%s", g->name,
                      modes[m] != NULL ? modes[m] : "(none)", c->status, at, arenas, c->out,
                      c->err);
    }
    free(c);
}
END_TEST

/* What must not break, in each mode: a pthread_create with a
 * cancellation pending comes back (it is no cancellation point); a signal
 * handler on an 8192-byte alternate stack narrows its mask; the first
 * pthread_create, from a thread arenafix did not see start, while
 * another thread's dlopen runs a constructor that starts a thread; a
 * mallopt reached from arenafix's own code (its count of arenas) is only
 * forwarded, never decided on inside the decision. */
START_TEST(safe_moment)
{
    static const char *const modes[] = { "mallopt", "touch", "both" };
    static const char *const what[][2] = { { "cancel", "came-back=yes mutex=free" },
                                           { "altstack", "altstack=ok" },
                                           { "dlopen", "ctor-create=0" },
                                           { "reenter", "reenter=ok" } };
    enum { NWHAT = sizeof what / sizeof what[0] };
    const struct glibc *g = &afx_glibcs[_i / NWHAT];
    const char *moment = what[_i % NWHAT][0];
    char lib[4200], modevar[32];
    snprintf(lib, sizeof lib, "%s/libctorcreate.so", afx_bin);
    struct child *c = calloc(1, sizeof *c);
    for (int m = 0; m < 3; m++) {
        snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", modes[m]);
        const char *env[] = { modevar, NULL };
        const char *args[] = { moment, lib, NULL };
        afx_run(c, g, afx_testlib, env, "moments", args);
        const char *missing = afx_runtime_missing(c);
        if (missing != NULL) {
            char skipped[128];
            snprintf(skipped, sizeof skipped, "moment %s on %s", moment, g->name);
            afx_skip(skipped, missing);
            break;
        }
        printf("moments: glibc=%-17s moment=%-8s mode=%-7s status=%d %s\n", g->name, moment,
               modes[m], c->status, strstr(c->out, what[_i % NWHAT][1]) ? "ok" : "FAILED");
        fflush(stdout);
        ck_assert_msg(c->status == 0 && strstr(c->out, what[_i % NWHAT][1]) != NULL,
                      "%s glibc, %s, mode %s: status %d: %s%s", g->name, moment, modes[m],
                      c->status, c->out, c->err);
    }
    free(c);
}
END_TEST

/* A thread forks while arenafix starts in another (test/progs/forkinit.c:
 * started by a library's constructor, before arenafix's); the child can
 * open no file, pins itself unseen and starts 30 threads.  arenafix starts
 * again in the child: the online count its parent read, not the pinned
 * thread's mask, sets the limit there. */
START_TEST(fork_while_starting)
{
    const struct glibc *g = &afx_glibcs[_i];
    char preload[8300], modevar[32];
    snprintf(preload, sizeof preload, "%s %s/libforkinit.so", afx_testlib, afx_bin);
    long expected = afx_fixed_arenas(AFX_THREADS);
    struct child *c = calloc(1, sizeof *c);
    static const char *const modes[] = { "mallopt", "both" };
    for (int m = 0; m < 2; m++) {
        snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", modes[m]);
        const char *env[] = { modevar, NULL };
        afx_run(c, g, preload, env, "single", NULL);
        int got = value(c, "child-arenas");
        printf("moments: glibc=%-17s moment=forkinit mode=%-7s child-arenas=%d expected=%ld\n", g->name,
               modes[m], got, expected);
        fflush(stdout);
        ck_assert_msg(c->status == 0 && strstr(c->out, "fork-in-init=yes\n") != NULL,
                      "%s glibc, mode %s: the fork did not come while arenafix started: status %d: %s%s",
                      g->name, modes[m], c->status, c->out, c->err);
        ck_assert_msg(got == expected, "%s glibc, mode %s: child-arenas %d, expected %ld", g->name, modes[m], got,
                      expected);
    }
    free(c);
}
END_TEST

/* A thread forks while another is inside arenafix (its first narrowing,
 * held in the mask read).  The library knows a thread inside it by its
 * thread pointer; the child's first thread takes the other's descriptor
 * from glibc's stack cache, and with it that pointer.  It must not be
 * taken for one inside arenafix: its creations are counted and decide,
 * and its 30 pinned workers get the fixed glibc's arenas (9 when its
 * creations only forwarded), whether arenafix saw it start or not (a
 * thread started through glibc's own pthread_create). */
START_TEST(fork_while_inside)
{
    const struct glibc *g = &afx_glibcs[_i / 2];
    const char *moment = _i % 2 ? "forkreuse-unseen" : "forkreuse";
    long expected = afx_fixed_arenas(AFX_THREADS);
    struct child *c = calloc(1, sizeof *c);
    static const char *const modes[] = { "mallopt", "both" };
    for (int m = 0; m < 2; m++) {
        run(c, g, moment, modes[m]);
        int got = value(c, "child-arenas");
        printf("moments: glibc=%-17s moment=%s mode=%-7s child-arenas=%d expected=%ld\n",
               g->name, moment, modes[m], got, expected);
        fflush(stdout);
        ck_assert_msg(c->status == 0 && got == expected,
                      "%s glibc, mode %s: status %d, child-arenas %d, expected %ld: %s%s", g->name,
                      modes[m], c->status, got, expected, c->out, c->err);
    }
    free(c);
}
END_TEST

Suite *moments_suite(void)
{
    Suite *s = suite_create("moments");
    TCase *tc = tcase_create("moments");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, each_moment, 0, afx_nglibcs * NMOMENTS);
    tcase_add_loop_test(tc, safe_moment, 0, afx_nglibcs * 4);
    tcase_add_loop_test(tc, program_mallopt_while_setting, 0, afx_nglibcs);
    tcase_add_loop_test(tc, fork_while_starting, 0, afx_nglibcs);
    tcase_add_loop_test(tc, fork_while_inside, 0, afx_nglibcs * 2);
    suite_add_tcase(s, tc);
    return s;
}
