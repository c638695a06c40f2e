/* Transparency: pthread_create and the affinity calls behave exactly as
 * without the preload, in every mode, on every glibc at hand. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

static const char *const modes[] = { "mallopt", "touch", "both", "off" };
enum { NMODES = sizeof modes / sizeof modes[0] };

static void same_as_without(const char *prog, const char *const *args)
{
    static struct child bare, shim;
    for (int g = 0; g < afx_nglibcs; g++) {
        afx_run(&bare, &afx_glibcs[g], NULL, NULL, prog, args);
        const char *missing = afx_runtime_missing(&bare);
        if (missing != NULL) {
            char what[128];
            snprintf(what, sizeof what, "%s on %s", prog, afx_glibcs[g].name);
            afx_skip(what, missing);
            continue;
        }
        ck_assert_msg(bare.status == 0, "%s fails even without the shim on the %s glibc:\n%s%s",
                      prog, afx_glibcs[g].name, bare.out, bare.err);
        for (int m = 0; m < NMODES; m++) {
            char mode[32];
            snprintf(mode, sizeof mode, "ARENAFIX_MODE=%s", modes[m]);
            const char *env[] = { mode, NULL };
            afx_run(&shim, &afx_glibcs[g], afx_testlib, env, prog, args);
            ck_assert_msg(shim.status == 0 && strcmp(shim.out, bare.out) == 0,
                          "%s, %s glibc, mode %s: status %d\n%s%s", prog, afx_glibcs[g].name,
                          modes[m], shim.status, shim.out, shim.err);
        }
    }
}

START_TEST(c_threads)
{
    /* A failed create's thread is waited for by its ID, up to the
     * program's own limit (30 s, a hang's bound): however loaded the
     * machine or slow the emulator. */
    const char *args[] = { "all", NULL };
    same_as_without("semantics", args);
}
END_TEST

START_TEST(cxx_threads)
{
    same_as_without("semantics-cxx", NULL);
}
END_TEST

/* i386: pthread_create@GLIBC_2.0 with LinuxThreads' attribute reaches
 * glibc's conversion, in every mode, from a wide and from a narrowed
 * creator (touch mode's two paths). */
START_TEST(old_attribute_converted)
{
    static struct child bare, shim;
    for (int g = 0; g < afx_nglibcs; g++) {
        for (int narrow = 0; narrow < 2; narrow++) {
            const char *args[] = { narrow ? "narrow" : NULL, NULL };
            afx_run(&bare, &afx_glibcs[g], NULL, NULL, "oldcreate", args);
            if (bare.status == 77) {
                afx_skip("pthread_create@GLIBC_2.0", "only i386 has it");
                return;
            }
            ck_assert_msg(bare.status == 0, "oldcreate fails without the shim on the %s glibc:"
                          "\n%s%s", afx_glibcs[g].name, bare.out, bare.err);
            for (int m = 0; m < NMODES; m++) {
                char mode[32];
                snprintf(mode, sizeof mode, "ARENAFIX_MODE=%s", modes[m]);
                const char *env[] = { mode, NULL };
                afx_run(&shim, &afx_glibcs[g], afx_testlib, env, "oldcreate", args);
                printf("semantics: glibc=%s mode=%s %s%s", afx_glibcs[g].name, modes[m],
                       narrow ? "narrowed creator: " : "", shim.out);
                ck_assert_msg(shim.status == 0 && strcmp(shim.out, bare.out) == 0,
                              "oldcreate%s, %s glibc, mode %s: status %d\n%s%s",
                              narrow ? " narrow" : "", afx_glibcs[g].name, modes[m],
                              shim.status, shim.out, shim.err);
            }
        }
    }
}
END_TEST

/* A program whose references carry no symbol version reaches the
 * affinity calls that take a size (x86: not the pre-2.3.4 ones). */
START_TEST(unversioned_references)
{
    same_as_without("nover", NULL);
}
END_TEST

Suite *semantics_suite(void)
{
    Suite *s = suite_create("semantics");
    TCase *tc = tcase_create("transparent");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, c_threads);
    tcase_add_test(tc, cxx_threads);
    tcase_add_test(tc, old_attribute_converted);
    tcase_add_test(tc, unversioned_references);
    suite_add_tcase(s, tc);
    return s;
}
