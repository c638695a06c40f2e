/* arenafix inspect against live processes whose arena count malloc_info
 * has told us. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

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

START_TEST(counts_match_malloc_info)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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

    /* The text says which CPUs the narrowest mask holds, not a count that
     * reads as zero CPUs, and whose limit "set" means. */
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    live_start(&l, NULL, ARGV(test_prog("arenawait"), "30", "pinned"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", pid));
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_msg(strstr(r.out, "30 pinned narrower than the ") != NULL
                      && strstr(r.out, " (the narrowest on CPU list ") != NULL
                      && strstr(r.out, "(narrowest: ") == NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "  user's arena limit: none in its environment") != NULL
                      && strstr(r.out, "arena limit set:") == NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

START_TEST(affected_glibc_hit)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
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
    ck_assert_msg(strstr(r.err, "no permission to read") != NULL
                      && strstr(r.err, "; run as the process's user or as root\n") != NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

/* Another user's process, nobody's, and root started it. */
static void start_as_nobody(struct live *l)
{
    live_start_nobody(l, ARGV(test_prog("arenawait"), "2"));
}

/* What root was refused, in inspect's text: its one-line error (the
 * kernel refused its maps), or else its arena count's line (it
 * refused its memory: kernels differ on which needs CAP_SYS_PTRACE). */
static const char *denial(const struct run *r)
{
    if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 1) {
        ck_assert_msg(strncmp(r->err, "arenafix: no permission to read /proc/", 38) == 0
                          && strchr(r->err, '\n') == r->err + strlen(r->err) - 1, "%s", r->err);
        return r->err;
    }
    const char *line = strstr(r->out, "\n  arenas, counted:    not available (no permission to read /proc/");
    ck_assert_msg(line != NULL && strstr(line, "/mem; ") != NULL, "stdout: %s\nstderr: %s", r->out, r->err);
    return line;
}

/* Root without CAP_SYS_PTRACE (capsh --drop, a container's root) may
 * not read all of another user's process: "run as root" would not
 * help; inspect names the capability it lacks. */
START_TEST(denied_to_root_names_the_capability)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to drop a capability of root's\n", __func__);
        return;
    }
    struct live l;
    struct run r, c;
    char pid[32];
    start_as_nobody(&l);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV("setpriv", "--bounding-set=-sys_ptrace", cli(), "inspect", pid));
    bool capsh = access("/usr/sbin/capsh", X_OK) == 0 || access("/sbin/capsh", X_OK) == 0;
    if (capsh)
        run(&c, NULL, ARGV("capsh", "--drop=cap_sys_ptrace,cap_dac_override,cap_dac_read_search", "--", "-c",
                           "exec \"$0\" inspect \"$1\"", cli(), pid));
    live_stop(&l);

    const char *why = denial(&r);
    ck_assert_msg(strstr(why, "; even as root: this root lacks CAP_SYS_PTRACE (CapEff in /proc/self/status)") != NULL
                      && strstr(why, "run as the process's user") == NULL, "%s", why);
    run_free(&r);
    if (!capsh) {
        printf("SKIP %s (capsh part): no capsh (apt-get install libcap2-bin)\n", __func__);
        return;
    }
    why = denial(&c);
    ck_assert_msg(strstr(why, "lacks CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (or CAP_DAC_OVERRIDE)") != NULL, "%s", why);
    run_free(&c);
}
END_TEST

/* A /proc mounted hidepid=2 (in a mount namespace of the test's own)
 * shows root without CAP_SYS_PTRACE no directory for another user's
 * process: not "no process", which it is not, but what hides it. */
START_TEST(hidden_by_hidepid)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to mount a /proc\n", __func__);
        return;
    }
    struct live l;
    struct run r;
    char pid[32];
    start_as_nobody(&l);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    /* gid=: root's group would otherwise see through hidepid. */
    run(&r, NULL, ARGV("unshare", "-m", "--propagation", "private", "sh", "-c",
                       "mount -t proc -o hidepid=2,gid=65533 proc /proc || exit 99; "
                       "exec setpriv --bounding-set=-sys_ptrace \"$0\" inspect \"$1\"", cli(), pid));
    live_stop(&l);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 99) {
        printf("SKIP %s: cannot mount a /proc here: %s\n", __func__, r.err);
        run_free(&r);
        return;
    }
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "is running but /proc shows it no directory: even as root: /proc is mounted hidepid=")
                      != NULL && strstr(r.err, "lacks CAP_SYS_PTRACE") != NULL && strstr(r.err, "no process") == NULL,
                  "%s", r.err);
    run_free(&r);
}
END_TEST

