/* arenafix inspect against live processes whose arena count malloc_info
 * has told us. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

struct live {
    pid_t pid;
    int stdin_fd;
    int arenas;     /* malloc_info's count, from inside */
};

/* Start argv, read its "arenas=N" line; it waits until stdin closes. */
static void live_start(struct live *l, const char *preload, const char *const *argv)
{
    int in[2], out[2];
    ck_assert(pipe(in) == 0 && pipe(out) == 0);
    l->pid = fork();
    ck_assert_int_ge(l->pid, 0);
    if (l->pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[1]);
        close(out[0]);
        if (preload != NULL)
            setenv("LD_PRELOAD", preload, 1);
        else
            unsetenv("LD_PRELOAD");
        execv(argv[0], (char *const *)argv);
        _exit(99);
    }
    close(in[0]);
    close(out[1]);
    l->stdin_fd = in[1];
    FILE *f = fdopen(out[0], "r");
    ck_assert_msg(fscanf(f, "arenas=%d", &l->arenas) == 1, "%s gave no arena count", argv[0]);
    fclose(f);
}

static void live_stop(struct live *l)
{
    close(l->stdin_fd);
    waitpid(l->pid, NULL, 0);
}

static void inspect(struct run *r, const struct live *l, const char *opt)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)l->pid);
    if (opt != NULL)
        run(r, NULL, ARGV(cli(), "inspect", "--json", opt, pid));
    else
        run(r, NULL, ARGV(cli(), "inspect", "--json", pid));
}

static long json_long(const char *json, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(json, k);
    ck_assert_msg(p != NULL, "no %s in %s", key, json);
    return strtol(p + strlen(k), NULL, 10);
}

static const char *affected_loader(const char *g)
{
    static char loader[PATH_MAX];
    snprintf(loader, sizeof loader, "%s/ld-linux-x86-64.so.2", g);
    return loader;
}

START_TEST(counts_match_malloc_info)
{
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "5"));
    ck_assert_int_eq(l.arenas, 6);
    inspect(&r, &l, "--no-probe");
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_int_eq(json_long(r.out, "arenas_estimated"), l.arenas);
    ck_assert_int_eq(json_long(r.out, "arenas_counted"), l.arenas);
    ck_assert_int_eq(json_long(r.out, "threads"), 6);
    ck_assert_int_eq(json_long(r.out, "threads_narrowed"), 0);
    run_free(&r);
}
END_TEST

/* An arena with two heaps: maps over-count by one, the headers do not. */
START_TEST(grown_arena_is_an_upper_bound_in_maps)
{
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "3", "grow"));
    inspect(&r, &l, "--no-probe");
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_int_eq(json_long(r.out, "arenas_counted"), l.arenas);
    ck_assert_int_eq(json_long(r.out, "arenas_estimated"), l.arenas + 1);
    run_free(&r);
}
END_TEST

START_TEST(system_glibc_pinned_is_fine)
{
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 16);
    inspect(&r, &l, NULL);
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "\"glibc_state\":\"not affected\"") != NULL, "%s", r.out);
    ck_assert_int_eq(json_long(r.out, "arenas_counted"), 16);
    ck_assert_int_eq(json_long(r.out, "threads_narrowed"), 30);
    run_free(&r);
}
END_TEST

START_TEST(affected_glibc_hit)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    inspect(&r, &l, NULL);
    live_stop(&l);
    ck_assert_status(&r, 3);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"hit\"", 16) == 0, "%s", r.out);
    ck_assert_msg(strstr(r.out, "\"glibc_state\":\"affected\"") != NULL, "%s", r.out);
    ck_assert_int_eq(json_long(r.out, "arenas_counted"), 9);
    ck_assert_int_eq(json_long(r.out, "arenas_estimated"), 9);
    run_free(&r);
}
END_TEST

START_TEST(affected_glibc_at_risk_then_fixed)
{
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct live l;
    struct run r;
    /* Few threads: not hit yet, but pinned on an affected glibc. */
    live_start(&l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "4", "pinned"));
    inspect(&r, &l, NULL);
    live_stop(&l);
    ck_assert_status(&r, 4);
    ck_assert_msg(strncmp(r.out, "{\"verdict\":\"at risk\"", 20) == 0, "%s", r.out);
    run_free(&r);

    char lib[PATH_MAX];
    ck_assert(realpath(testlib(), lib) != NULL);
    live_start(&l, lib, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 16);
    inspect(&r, &l, NULL);
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "\"libarenafix\":true") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(text_report)
{
    struct live l;
    struct run r;
    char pid[32];
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "2"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", pid));
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "(arenawait): fine\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "  arenas, counted:    3 ") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "verdict: fine: ") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(bad_input)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "no PID given") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "12abc"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "12abc is not a process ID") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "--bogus", "1"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "1", "2"));
    ck_assert_status(&r, 2);
    run_free(&r);

    /* A PID that exited: the one of a child we reaped. */
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)gone);
    run(&r, NULL, ARGV(cli(), "inspect", pid));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "no process") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* Another user's process: the error says so, and how to get access. */
START_TEST(permission_denied)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to run the command as another user\n", __func__);
        return;
    }
    struct run r;
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    run(&r, NULL, ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli(), "inspect", pid));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "no permission to read") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

Suite *inspect_suite(void)
{
    Suite *s = suite_create("inspect");
    TCase *tc = tcase_create("inspect");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, counts_match_malloc_info);
    tcase_add_test(tc, grown_arena_is_an_upper_bound_in_maps);
    tcase_add_test(tc, system_glibc_pinned_is_fine);
    tcase_add_test(tc, affected_glibc_hit);
    tcase_add_test(tc, affected_glibc_at_risk_then_fixed);
    tcase_add_test(tc, text_report);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, permission_denied);
    suite_add_tcase(s, tc);
    return s;
}
