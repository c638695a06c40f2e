/* The proof: for every way real software pins threads, the arena count
 * without the shim (the bug, on an affected glibc) and with it in each
 * mode (the count a fixed glibc gives). */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const paths[] = { "self", "pthread", "attr", "inherit", "inheritpid", "raw",
#if defined(__x86_64__) || defined(__i386__)
                                     /* the GLIBC_2.3.3 versions: x86 only (aarch64's
                                      * glibc starts at 2.17, with none older) */
                                     "old", "oldpthread",
#endif
                                     "ctor" };
enum { NPATHS = sizeof paths / sizeof paths[0] };

static int arenas_with(const struct glibc *g, const char *path, const char *mode)
{
    struct child c;
    char threads[16], ctor[32], modevar[32];
    snprintf(threads, sizeof threads, "%d", AFX_THREADS);
    snprintf(ctor, sizeof ctor, "AFX_CTOR_THREADS=%d", AFX_THREADS);
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode ? mode : "");
    bool by_ctor = strcmp(path, "ctor") == 0;
    const char *env[] = { modevar, by_ctor ? ctor : NULL, NULL };
    const char *args[] = { path, threads, NULL };
    afx_run(&c, g, mode ? afx_testlib : NULL, env, "pinned", args);
    return afx_arenas(&c);
}

static void check_glibc_path(const struct glibc *g, int i)
{
    const char *path = paths[i];
    long fixed = afx_fixed_arenas(AFX_THREADS);
    int without = arenas_with(g, path, NULL);
    int mallopt = arenas_with(g, path, "mallopt");
    int touch = arenas_with(g, path, "touch");
    int both = arenas_with(g, path, "both");
    int off = arenas_with(g, path, "off");

    printf("arenas: glibc=%-17s path=%-7s threads=%d fixed-glibc=%ld without=%d mallopt=%d "
           "touch=%d both=%d off=%d\n",
           g->name, path, AFX_THREADS, fixed, without, mallopt, touch, both, off);
    fflush(stdout);     /* a failed check ends this process without flushing */

    if (g->affected)
        ck_assert_msg(without == AFX_BUG_ARENAS, "%s glibc, path %s: %d arenas without the "
                      "shim, expected the bug's %d", g->name, path, without, AFX_BUG_ARENAS);
    else
        ck_assert_msg(without == fixed, "%s glibc, path %s: %d arenas without the shim, "
                      "expected %ld", g->name, path, without, fixed);
    ck_assert_msg(mallopt == fixed, "%s glibc, path %s, mode mallopt: %d arenas, expected %ld",
                  g->name, path, mallopt, fixed);
    ck_assert_msg(both == fixed, "%s glibc, path %s, mode both: %d arenas, expected %ld",
                  g->name, path, both, fixed);
    /* Even a mask inherited from a parent that pinned itself through
     * the interposers: its threads malloc on the mask it had before
     * (the limit of touch mode is a mask narrowed unseen, test/real).
     * A thread that narrows itself by a raw system call is unseen too:
     * touch mode touches a thread born wide only when it narrows its
     * own mask through an interposer, so there it is glibc's count. */
    long touch_expected = strcmp(path, "raw") == 0 ? without : fixed;
    ck_assert_msg(touch == touch_expected, "%s glibc, path %s, mode touch: %d arenas, "
                  "expected %ld", g->name, path, touch, touch_expected);
    ck_assert_msg(off == without, "%s glibc, path %s, mode off: %d arenas, expected %d as "
                  "without", g->name, path, off, without);
}

/* Every path on every glibc: _i / NPATHS picks the glibc, _i % NPATHS the path. */
START_TEST(pinned_paths)
{
    check_glibc_path(&afx_glibcs[_i / NPATHS], _i % NPATHS);
}
END_TEST

/* Unpinned threads are untouched by the fix, whatever the glibc. */
START_TEST(unpinned_unchanged)
{
    const struct glibc *g = &afx_glibcs[_i];
    int without = arenas_with(g, "none", NULL);
    int with = arenas_with(g, "none", "mallopt");
    printf("arenas: glibc=%-17s path=none    threads=%d without=%d mallopt=%d\n", g->name,
           AFX_THREADS, without, with);
    ck_assert_int_eq(without, afx_fixed_arenas(AFX_THREADS));
    ck_assert_int_eq(with, without);
}
END_TEST

Suite *arenas_suite(void)
{
    Suite *s = suite_create("arenas");
    TCase *tc = tcase_create("pinned");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, pinned_paths, 0, afx_nglibcs * NPATHS);
    tcase_add_loop_test(tc, unpinned_unchanged, 0, afx_nglibcs);
    suite_add_tcase(s, tc);
    return s;
}