/* -h and --help, wherever among the options: the help on stdout, 0. */
START_TEST(help)
{
    const char *const *const calls[] = {
        ARGV("inspect", "--help"), ARGV("inspect", "-h"), ARGV("inspect", "--all", "-h"),
        ARGV("inspect", "--json", "1", "--help"), ARGV("inspect", "--bogus", "--help"),
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        const char *argv[8] = { cli() };
        for (int k = 0; calls[i][k] != NULL; k++)
            argv[k + 1] = calls[i][k];
        struct run r;
        run(&r, NULL, argv);
        ck_assert_status(&r, 0);
        ck_assert_str_eq(r.err, "");
        ck_assert_msg(strncmp(r.out, "Usage: arenafix inspect [--json] [--no-probe] PID\n"
                                     "       arenafix inspect --all [--json] [--no-probe]\n", 100) == 0,
                      "%s", r.out);
        ck_assert_msg(strstr(r.out, "\nOptions:\n  -a, --all          ") != NULL
                          && strstr(r.out, "\n  -h, --help         print this help and exit\n") != NULL
                          && strstr(r.out, "\nExamples:\n  arenafix inspect 1234 ") != NULL
                          && strstr(r.out, "\nExit status: 0 fine, ") != NULL
                          && strstr(r.out, "\nSee arenafix-inspect(1).\n") != NULL,
                      "%s", r.out);
        run_free(&r);
    }
    /* A usage error is still one line on stderr, status 2. */
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--bogus"));
    ck_assert_status(&r, 2);
    ck_assert_str_eq(r.out, "");
    ck_assert_msg(strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "%s", r.err);
    run_free(&r);
}
END_TEST

/* ---- what a hostile process controls --------------------------------- */

/* A JSON string at *p, as afx_json_quote may write it: ASCII only. */
static bool json_string(const char **p)
{
    if (*(*p)++ != '"')
        return false;
    for (;;) {
        unsigned char c = (unsigned char)*(*p)++;
        if (c == '"')
            return true;
        if (c < 0x20 || c > 0x7e)
            return false;
        if (c != '\\')
            continue;
        c = (unsigned char)*(*p)++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++, (*p)++)
                if (strchr("0123456789abcdefABCDEF", **p) == NULL || **p == '\0')
                    return false;
        } else if (strchr("\"\\/bfnrt", c) == NULL || c == '\0') {
            return false;
        }
    }
}

/* The report is one flat JSON object, every byte of it ASCII. */
static bool json_valid(const char *s)
{
    const char *p = s;
    if (*p++ != '{')
        return false;
    for (;;) {
        if (!json_string(&p) || *p++ != ':')
            return false;
        if (*p == '"') {
            if (!json_string(&p))
                return false;
        } else if (strncmp(p, "true", 4) == 0 || strncmp(p, "null", 4) == 0) {
            p += 4;
        } else if (strncmp(p, "false", 5) == 0) {
            p += 5;
        } else {
            p += *p == '-';
            if (*p < '0' || *p > '9')
                return false;
            while (*p >= '0' && *p <= '9')
                p++;
        }
        if (*p == '}')
            return strcmp(p, "}\n") == 0;
        if (*p++ != ',')
            return false;
    }
}

static char scratch[PATH_MAX];

static void scratch_dir(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/arenafix-inspect-XXXXXX");
    ck_assert(mkdtemp(scratch) != NULL);
}

static void scratch_remove(void)
{
    ck_assert_msg(remove_tree(scratch), "%s left behind", scratch);
}

/* Its name and its maps hold escape sequences; a file whose name only
 * starts like jemalloc's is not jemalloc. */
