/* Integration tests: the real preload in child processes, on the system
 * glibc and on every affected one at hand. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crossglibc.h"
#include "harness.h"
#include "suiterun.h"

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

/* Debian's cross glibc, used as well when installed. */
#ifdef AFX_CROSS_GLIBC
#define CROSS_GLIBC AFX_CROSS_GLIBC
#define CROSS_PACKAGE AFX_CROSS_PACKAGE
#endif
#ifdef CROSS_PACKAGE
#define CROSS_MISSING CROSS_PACKAGE " is not installed"
#else
#define CROSS_MISSING "no Debian cross glibc is known here for this architecture"
#endif

/* Arenas AFX_THREADS pinned threads get under g without the preload;
 * -1 if the program does not run there. */
static int pinned_arenas(const struct glibc *g)
{
    struct child *c = calloc(1, sizeof *c);
    char threads[16];
    snprintf(threads, sizeof threads, "%d", AFX_THREADS);
    const char *args[] = { "self", threads, NULL };
    afx_run(c, g, NULL, NULL, "pinned", args);
    const char *p = c->status == 0 ? strstr(c->out, "arenas=") : NULL;
    int n = p != NULL ? atoi(p + strlen("arenas=")) : -1;
    free(c);
    return n;
}

/* The bug shows where pinned threads get its count and a fixed glibc
 * would give more: on a one-CPU host nothing can be proved. */
static bool can_prove(void)
{
    return afx_fixed_arenas(AFX_THREADS) != AFX_BUG_ARENAS;
}

/* The system glibc shows the bug on RHEL 9 and other unpatched 2.34-2.38. */
static bool system_is_affected(void)
{
    return can_prove() && pinned_arenas(&afx_glibcs[0]) == AFX_BUG_ARENAS;
}

/* What names an affected glibc in the output: the Debian package, or
 * its directory's name (the parent's, for a "lib" directory). */
static const char *glibc_name(const char *real)
{
#ifdef CROSS_GLIBC
    char cross[PATH_MAX];
    if (realpath(CROSS_GLIBC, cross) != NULL && strcmp(real, cross) == 0)
        return CROSS_PACKAGE;
#endif
    char *copy = strdup(real), *slash = strrchr(copy, '/');
    bool lib = slash != NULL && (strcmp(slash, "/lib") == 0 || strcmp(slash, "/lib64") == 0);
    if (lib && slash != copy)
        *slash = '\0';
    slash = strrchr(copy, '/');
    return slash != NULL && slash[1] != '\0' ? slash + 1 : copy;
}

/* Named affected glibcs that could not be used: the run fails. */
static int unusable;

/* Add DIR if it proves affected.  NAMED: given in ARENAFIX_AFFECTED_GLIBC,
 * so a glibc that is not affected is an error, not a skip. */
static void add_affected(const char *dir, bool named)
{
    static char seen[AFX_MAX_GLIBCS * 2][PATH_MAX];
    static int nseen;
    char real[PATH_MAX], why[256];
    if (realpath(dir, real) == NULL) {
        snprintf(why, sizeof why, "%s", strerror(errno));
        goto not_used;
    }
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i], real) == 0)
            return;     /* listed twice, or the cross package named too */
    if (nseen < AFX_MAX_GLIBCS * 2)
        snprintf(seen[nseen++], sizeof seen[0], "%s", real);

    struct glibc g = { .name = glibc_name(real), .dir = strdup(real) };
    if (afx_nglibcs == AFX_MAX_GLIBCS) {
        snprintf(why, sizeof why, "more than %d glibcs", AFX_MAX_GLIBCS - 1);
        goto not_used;
    }
    if (!can_prove()) {
        afx_skip(g.name, "one CPU online: a fixed glibc gives pinned threads the bug's "
                         "count too, so no glibc can be proved affected here");
        return;
    }
    int n = pinned_arenas(&g);
    if (n == AFX_BUG_ARENAS) {
        g.affected = true;
        afx_glibcs[afx_nglibcs++] = g;
        printf("affected glibc %s: %s (proved: %d pinned threads get the bug's %d arenas)\n",
               g.name, real, AFX_THREADS, AFX_BUG_ARENAS);
        return;
    }
    if (n < 0)
        snprintf(why, sizeof why, "the test program does not run under it");
    else
        snprintf(why, sizeof why, "%d pinned threads get %d arenas there, not the bug's %d: "
                 "not affected", AFX_THREADS, n, AFX_BUG_ARENAS);
not_used:
    if (named) {
        printf("FAIL: affected glibc %s (ARENAFIX_AFFECTED_GLIBC): %s; not used\n", dir, why);
        unusable++;
    } else {
        char what[PATH_MAX + 32];
        snprintf(what, sizeof what, "the proof on %s", dir);
        afx_skip(what, why);
    }
}

/* ARENAFIX_AFFECTED_GLIBC (DIR[:DIR...]), then the cross package.
 * AFX_PROOF_GLIBCS=first keeps only the first named (make check, the
 * fast tier; make check-releases takes them all). */
static void find_affected(void)
{
    const char *list = getenv("ARENAFIX_AFFECTED_GLIBC");
    const char *which = getenv("AFX_PROOF_GLIBCS");
    bool first = which != NULL && strcmp(which, "first") == 0;
    int named = 0;
    if (list != NULL) {
        char *copy = strdup(list), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
            named++;
            if (first && named > 1)
                continue;
            add_affected(dir, true);
        }
    }
    if (first && named > 0) {
        printf("fast tier: the proofs run on the first affected glibc named of %d; "
               "make check-releases runs them on all\n", named);
        return;
    }
#ifdef CROSS_GLIBC
    if (access(CROSS_GLIBC "/libc.so.6", R_OK) == 0
        && access(CROSS_GLIBC "/" AFX_LOADER, X_OK) == 0)
        add_affected(CROSS_GLIBC, false);
#endif
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
    find_affected();
    if (afx_nproving() == 1 && !afx_proving(0)->affected)
        afx_skip("the proof on an affected glibc (arena counts without and with the shim, "
                 "every pinning path)",
                 "no affected glibc: ARENAFIX_AFFECTED_GLIBC names none that shows the "
                 "bug, ../shared/glibc-bz30945 was not found and " CROSS_MISSING "; only "
                 "the system glibc was checked");
    printf("the proofs run on (in this order):");
    for (int i = 0; i < afx_nproving(); i++)
        printf(" %s", afx_proving(i)->name);
    printf("\n");

    static const afx_suite_maker suites[] = {
        flood_suite, fidelity_suite, arenas_suite, standdown_suite,
        semantics_suite, cost_suite, settings_suite, touch_suite, moments_suite, sandbox_suite, loader_suite,
        libcs_suite,
    };
    int failed = afx_run_suites(suites, (int)(sizeof suites / sizeof suites[0]), 0, false);
    if (afx_skipped > 0)
        printf("%d group(s) of tests skipped: see the SKIP lines above\n", afx_skipped);
    if (unusable > 0)
        printf("%d affected glibc(s) named in ARENAFIX_AFFECTED_GLIBC could not be used: "
               "see the FAIL lines above\n", unusable);
    return failed == 0 && unusable == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
