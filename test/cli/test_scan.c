/* arenafix inspect --all: the whole host, with live processes of known
 * state among whatever else runs.  Other processes come and go during a
 * scan, so the tests look only at their own lines, at the exit status
 * where theirs is the worst there can be, and at the summary agreeing
 * with the lines. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "proc/procstatus.h"
#include "inspect/verdict.h"

/* ---- the text report ---------------------------------------------------- */

struct summary {
    long hit, at_risk, cannot_tell, fine, fixed, unreadable, gone, single, kernel, no_glibc, other, processes;
};

/* Every process line has a verdict the summary counts, and the summary
 * accounts for every process. */
static struct summary text_consistent(const char *out)
{
    static const char *const verdicts[] = { "hit ", "at risk ", "fine ", "unreadable ", "cannot tell " };
    long lines[5] = { 0 };
    struct summary s;
    const char *p = out;
    ck_assert_msg(strncmp(p, "    PID  VERDICT ", 17) == 0, "no header: %s", out);
    for (p = strchr(p, '\n') + 1; strncmp(p, "summary: ", 9) != 0; p = strchr(p, '\n') + 1) {
        long pid;
        int n = 0, v = 0;
        ck_assert_msg(sscanf(p, "%ld%n", &pid, &n) == 1 && strncmp(p + n, "  ", 2) == 0, "not a line: %.200s", p);
        while (v < 5 && strncmp(p + n + 2, verdicts[v], strlen(verdicts[v])) != 0)
            v++;
        ck_assert_msg(v < 5, "no verdict: %.200s", p);
        lines[v]++;
        ck_assert_msg(strchr(p, '\n') != NULL, "no summary: %s", out);
    }
    ck_assert_msg(sscanf(p,
                         "summary: hit %ld, at risk %ld, cannot tell %ld, fine %ld (fixed by libarenafix %ld), "
                         "unreadable %ld; not listed: gone %ld, single-threaded %ld, kernel threads %ld, no glibc "
                         "%ld, other malloc %ld; processes %ld",
                         &s.hit, &s.at_risk, &s.cannot_tell, &s.fine, &s.fixed, &s.unreadable, &s.gone, &s.single,
                         &s.kernel, &s.no_glibc, &s.other, &s.processes)
                      == 12,
                  "bad summary: %s", p);
    ck_assert_int_eq(s.hit, lines[0]);
    ck_assert_int_eq(s.at_risk, lines[1]);
    ck_assert_int_eq(s.fine, lines[2]);
    ck_assert_int_eq(s.unreadable, lines[3]);
    ck_assert_int_eq(s.cannot_tell, lines[4]);
    ck_assert_int_le(s.fixed, s.fine);
    ck_assert_int_eq(s.processes, lines[0] + lines[1] + lines[2] + lines[3] + lines[4] + s.gone + s.single
                                      + s.kernel + s.no_glibc + s.other);
    ck_assert_msg(strstr(p, "\nhost glibc: ") != NULL, "%s", p);
    return s;
}

/* The line of pid in the text report, without its newline, or "". */
static const char *line_of(const char *out, pid_t pid)
{
    static char line[8192];
    char key[32];
    snprintf(key, sizeof key, "\n%7d  ", (int)pid);
    const char *p = strstr(out, key);
    line[0] = '\0';
    if (p != NULL)
        snprintf(line, sizeof line, "%.*s", (int)strcspn(p + 1, "\n"), p + 1);
    return line;
}

/* The verdict column of a line. */
static bool verdict_is(const char *line, const char *verdict)
{
    char want[32];
    snprintf(want, sizeof want, "  %-10s ", verdict);
    return line[0] != '\0' && strncmp(line + 7, want, strlen(want)) == 0;
}

static void scan_text(struct run *r, const char *opt)
{
    if (opt != NULL)
        run(r, NULL, ARGV(cli(), "inspect", "--all", opt));
    else
        run(r, NULL, ARGV(cli(), "inspect", "--all"));
}

/* ---- the JSON document -------------------------------------------------- */