START_TEST(hostile_names_reach_no_terminal)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    struct live l;
    struct run r;
    char pid[32], decoy[PATH_MAX + 32], dir[PATH_MAX + 32], jemalloc[PATH_MAX + 64];
    scratch_dir();
    snprintf(decoy, sizeof decoy, "%s/libjemalloc-is-not-here", scratch);
    copy_file(test_prog("hostile"), decoy);
    live_start(&l, NULL, ARGV(test_prog("hostile"), "--name", "\033]52;c;YQ==\a", decoy));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--no-probe", pid));
    live_stop(&l);
    ck_assert_msg(terminal_safe(r.out) && terminal_safe(r.err), "raw bytes reach the terminal: %s", r.out);
    ck_assert_msg(strstr(r.out, "(\\033]52;c;YQ==\\007): fine") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "malloc:") == NULL, "a prefix taken for jemalloc: %s", r.out);
    run_free(&r);

    /* The real name, in a directory named to clear the screen. */
    snprintf(dir, sizeof dir, "%s/\033[2J\033[H all fine \r", scratch);
    ck_assert(mkdir(dir, 0755) == 0);
    snprintf(jemalloc, sizeof jemalloc, "%s/libjemalloc.so.2", dir);
    copy_file(test_prog("hostile"), jemalloc);
    live_start(&l, NULL, ARGV(test_prog("hostile"), jemalloc));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--no-probe", pid));
    live_stop(&l);
    scratch_remove();
    ck_assert_msg(terminal_safe(r.out), "raw bytes reach the terminal: %s", r.out);
    ck_assert_msg(strstr(r.out, "/\\033[2J\\033[H all fine \\015/libjemalloc.so.2\n") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "verdict: fine: malloc comes from ") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* Bytes that are not UTF-8 in its name: the report is still JSON. */
START_TEST(json_valid_whatever_the_name)
{
    struct live l;
    struct run r;
    char pid[32];
    live_start(&l, NULL, ARGV(test_prog("hostile"), "--name", "\xff\xfe\xc3(\x9b" "2J"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", "--no-probe", pid));
    live_stop(&l);
    ck_assert_status(&r, 0);
    ck_assert_msg(json_valid(r.out), "not JSON: %s", r.out);
    ck_assert_msg(strstr(r.out, "\"name\":\"\\ufffd\\ufffd\\ufffd(\\ufffd2J\"") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* LD_PRELOAD of a CLOCK_MONOTONIC that stands still (stillclock.c): no
 * deadline of inspect's passes, however slowly it runs, and only its
 * bounds on what it reads decide what it reads. */
static const char *still_clock(void)
{
    static char preload[PATH_MAX + 16];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", test_prog("stillclock.so"));
    return preload;
}

/* The instructions callgrind counts in `inspect --no-probe` of a process
 * mapping path copies times, its clock stopped: all the work, none of it
 * cut short by a deadline under callgrind on a loaded machine.  Fails
 * the test, with the command's output, if inspect does not exit 0 or
 * callgrind gives no count. */
static long inspect_instructions(const char *path, int copies)
{
    char n[16], pid[32];
    struct live l;
    struct run r;
    snprintf(n, sizeof n, "%d", copies);
    live_start(&l, NULL, ARGV(test_prog("hostile"), "--copies", n, path));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, ARGV(still_clock()), ARGV("timeout", "-k", "1", "120", "valgrind", "--tool=callgrind",
                                      "--callgrind-out-file=/dev/null", cli(), "inspect", "--no-probe", pid));
    live_stop(&l);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
                  "inspect --no-probe of a process with %d mappings, under callgrind: wait status 0x%x, want exit 0; "
                  "stdout: %s; stderr: %s", copies, r.status, r.out, r.err);
    const char *c = strstr(r.err, "Collected : ");
    long count = c != NULL ? atol(c + strlen("Collected : ")) : -1;
    ck_assert_msg(count > 0, "callgrind gave no count for inspect of %d mappings (exit 0); stderr: %s", copies, r.err);
    run_free(&r);
    return count;
}

/* A file with a 3000-byte path (twelve nested 250-byte directories) in
 * the scratch directory, a copy of the hostile program: each of its
 * mappings makes a long line of maps.  Written into path. */
static void long_mapped_file(char *path, size_t size)
{
    char component[251];
    scratch_dir();
    memset(component, 'd', sizeof component - 1);
    component[sizeof component - 1] = '\0';
    int len = snprintf(path, size, "%s", scratch);
    for (int i = 0; i < 12; i++) {
        len += snprintf(path + len, size - (size_t)len, "/%s", component);
        ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
    }
    snprintf(path + len, size - (size_t)len, "/mapped");
    copy_file(test_prog("hostile"), path);
}

/* 20000 mappings of that file: 60 MB of maps, read in a buffer and no
 * further than inspect's bound (cannot tell, saying why).  The clock
 * stands still: the size bound alone stops the read, never its
 * deadline.  A hang is caught by the timeout. */
START_TEST(maps_read_in_bounded_memory)
{
    char path[PATH_MAX], copies[16], pid[32];
    long_mapped_file(path, sizeof path);
    snprintf(copies, sizeof copies, "%d", 20000);
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV(test_prog("hostile"), "--copies", copies, path));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, ARGV(still_clock()), ARGV("timeout", "-k", "1", "60", cli(), "inspect", "--no-probe", pid));
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    live_stop(&l);
    scratch_remove();
    ck_assert_status(&r, 5);
    ck_assert_msg(strstr(r.out, "verdict: cannot tell: its memory map (/proc/") != NULL
                      && strstr(r.out, "/maps) is larger than 8 MiB") != NULL,
                  "not cut short at 8 MiB of maps: %s", r.out);
    ck_assert_msg(ru.ru_maxrss < 32 * 1024, "used %ld KiB", ru.ru_maxrss);
    run_free(&r);
}
END_TEST

