/* The moments around the one where the limit is set (test/progs/moments.c
 * makes each happen on purpose): creators racing it, a fork in the middle
 * of it, no descriptor left, no /proc.  Each on every glibc at hand,
 * without the library and with it (mallopt and both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const moments[] = { "race", "readers", "fork", "emfile", "emfile-first",
                                       "noproc" };
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
    if (c->status == 2 && strcmp(moment, "noproc") == 0 && strstr(c->err, "unshare")) {
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
    if (strcmp(moment, "noproc") == 0)
        expected = 3;

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
    if (strcmp(moment, "noproc") == 0)
        ck_assert_msg(without == expected, "%s glibc, no /proc: %d arenas without the library, "
                      "expected the program's %ld", g->name, without, expected);
    for (int m = 0; m < 2; m++)
        ck_assert_msg(with[m] == expected, "%s glibc, %s, mode %s: %s %d, expected %ld",
                      g->name, moment, modes[m], counted, with[m], expected);
    free(c);
}
END_TEST

Suite *moments_suite(void)
{
    Suite *s = suite_create("moments");
    TCase *tc = tcase_create("moments");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, each_moment, 0, afx_nglibcs * NMOMENTS);
    suite_add_tcase(s, tc);
    return s;
}