static bool have_python(const char *test)
{
    struct run r;
    bool ok = run(&r, NULL, ARGV("python3", "-c", "import json")) == 0;
    run_free(&r);
    if (!ok)
        printf("SKIP %s (JSON part): no python3 to check the document with\n", test);
    return ok;
}

/* Check the document in r->out with scanjson.py, as a monitoring system
 * would read it; its listing (PID, verdict, name, exe) in *listing. */
static void json_checked(const struct run *r, struct run *listing)
{
    char path[] = "/tmp/arenafix-scan-json-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    size_t len = strlen(r->out);
    ck_assert(write(fd, r->out, len) == (ssize_t)len);
    close(fd);
    run(listing, NULL, ARGV("python3", "test/cli/scanjson.py", path));
    unlink(path);
    ck_assert_msg(WIFEXITED(listing->status) && WEXITSTATUS(listing->status) == 0, "%s%s\ndocument: %.2000s",
                  listing->out, listing->err, r->out);
    char status[32];
    snprintf(status, sizeof status, "\nexit_status=%d\n", WEXITSTATUS(r->status));
    ck_assert_msg(strstr(listing->out, status) != NULL, "exit status %d, document says: %s",
                  WEXITSTATUS(r->status), listing->out);
}

/* pid's entry in a listing: "verdict\tname\texe", or "". */
static const char *entry_of(const struct run *listing, pid_t pid)
{
    static char entry[8192];
    char key[32];
    snprintf(key, sizeof key, "\n%d\t", (int)pid);
    const char *p = strstr(listing->out, key);
    entry[0] = '\0';
    if (p != NULL)
        snprintf(entry, sizeof entry, "%.*s", (int)strcspn(p + strlen(key), "\n"), p + strlen(key));
    return entry;
}

static bool entry_verdict(const char *entry, const char *verdict)
{
    size_t n = strlen(verdict);
    return strncmp(entry, verdict, n) == 0 && entry[n] == '\t';
}

/* inspect --all --json [opt], run by prefix (NULL: none); unchecked. */
static int scan_json_unchecked(struct run *r, const char *const *prefix, const char *opt)
{
    const char *argv[16];
    int n = 0;
    for (; prefix != NULL && prefix[n] != NULL; n++)
        argv[n] = prefix[n];
    argv[n++] = cli();
    argv[n++] = "inspect";
    argv[n++] = "--all";
    argv[n++] = "--json";
    if (opt != NULL)
        argv[n++] = opt;
    argv[n] = NULL;
    int status = run(r, NULL, argv);
    ck_assert_msg(status != 1 && status != 2 && status < 100, "scan failed (%d): %s", status, r->err);
    return status;
}

/* The same, checked; the listing in *listing, the exit status returned. */
static int scan_json(struct run *listing, const char *const *prefix, const char *opt)
{
    struct run r;
    int status = scan_json_unchecked(&r, prefix, opt);
    json_checked(&r, listing);
    run_free(&r);
    return status;
}

/* ---- pure parts --------------------------------------------------------- */

START_TEST(stat_flags)
{
    unsigned long flags;
    ck_assert(afx_stat_flags("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 9 0 0", &flags));
    ck_assert((flags & AFX_PF_KTHREAD) != 0);
    ck_assert(afx_stat_flags("28868 (cat) R 28824 28824 19525 0 -1 4194304 100 0\n", &flags));
    ck_assert_uint_eq(flags, 4194304);
    ck_assert((flags & AFX_PF_KTHREAD) == 0);
    /* A name that plays a kernel thread's fields: the last ')' counts. */
    ck_assert(afx_stat_flags("77 (x) S 0 0 0 0 -1 2129984 )\n) R 1 2 3 0 -1 4194560 0", &flags));
    ck_assert_uint_eq(flags, 4194560);
    ck_assert(!afx_stat_flags("", &flags));
    ck_assert(!afx_stat_flags("1 (init) S 0 0 0 0 -1", &flags));
    ck_assert(!afx_stat_flags("1 (init) S 0 0 0 0 -1 x1", &flags));
    ck_assert(!afx_stat_flags("1 init S 0 0 0 0 -1 4194560", &flags));
}
END_TEST

