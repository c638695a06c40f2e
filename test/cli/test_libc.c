/* Programs that are not dynamic glibc ones: a musl program, where the
 * library would only stand down (test_libcs.c), and a static glibc
 * program, which no preload reaches.  arenafix CMD runs them untouched
 * and says why; inspect never advises the preload for them, and lists a
 * static one the bug hit, with the fix that fits it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenarule.h"
#include "harness.h"

/* The test program name, or NULL (and a skip note) where it was not
 * built (no musl-gcc, no static affected libc). */
static const char *built(const char *name, const char *test, const char *needs)
{
    const char *p = test_prog(name);
    if (access(p, X_OK) == 0)
        return p;
    printf("SKIP %s: %s was not built: it needs %s (test/packages.txt)\n", test, name, needs);
    return NULL;
}

START_TEST(wrap_runs_a_musl_program_untouched)
{
    const char *musl = built("muslwait", __func__, "musl-tools");
    if (musl == NULL || skip_emulated(__func__, "the musl program is the build machine's"))
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), musl, "4"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "ready\n");
    ck_assert_msg(strstr(r.err, "is a musl program") != NULL && strstr(r.err, "without libarenafix") != NULL,
                  "no warning: %s", r.err);
    run_free(&r);
    /* musl's loader named as the command, the program its argument. */
    const char *loader = "/lib/ld-musl-x86_64.so.1";
    if (access(loader, X_OK) != 0)
        return;
    run(&r, NULL, ARGV(cli(), loader, musl, "4"));
    ck_assert_status(&r, 0);
    ck_assert_str_eq(r.out, "ready\n");
    run_free(&r);
}
END_TEST

START_TEST(wrap_runs_a_static_program_untouched)
{
    const char *st = built("arenawait-static", __func__, "the host's own libc.a (libc6-dev)");
    if (st == NULL || skip_emulated(__func__, "the static program is the build machine's"))
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), st, "30", "pinned"));
    ck_assert_status(&r, 0);
    ck_assert_msg(strncmp(r.out, "arenas=", 7) == 0, "%s", r.out);
    char setting[64];
    snprintf(setting, sizeof setting, "MALLOC_ARENA_MAX=%ld ", afx_arena_limit(sysconf(_SC_NPROCESSORS_ONLN)));
    ck_assert_msg(strstr(r.err, "statically linked") != NULL && strstr(r.err, setting) != NULL
                      && strstr(r.err, "mallopt(M_ARENA_MAX") != NULL,
                  "no warning: %s", r.err);
    ck_assert_msg(strstr(r.err, "rebuild it against a fixed glibc") == NULL, "the rebuild advised: %s", r.err);
    run_free(&r);
}
END_TEST

/* A static program carries the libc.a it was linked with, which probe
 * never runs.  The host's own libc.a is the build of its libc.so.6, so
 * it takes the limit the shared glibc takes, fixed or not: on Debian 12,
 * libc6-dev 2.36-9+deb12u14's gives 16 pinned, as its libc.so.6 does,
 * where the 2.36-8 libc.a of libc6-dev-amd64-cross gives 9. */
START_TEST(static_program_on_the_hosts_libc_a_counts_as_its_shared_glibc)
{
    const char *st = built("arenawait-static", __func__, "the host's own libc.a (libc6-dev)");
    if (st == NULL || skip_emulated(__func__, "the static program is the build machine's"))
        return;
    struct run shared, linked;
    run(&shared, NULL, ARGV(test_prog("arenawait"), "30", "pinned"));
    run(&linked, NULL, ARGV(st, "30", "pinned"));
    ck_assert_status(&shared, 0);
    ck_assert_status(&linked, 0);
    ck_assert_msg(strncmp(shared.out, "arenas=", 7) == 0, "%s", shared.out);
    ck_assert_msg(strcmp(linked.out, shared.out) == 0, "static on the host's libc.a: %s; dynamic on its libc.so.6: %s",
                  linked.out, shared.out);
    run_free(&shared);
    run_free(&linked);
}
END_TEST