/* Below the bound, in linear time: four times the maps cost at most 4.5
 * times the instructions (callgrind's counts, which load does not
 * change; a read that went over what it had again would cost 16 times).
 * Each run's clock stands still. */
START_TEST(maps_read_in_linear_time)
{
    char path[PATH_MAX];
    long_mapped_file(path, sizeof path);
    if (access("/usr/bin/valgrind", X_OK) != 0) {
        printf("SKIP %s (linear time): valgrind is not installed (apt-get install valgrind)\n", __func__);
    } else if (!skip_emulated(__func__, "valgrind is built for this machine, not the emulated one")) {
        long small = inspect_instructions(path, 250);
        long large = inspect_instructions(path, 1000);
        double ratio = (double)large / (double)small;
        printf("inspect: %ld instructions for 250 mappings of a 3000-byte path, %ld for 1000: %.2f x\n", small,
               large, ratio);
        ck_assert_msg(ratio > 2, "%.2f x: the maps were not read (the test sees nothing)", ratio);
        ck_assert_msg(ratio <= 4.5, "%ld instructions for 250 mappings, %ld for 1000: %.2f x, more than linear",
                      small, large, ratio);
    }
    scratch_remove();
}
END_TEST

/* Already under arenafix, in touch mode, under taskset: still hit, and
 * restarting it under arenafix again would not help. */