START_TEST(glibc_state_by_version)
{
    static const struct {
        const char *version;
        enum afx_glibc_state want;
    } cases[] = {
        { "2.17", AFX_GLIBC_FIXED },   { "2.33", AFX_GLIBC_FIXED },   { "2.34", AFX_GLIBC_UNKNOWN },
        { "2.36", AFX_GLIBC_UNKNOWN }, { "2.38.9", AFX_GLIBC_UNKNOWN }, { "2.39", AFX_GLIBC_FIXED },
        { "2.41", AFX_GLIBC_FIXED },   { "3.0", AFX_GLIBC_FIXED },    { "unknown", AFX_GLIBC_UNKNOWN },
        { "", AFX_GLIBC_UNKNOWN },     { "2", AFX_GLIBC_UNKNOWN },    { "2.36x", AFX_GLIBC_UNKNOWN },
        { "1.9", AFX_GLIBC_UNKNOWN },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(afx_glibc_state_by_version(cases[i].version) == cases[i].want, "%s", cases[i].version);
}
END_TEST

/* ---- the host ------------------------------------------------------------ */

/* Start arenawait's 30 pinned threads (and MODE, or NULL) on the affected
 * glibc: the bug's 9 arenas.  False, having said why, where it cannot run. */
static bool start_hit(struct live *l, const char *test, const char *mode)
{
    if (skip_emulated(test, EMULATED_PROC))
        return false;
    const char *g = affected_glibc(test);
    if (g == NULL)
        return false;
    live_start(l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned", mode));
    ck_assert_int_eq(l->arenas, 9);
    return true;
}

/* The scan's text lists PID as hit, for its 9 arenas, and says hit. */
static const char *listed_hit(const struct run *r, pid_t pid)
{
    ck_assert_status(r, 3);
    const char *line = line_of(r->out, pid);
    ck_assert_msg(verdict_is(line, "hit"), "pid %d: %s\n%s", (int)pid, line, r->out);
    ck_assert_msg(strstr(line, "threads share 9 arenas") != NULL, "%s", line);
    return line;
}

/* 30 threads pinned before their first malloc on the affected glibc:
 * 9 arenas, listed as hit, and the scan's status says hit (no verdict
 * is worse, whatever else runs). */
START_TEST(affected_process_is_hit)
{
    struct live l;
    struct run r, listing;
    if (!start_hit(&l, __func__, NULL))
        return;
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    int json_status = json ? scan_json(&listing, NULL, NULL) : 3;
    live_stop(&l);

    const char *line = listed_hit(&r, l.pid);
    ck_assert_msg(strstr(line, " 31     30      9  2.36 ") != NULL, "%s", line);
    ck_assert_int_ge(text_consistent(r.out).hit, 1);
    run_free(&r);
    if (json) {
        ck_assert_int_eq(json_status, 3);
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "hit"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* A process whose main thread has left (pthread_exit in main) while its
 * pinned threads run on: the main thread's /proc/PID/maps is empty, and
 * the scan must read the process through a live thread, not take it for
 * one without glibc and leave it out. */
START_TEST(process_after_main_thread_exit)
{
    struct live l;
    struct run r, one;
    if (!start_hit(&l, __func__, "leaderexit"))
        return;
    scan_text(&r, NULL);
    char pid[24];
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&one, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);

    listed_hit(&r, l.pid);
    run_free(&r);
    ck_assert_status(&one, 3);
    ck_assert_msg(strstr(one.out, "\"arenas_counted\":9") != NULL, "%s", one.out);
    run_free(&one);
}
END_TEST

/* The same process with the library preloaded: fine, fixed by it. */
START_TEST(preloaded_process_is_fixed)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char lib[PATH_MAX];
    ck_assert(realpath(testlib(), lib) != NULL);
    struct live l;
    struct run r, listing;
    live_start(&l, lib, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 16);
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, NULL, NULL);
    live_stop(&l);

    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, "fine"), "pid %d: %s\n%s", (int)l.pid, line, r.out);
    ck_assert_msg(strstr(line, "  2.36    mallopt  ") != NULL, "%s", line);
    ck_assert_msg(strstr(line, ": libarenafix is loaded (mode mallopt)") != NULL, "%s", line);
    ck_assert_int_ge(text_consistent(r.out).fixed, 1);
    run_free(&r);
    if (json) {
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "fine"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* One unpinned thread: no arena to share, counted but not listed.  One
 * thread pinned on a glibc that may be affected: at risk, listed. */
START_TEST(single_threaded_process)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l, pinned;
    struct run r, listing;
    const char *g = affected_glibc(__func__);
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "0"));
    if (g != NULL)
        live_start(&pinned, NULL,
                   ARGV("taskset", "-c", "0", affected_loader(g), "--library-path", g, test_prog("arenawait"), "0"));
    scan_text(&r, NULL);
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, NULL, NULL);
    if (g != NULL)
        live_stop(&pinned);     /* first: it holds a copy of l's stdin */
    live_stop(&l);

    ck_assert_msg(line_of(r.out, l.pid)[0] == '\0', "single-threaded, listed: %s", line_of(r.out, l.pid));
    ck_assert_int_ge(text_consistent(r.out).single, 1);
    if (g != NULL) {
        const char *line = line_of(r.out, pinned.pid);
        ck_assert_msg(verdict_is(line, "at risk"), "pid %d: %s\n%s", (int)pinned.pid, line, r.out);
        ck_assert_msg(strstr(line, "      1      1      1  2.36 ") != NULL, "%s", line);
    }
    run_free(&r);
    if (json) {
        ck_assert_str_eq(entry_of(&listing, l.pid), "");
        if (g != NULL)
            ck_assert_msg(entry_verdict(entry_of(&listing, pinned.pid), "at risk"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* Pinned threads on the host's own glibc: the scan's one probe of that
 * glibc gives the verdict inspect PID's probe gives; without it the
 * version alone decides. */
START_TEST(host_glibc_probed_once)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l;
    struct run r, one, blind;
    char pid[32];
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "30", "pinned"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    scan_text(&r, NULL);
    scan_text(&blind, "--no-probe");
    run(&one, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);

    const char *v = strstr(one.out, "{\"verdict\":\"") ? one.out + 12 : "";
    char verdict[16];
    snprintf(verdict, sizeof verdict, "%.*s", (int)strcspn(v, "\""), v);
    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, verdict), "inspect says %s, the scan: %s", verdict, line);
    ck_assert_msg(strstr(r.out, "\nhost glibc: ") != NULL && strstr(r.out, "probed once") != NULL, "%s", r.out);
    text_consistent(r.out);

    /* Without the probe: its version, from its libc's banner. */
    const char *g = strstr(one.out, "\"glibc\":\"");
    ck_assert(g != NULL);
    char version[32];
    snprintf(version, sizeof version, "%.*s", (int)strcspn(g + 9, "\""), g + 9);
    line = line_of(blind.out, l.pid);
    const char *want = afx_glibc_state_by_version(version) == AFX_GLIBC_FIXED ? "fine" : "at risk";
    ck_assert_msg(verdict_is(line, want), "glibc %s, without the probe: %s", version, line);
    ck_assert_msg(strstr(blind.out, "\nhost glibc: unknown, not probed (--no-probe)\n") != NULL, "%s", blind.out);
    text_consistent(blind.out);
    run_free(&r);
    run_free(&blind);
    run_free(&one);
}
END_TEST

