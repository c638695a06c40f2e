/* The loader's lock against the library's own waits (test/progs/
 * loaderrace.c): a thread arenafix did not see start dlopens a library
 * whose constructor starts a thread while another thread makes the
 * process's first pthread_create, 200 rounds each, and the same with
 * dlopen, dlclose and creations in a loop.  Every glibc at hand (the
 * fixed system one too: a preload in every process meets it there), in
 * each mode that acts.  A hung round is killed after half a minute and
 * fails the test; nothing is timed.  The fast tier (make check) runs
 * fewer rounds with AFX_LOADER_ROUNDS; make check-releases all 200. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const modes[] = { "mallopt", "touch", "both" };
enum { NMODES = sizeof modes / sizeof modes[0] };

/* Glibc and mode I (an index of the loop). */
static void rounds(int i, const char *what, const char *count)
{
    const struct glibc *g = &afx_glibcs[i / NMODES];
    const char *mode = modes[i % NMODES];
    char modevar[32];
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode);
    const char *env[] = { modevar, NULL };
    const char *args[] = { what, count, NULL };
    struct child *c = calloc(1, sizeof *c);
    ck_assert(c != NULL);
    /* 200 rounds, each a process: a slow machine is no hang. */
    afx_run_limit_s = 600;
    afx_run(c, g, afx_testlib, env, "loaderrace", args);
    afx_run_limit_s = AFX_RUN_LIMIT_S;
    printf("loader: glibc=%-17s %-6s mode=%-7s status=%d %s", g->name, what, mode, c->status,
           c->out);
    fflush(stdout);
    ck_assert_msg(c->status == 0 && strstr(c->out, "hung=0\n") != NULL,
                  "%s glibc, %s, mode %s: status %d: %s%s", g->name, what, mode, c->status,
                  c->out, c->err);
    free(c);
}

/* The rounds of each run: 200, or AFX_LOADER_ROUNDS. */
static const char *round_count(void)
{
    static char count[24];
    snprintf(count, sizeof count, "%ld", afx_env_count("AFX_LOADER_ROUNDS", 200));
    return count;
}

START_TEST(first_create_while_a_constructor_creates)
{
    rounds(_i, "shape", round_count());
}
END_TEST

START_TEST(dlopen_and_creations_at_once)
{
    rounds(_i, "stress", round_count());
}
END_TEST

Suite *loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("loader");
    tcase_set_timeout(tc, 700);
    tcase_add_loop_test(tc, first_create_while_a_constructor_creates, 0, afx_nglibcs * NMODES);
    tcase_add_loop_test(tc, dlopen_and_creations_at_once, 0, afx_nglibcs * NMODES);
    suite_add_tcase(s, tc);
    return s;
}
