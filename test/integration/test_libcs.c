/* Wherever the library lands it never stops a program: an admission
 * webhook or an operator's LD_PRELOAD for a whole namespace reaches
 * every image, musl's and those with a glibc older than the bug.  There
 * it loads, stands down, and the program runs as without it: its own
 * output, its exit status, nothing on stderr (one line when asked to
 * be verbose, saying why it stood down). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static struct child c;

static const char *const verbose[] = { "ARENAFIX_VERBOSE=1", NULL };

/* Run PROG (built with the other libc) with ARGS under G, with and
 * without the library (preloaded after FIRST, if not NULL, in both
 * runs); WHO is how its verbose line names the libc. */
static void runs_untouched(const struct glibc *g, const char *first, const char *prog,
                           const char *const *args, const char *who)
{
    char both[8192];
    const char *lib = afx_testlib;
    if (first != NULL) {
        snprintf(both, sizeof both, "%s %s", first, afx_testlib);
        lib = both;
    }
    afx_run(&c, g, first, NULL, prog, args);
    ck_assert_msg(c.status == 0, "%s without the library: status %d\n%s", prog, c.status, c.err);
    char alone[sizeof c.out];
    snprintf(alone, sizeof alone, "%s", c.out);

    afx_run(&c, g, lib, NULL, prog, args);
    ck_assert_msg(c.status == 0, "%s with LD_PRELOAD=%s: status %d, want 0; stderr:\n%s", prog,
                  lib, c.status, c.err);
    ck_assert_msg(strcmp(c.out, alone) == 0, "%s with the library printed \"%s\", without \"%s\"",
                  prog, c.out, alone);
    ck_assert_msg(c.err[0] == '\0', "%s with the library: stderr not empty:\n%s", prog, c.err);

    afx_run(&c, g, lib, verbose, prog, args);
    ck_assert_msg(c.status == 0 && strcmp(c.out, alone) == 0,
                  "%s verbose: status %d, stdout \"%s\"\n%s", prog, c.status, c.out, c.err);
    ck_assert_msg(afx_log_lines(&c) == 1 && strstr(c.err, who) != NULL
                      && strstr(c.err, "not affected") != NULL
                      && strstr(c.err, "standing down, nothing changed") != NULL,
                  "%s verbose: want one line saying %s is not affected and the library stood "
                  "down; stderr:\n%s", prog, who, c.err);
}

static bool built(const char *prog, const char *what, const char *why)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", afx_bin, prog);
    if (access(path, X_OK) == 0)
        return true;
    afx_skip(what, why);
    return false;
}

START_TEST(musl_program_runs_untouched)
{
    if (!built("otherlibc-musl", "a musl program with the library preloaded",
               "no musl-gcc (Debian's musl-tools) for this build's architecture to build it"))
        return;
    runs_untouched(&afx_glibcs[0], NULL, "otherlibc-musl", NULL, "a libc other than glibc");
}
END_TEST

/* musl under a layer of compatibility that defines glibc's
 * __libc_single_threaded (and not gnu_get_libc_version), loaded first:
 * still musl, where the library stands down. */
START_TEST(musl_with_compat_layer_runs_untouched)
{
    char compat[4096];
    if (!built("otherlibc-musl", "a musl program under a compatibility layer with the library",
               "no musl-gcc (Debian's musl-tools) for this build's architecture to build it"))
        return;
    snprintf(compat, sizeof compat, "%s/libcompat-musl.so", afx_bin);
    runs_untouched(&afx_glibcs[0], compat, "otherlibc-musl", NULL, "a libc other than glibc");
}
END_TEST

/* Debian 11's glibc (2.31), with a program linked against it as in
 * such an image, run on its own loader. */
START_TEST(old_glibc_program_runs_untouched)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/../glibc-2.31/root/lib/%s", afx_bin, AFX_MULTIARCH);
    if (!built("otherlibc-2.31", "a program on Debian 11's glibc 2.31 with the library preloaded",
               "Debian 11's libc6 and libc6-dev are not in the build directory (make deps "
               "fetches them: sh test/glibc/fetch-old.sh build/glibc-2.31)"))
        return;
    struct glibc old = { "glibc-2.31", dir, false };
    runs_untouched(&old, NULL, "otherlibc-2.31", NULL, "glibc 2.31");
}
END_TEST

/* The same glibc, a program linked without libpthread that calls
 * mallopt (the library's first call there) and then opens a plugin that
 * brings libpthread and starts a thread: the thread starts, as without
 * the library (pthread_create, missing when the program's first call
 * came, is still found at the plugin's). */
START_TEST(old_glibc_plugin_starts_threads)
{
    char dir[4096], plugin[4096];
    snprintf(dir, sizeof dir, "%s/../glibc-2.31/root/lib/%s", afx_bin, AFX_MULTIARCH);
    if (!built("otherlibc-dlopen-2.31", "a program on glibc 2.31 that opens a threaded plugin",
               "Debian 11's libc6 and libc6-dev are not in the build directory (make deps "
               "fetches them: sh test/glibc/fetch-old.sh build/glibc-2.31)"))
        return;
    snprintf(plugin, sizeof plugin, "%s/libotherlibc-plugin-2.31.so", afx_bin);
    const char *const args[] = { plugin, NULL };
    struct glibc old = { "glibc-2.31", dir, false };
    runs_untouched(&old, NULL, "otherlibc-dlopen-2.31", args, "glibc 2.31");
    ck_assert_msg(strstr(c.out, "pthread_create returned 0\n") != NULL,
                  "the plugin's thread did not start: \"%s\"", c.out);
}
END_TEST

Suite *libcs_suite(void)
{
    Suite *s = suite_create("libcs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, musl_program_runs_untouched);
    tcase_add_test(tc, musl_with_compat_layer_runs_untouched);
    tcase_add_test(tc, old_glibc_program_runs_untouched);
    tcase_add_test(tc, old_glibc_plugin_starts_threads);
    suite_add_tcase(s, tc);
    return s;
}