/* Run as nobody: root's process cannot be read; it is listed as such,
 * and the scan goes on. */
START_TEST(unreadable_process_as_nobody)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to run the command as another user\n", __func__);
        return;
    }
    struct live l;
    struct run r, listing;
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "2"));
    int status = run(&r, NULL,
                     ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli(), "inspect", "--all"));
    bool json = have_python(__func__);
    if (json)
        scan_json(&listing, ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"), NULL);
    live_stop(&l);

    ck_assert_msg(status == 0 || status == 3 || status == 4, "status %d: %s", status, r.err);
    const char *line = line_of(r.out, l.pid);
    ck_assert_msg(verdict_is(line, "unreadable"), "pid %d: %s\n%s", (int)l.pid, line, r.out);
    ck_assert_msg(strstr(line, " arenawait (?): no permission to read /proc/") != NULL, "%s", line);
    ck_assert_int_ge(text_consistent(r.out).unreadable, 1);
    run_free(&r);
    if (json) {
        ck_assert_msg(entry_verdict(entry_of(&listing, l.pid), "unreadable"), "%s", listing.out);
        run_free(&listing);
    }
}
END_TEST

/* Its name (and so its comm) and its executable's path hold a newline,
 * terminal escapes and a byte that is not UTF-8. */
START_TEST(hostile_names_escaped)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    static const char name[] = "a\nb\033[2J\377";
    char dir[] = "/tmp/arenafix-scan-XXXXXX", exe[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    snprintf(exe, sizeof exe, "%s/%s", dir, name);
    struct run r, listing;
    ck_assert_int_eq(run(&r, NULL, ARGV("cp", test_prog("arenawait"), exe)), 0);
    run_free(&r);
    struct live l;
    struct run doc;
    live_start(&l, NULL, ARGV(exe, "2"));
    scan_text(&r, "--no-probe");
    bool json = have_python(__func__);
    if (json)
        scan_json_unchecked(&doc, NULL, "--no-probe");
    live_stop(&l);
    unlink(exe);
    rmdir(dir);
    if (json) {
        json_checked(&doc, &listing);
        run_free(&doc);
    }

    ck_assert_msg(terminal_safe(r.out) && terminal_safe(r.err), "raw bytes reach the terminal: %s", r.out);
    const char *line = line_of(r.out, l.pid);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, " a\\012b\\033[2J\\377 (%s/a\\012b\\033[2J\\377): ", dir);
    ck_assert_msg(verdict_is(line, "fine") && strstr(line, want) != NULL, "want %s in: %s", want, line);
    text_consistent(r.out);
    run_free(&r);
    if (json) {
        snprintf(want, sizeof want, "fine\t\"a\\nb\\u001b[2J\\ufffd\"\t\"%s/a\\nb\\u001b[2J\\ufffd\"", dir);
        ck_assert_msg(strcmp(entry_of(&listing, l.pid), want) == 0, "want %s, got %s", want,
                      entry_of(&listing, l.pid));
        run_free(&listing);
    }
}
END_TEST