START_TEST(inspect_never_advises_the_preload_for_musl)
{
    const char *musl = built("muslwait", __func__, "musl-tools");
    if (musl == NULL || skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l;
    struct run r;
    char pid[32];
    live_start(&l, NULL, ARGV(musl, "8"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", pid));
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "verdict: fine: its libc is musl") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "arenafix CMD") == NULL && strstr(r.out, "restart it under arenafix") == NULL,
                  "preload advised: %s", r.out);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "--all"));
    live_stop(&l);
    char row[64];
    snprintf(row, sizeof row, "\n    %s ", pid);
    ck_assert_msg(strstr(r.out, row) == NULL, "the musl process is given a fix: %s", r.out);
    run_free(&r);
}
END_TEST

/* The static program on Debian's 2.36-8: 9 arenas. */
static bool start_static_hit(struct live *l, const char *test)
{
    const char *st = built("arenawait-static-affected", test, "libc6-dev-amd64-cross on x86_64");
    if (st == NULL || skip_emulated(test, EMULATED_PROC))
        return false;
    live_start(l, NULL, ARGV(st, "30", "pinned"));
    ck_assert_int_eq(l->arenas, 9);
    return true;
}

/* The advice for a static program is the limit, with its value: a
 * rebuild against a fixed glibc leaves it hit where gcc -static links an
 * unfixed libc.a (libc6-dev-amd64-cross's 2.36-8, ahead of the host's). */
START_TEST(inspect_static_hit_gets_a_fix_that_works)
{
    struct live l;
    struct run r;
    char pid[32], setting[64];
    long online = sysconf(_SC_NPROCESSORS_ONLN), value = 0;
    const char *const lead = "no preload reaches a static program: restart it with ";
    const char *const heading = "these are static programs, which no preload reaches";
    if (!start_static_hit(&l, __func__))
        return;
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", pid));
    live_stop(&l);
    ck_assert_status(&r, 3);
    const char *verdict = strstr(r.out, "verdict: hit: ");
    const char *advice = verdict != NULL ? strstr(verdict, lead) : NULL;
    ck_assert_msg(advice != NULL && sscanf(advice + strlen(lead), "MALLOC_ARENA_MAX=%ld ", &value) == 1,
                  "no value advised: %s", r.out);
    ck_assert_int_eq(value, afx_arena_limit(online));
    snprintf(setting, sizeof setting, "MALLOC_ARENA_MAX=%ld", value);
    ck_assert_msg(strstr(r.out, heading) != NULL && strstr(strstr(r.out, heading), setting) != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "rebuild it against a fixed glibc") == NULL, "the rebuild advised: %s", r.out);
    ck_assert_msg(strstr(r.out, "restart it under arenafix") == NULL && strstr(r.out, "arenafix CMD), in") == NULL,
                  "preload advised: %s", r.out);
    run_free(&r);
    /* The advice, followed: its environment's limit gives the fixed count. */
    char want[32];
    snprintf(want, sizeof want, "arenas=%ld\n", afx_fixed_glibc_arenas(30, online));
    run(&r, ARGV(setting), ARGV(test_prog("arenawait-static-affected"), "30", "pinned"));
    ck_assert_str_eq(r.out, want);
    run_free(&r);
}
END_TEST

START_TEST(scan_lists_a_static_hit)
{
    struct live l;
    struct run r;
    char key[64];
    if (!start_static_hit(&l, __func__))
        return;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--json"));
    snprintf(key, sizeof key, "\"pid\":%d,", (int)l.pid);
    live_stop(&l);
    ck_assert_status(&r, 3);
    const char *p = strstr(r.out, key);
    ck_assert_msg(p != NULL, "not listed: %s", r.out);
    const char *start = p;
    while (start > r.out && *start != '{')
        start--;
    ck_assert_msg(strncmp(start, "{\"verdict\":\"hit\"", 16) == 0, "%.400s", start);
    ck_assert_msg(strstr(start, "\"libc\":\"glibc (static)\"") != NULL, "%.900s", start);
    run_free(&r);
}
END_TEST

Suite *libc_suite(void)
{
    Suite *s = suite_create("libc");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, wrap_runs_a_musl_program_untouched);
    tcase_add_test(tc, wrap_runs_a_static_program_untouched);
    tcase_add_test(tc, static_program_on_the_hosts_libc_a_counts_as_its_shared_glibc);
    tcase_add_test(tc, inspect_never_advises_the_preload_for_musl);
    tcase_add_test(tc, inspect_static_hit_gets_a_fix_that_works);
    tcase_add_test(tc, scan_lists_a_static_hit);
    suite_add_tcase(s, tc);
    return s;
}