START_TEST(advice_for_a_process_already_under_arenafix)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char lib[PATH_MAX], pid[32];
    ck_assert(realpath(testlib(), lib) != NULL);
    struct live l;
    struct run r;
    live_start_env(&l, lib, ARGV("ARENAFIX_MODE=touch"),
                   ARGV("taskset", "-c", "0", affected_loader(g), "--library-path", g,
                        test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l.arenas, 9);
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);
    ck_assert_status(&r, 3);
    ck_assert_msg(strstr(r.out, "\"libarenafix_mode\":\"touch\"") != NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "restart it under arenafix") == NULL, "%s", r.out);
    ck_assert_msg(strstr(r.out, "ARENAFIX_MODE=mallopt") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* inspect itself under taskset (a pod's cpuset): the probe still tells. */
START_TEST(probe_of_its_glibc_under_narrow_affinity)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    struct live l;
    struct run r;
    char pid[32];
    live_start(&l, NULL, ARGV(affected_loader(g), "--library-path", g, test_prog("arenawait"), "4", "pinned"));
    snprintf(pid, sizeof pid, "%d", (int)l.pid);
    run(&r, NULL, ARGV("taskset", "-c", "0", cli(), "inspect", "--json", pid));
    live_stop(&l);
    ck_assert_status(&r, 4);
    ck_assert_msg(strstr(r.out, "\"glibc_state\":\"affected\"") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* ---- real programs ------------------------------------------------------- */

/* The threads of process pid now; *all_ran (if not NULL): whether each
 * has been on a CPU (its schedstat's run time). */
static int task_count(pid_t pid, bool *all_ran)
{
    char task[64], stat[sizeof task + 256 + 16];
    snprintf(task, sizeof task, "/proc/%d/task", (int)pid);
    DIR *d = opendir(task);
    int n = 0;
    bool ran_all = d != NULL;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        snprintf(stat, sizeof stat, "%s/%s/schedstat", task, e->d_name);
        FILE *f = fopen(stat, "r");
        unsigned long long ran = 0;
        if (f == NULL || fscanf(f, "%llu", &ran) != 1 || ran == 0)
            ran_all = false;
        if (f != NULL)
            fclose(f);
    }
    if (d != NULL)
        closedir(d);
    if (all_ran != NULL)
        *all_ran = ran_all;
    return n;
}

/* taskset -c 0 xz -T16 on the affected glibc, its input still open: the
 * arenas inspect counts are the ones malloc_info counts when xz exits.
 * xz's large zeroed buffers end where heaps could; they are not heaps. */
static void xz_case(const char *g, const char *lib)
{
    char counter[PATH_MAX], report[PATH_MAX], preload[2 * PATH_MAX + 2], pid[32];
    snprintf(counter, sizeof counter, "%s/../real/countarenas.so", test_prog(""));
    ck_assert_msg(access(counter, R_OK) == 0, "no %s (make check-cli builds it)", counter);
    snprintf(report, sizeof report, "/tmp/arenafix-xz-XXXXXX");
    int fd = mkstemp(report);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(preload, sizeof preload, "%s%s%s", counter, lib ? ":" : "", lib ? lib : "");
    int in[2];
    ck_assert(pipe2(in, O_CLOEXEC) == 0);
    pid_t xz = fork();
    ck_assert_int_ge(xz, 0);
    if (xz == 0) {
        dup2(in[0], STDIN_FILENO);
        close(in[1]);
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        setenv("LD_PRELOAD", preload, 1);
        setenv("AFX_ARENAS_FILE", report, 1);
        char loader[PATH_MAX];
        snprintf(loader, sizeof loader, "%s", affected_loader(g));
        execlp("taskset", "taskset", "-c", "0", loader, "--library-path", g, "/usr/bin/xz", "-T16",
               "--block-size=1MiB", "-c", (char *)NULL);
        _exit(99);
    }
    close(in[0]);
    /* Blocks of input until all 16 workers and the main thread are there
     * (each block compressed costs some 50 ms of CPU at xz's default
     * level), 40 at most. */
    static char zeros[1 << 20];
    for (int i = 0; i < 40 && task_count(xz, NULL) < 17; i++)
        ck_assert(write(in[1], zeros, sizeof zeros) == (ssize_t)sizeof zeros);
    /* Until its threads stop coming (they live until the input ends) and
     * each has run: the last one has its block, and its arena, by then. */
    int threads = 0, same = 0;
    for (int i = 0; i < 100 && same < 5; i++) {
        bool all_ran;
        int n = task_count(xz, &all_ran);
        same = n == threads && all_ran ? same + 1 : 0;
        threads = n;
        nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
    }
    struct run r;
    snprintf(pid, sizeof pid, "%d", (int)xz);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    close(in[1]);
    int status;
    waitpid(xz, &status, 0);
    FILE *f = fopen(report, "r");
    int counted = -1;
    ck_assert(f != NULL && fscanf(f, "arenas=%d", &counted) == 1);
    fclose(f);
    unlink(report);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "xz failed: 0x%x", status);
    ck_assert_msg(threads > 9, "only %d threads", threads);
    ck_assert_int_eq(json_long(r.out, "arenas_counted"), counted);
    if (lib == NULL) {
        ck_assert_int_eq(counted, 9);       /* the bug */
        ck_assert_status(&r, 3);
    } else {
        /* An arena per thread, at most 8 per online CPU: fixed. */
        long most = 8 * sysconf(_SC_NPROCESSORS_ONLN);
        ck_assert_int_eq(counted, threads < most ? threads : most);
        ck_assert_status(&r, 0);
    }
    run_free(&r);
}

START_TEST(xz_counts_match_malloc_info)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    if (access("/usr/bin/xz", X_OK) != 0) {
        printf("SKIP %s: xz is not installed (apt-get install xz-utils)\n", __func__);
        return;
    }
    char lib[PATH_MAX];
    ck_assert(realpath(testlib(), lib) != NULL);
    xz_case(g, NULL);
    xz_case(g, lib);
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
    tcase_add_test(tc, denied_to_root_names_the_capability);
    tcase_add_test(tc, hidden_by_hidepid);
    tcase_add_test(tc, help);
    tcase_add_test(tc, hostile_names_reach_no_terminal);
    tcase_add_test(tc, json_valid_whatever_the_name);
    tcase_add_test(tc, maps_read_in_bounded_memory);
    tcase_add_test(tc, advice_for_a_process_already_under_arenafix);
    tcase_add_test(tc, probe_of_its_glibc_under_narrow_affinity);
    tcase_add_test(tc, xz_counts_match_malloc_info);
    suite_add_tcase(s, tc);
    /* callgrind: the slow tier's (make check-cost). */
    TCase *cost = tcase_create("cost");
    tcase_set_tags(cost, "cost");
    tcase_set_timeout(cost, 600);
    tcase_add_test(cost, maps_read_in_linear_time);
    suite_add_tcase(s, cost);
    return s;
}