/* Processes that start and exit while the scan runs: counted as gone
 * or judged, never a failure. */
START_TEST(processes_come_and_go)
{
    if (!have_python(__func__))
        return;
    pid_t churn = fork();
    ck_assert_int_ge(churn, 0);
    if (churn == 0) {
        execlp("sh", "sh", "-c", "while :; do /bin/true; done", (char *)NULL);
        _exit(99);
    }
    struct run listing;
    for (int i = 0; i < 5; i++) {
        scan_json(&listing, NULL, NULL);
        run_free(&listing);
    }
    kill(churn, SIGKILL);
    waitpid(churn, NULL, 0);
}
END_TEST

START_TEST(usage)
{
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "1"));
    ck_assert_status(&r, 2);
    ck_assert_msg(strstr(r.err, "--all takes no PID") != NULL, "%s", r.err);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--bogus"));
    ck_assert_status(&r, 2);
    run_free(&r);
    run(&r, NULL, ARGV(cli(), "--help"));
    ck_assert_msg(strstr(r.out, "arenafix inspect --all [--json] [--no-probe]") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

Suite *scan_suite(void)
{
    Suite *s = suite_create("scan");
    TCase *tc = tcase_create("scan");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, stat_flags);
    tcase_add_test(tc, glibc_state_by_version);
    tcase_add_test(tc, affected_process_is_hit);
    tcase_add_test(tc, process_after_main_thread_exit);
    tcase_add_test(tc, preloaded_process_is_fixed);
    tcase_add_test(tc, single_threaded_process);
    tcase_add_test(tc, host_glibc_probed_once);
    tcase_add_test(tc, unreadable_process_as_nobody);
    tcase_add_test(tc, hostile_names_escaped);
    tcase_add_test(tc, processes_come_and_go);
    tcase_add_test(tc, usage);
    suite_add_tcase(s, tc);
    return s;
}
