/* Integration tests: the real preload in child processes, on the system
 * glibc and on an affected one when there is one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Read the online CPU count without the code under test. */
static long online_cpus(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    long n = 0, a, b;
    char sep;
    if (f == NULL)
        return 0;
    while (fscanf(f, "%ld", &a) == 1) {
        b = a;
        if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
            if (fscanf(f, "%ld", &b) != 1)
                break;
            if (fscanf(f, "%c", &sep) != 1)
                sep = '\n';
        }
        n += b - a + 1;
        if (sep != ',')
            break;
    }
    fclose(f);
    return n;
}

/* The system glibc shows the bug if pinned threads get the bug's count
 * where a fixed glibc would give more (RHEL 9 and other unpatched 2.34-2.38). */
static bool system_is_affected(void)
{
    if (afx_fixed_arenas(AFX_THREADS) == AFX_BUG_ARENAS)
        return false;
    struct child *c = calloc(1, sizeof *c);
    const char *args[] = { "self", "30", NULL };
    afx_run(c, &afx_glibcs[0], NULL, NULL, "pinned", args);
    bool affected = c->status == 0 && strstr(c->out, "arenas=9\n") != NULL;
    free(c);
    return affected;
}

int main(void)
{
    afx_testlib = getenv("ARENAFIX_TESTLIB");
    afx_bin = getenv("AFX_TEST_BIN");
    if (afx_testlib == NULL || afx_bin == NULL) {
        fprintf(stderr, "integration: set ARENAFIX_TESTLIB and AFX_TEST_BIN (make check does)\n");
        return 2;
    }
    afx_online = online_cpus();
    if (afx_online < 1) {
        fprintf(stderr, "integration: cannot read /sys/devices/system/cpu/online\n");
        return 2;
    }
    printf("library under test: %s\n", afx_testlib);
    printf("CPUs online: %ld; a fixed glibc gives %d pinned threads %ld arenas\n", afx_online,
           AFX_THREADS, afx_fixed_arenas(AFX_THREADS));

    afx_glibcs[0] = (struct glibc){ .name = "system" };
    afx_nglibcs = 1;
    afx_glibcs[0].affected = system_is_affected();
    printf("system glibc: %s\n", afx_glibcs[0].affected
               ? "AFFECTED by glibc bug 30945: the proof runs on it too"
               : "not affected (fixed): the counts must stay as they are");
    const char *affected = getenv("ARENAFIX_AFFECTED_GLIBC");
    if (affected != NULL && *affected != '\0') {
        afx_glibcs[1] = (struct glibc){ .name = "affected", .dir = affected, .affected = true };
        afx_nglibcs = 2;
        printf("affected glibc: %s\n", affected);
    } else if (!afx_glibcs[0].affected) {
        afx_skip("the proof on an affected glibc (arena counts without and with the shim, "
                 "every pinning path)",
                 "no affected glibc: ARENAFIX_AFFECTED_GLIBC is unset and "
                 "../shared/glibc-bz30945 was not found; only the system glibc was checked");
    }

    SRunner *sr = srunner_create(arenas_suite());
    srunner_add_suite(sr, standdown_suite());
    srunner_add_suite(sr, semantics_suite());
    srunner_add_suite(sr, cost_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (afx_skipped > 0)
        printf("%d group(s) of tests skipped: see the SKIP lines above\n", afx_skipped);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
