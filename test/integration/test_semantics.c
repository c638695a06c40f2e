/* Transparency: pthread_create and the affinity calls behave exactly as
 * without the preload, in every mode, on every glibc at hand. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const modes[] = { "mallopt", "touch", "both", "off" };
enum { NMODES = sizeof modes / sizeof modes[0] };

static void same_as_without(const char *prog)
{
    static struct child bare, shim;
    for (int g = 0; g < afx_nglibcs; g++) {
        afx_run(&bare, &afx_glibcs[g], NULL, NULL, prog, NULL);
        ck_assert_msg(bare.status == 0, "%s fails even without the shim on the %s glibc:\n%s%s",
                      prog, afx_glibcs[g].name, bare.out, bare.err);
        for (int m = 0; m < NMODES; m++) {
            char mode[32];
            snprintf(mode, sizeof mode, "ARENAFIX_MODE=%s", modes[m]);
            const char *env[] = { mode, NULL };
            afx_run(&shim, &afx_glibcs[g], afx_testlib, env, prog, NULL);
            ck_assert_msg(shim.status == 0 && strcmp(shim.out, bare.out) == 0,
                          "%s, %s glibc, mode %s: status %d\n%s%s", prog, afx_glibcs[g].name,
                          modes[m], shim.status, shim.out, shim.err);
        }
    }
}

START_TEST(c_threads)
{
    same_as_without("semantics");
}
END_TEST

START_TEST(cxx_threads)
{
    same_as_without("semantics-cxx");
}
END_TEST

Suite *semantics_suite(void)
{
    Suite *s = suite_create("semantics");
    TCase *tc = tcase_create("transparent");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, c_threads);
    tcase_add_test(tc, cxx_threads);
    suite_add_tcase(s, tc);
    return s;
}
