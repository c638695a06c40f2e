/* The zero-cost promise: preloaded into a program that never creates a
 * thread nor narrows its mask, arenafix makes no system call beyond what
 * loading any library costs but the read it takes before main, while no
 * program can have locked itself down (a seccomp filter): the CPUs
 * online, from /sys/devices/system/cpu/online.  Its mask is read only
 * once a thread or a narrowing comes.  It never touches /proc. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const char online_file[] = "\"/sys/devices/system/cpu/online\"";

/* Trace bin/single with LD_PRELOAD=lib; return the syscall names, one
 * per line, memory mappings left out (their number follows the
 * library's segments, not its behaviour), and with STARTUP_READS the
 * open, reads and close of the online file left out too; NULL if no
 * trace came. */
static char *trace(const char *lib, char *names, size_t size, char *raw, size_t rawsize,
                   bool startup_reads)
{
    long online_fd = -1;
    char tracefile[] = "/tmp/afx-trace-XXXXXX", preload[4200], prog[4200];
    int fd = mkstemp(tracefile);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib);
    snprintf(prog, sizeof prog, "%s/single", afx_bin);
    struct child *c = calloc(1, sizeof *c);
    if (afx_emulated()) {
        /* qemu-user's -strace, to a file: the program's own calls, in
         * strace's "PID name(args) = result" form. */
        char logfile[4200];
        snprintf(logfile, sizeof logfile, "QEMU_LOG_FILENAME=%s", tracefile);
        const char *env[] = { "QEMU_STRACE=1", logfile, NULL };
        afx_run(c, &afx_glibcs[0], lib, env, "single", NULL);
        ck_assert_msg(c->status == 0, "single failed: %s", c->err);
    } else {
        const char *args[] = { "-f", "-qq", "-o", tracefile, "-E", preload, prog, NULL };
        afx_run(c, &afx_glibcs[0], NULL, NULL, afx_strace(), args);
        ck_assert_msg(c->status == 0, "strace failed: %s", c->err);
    }
    free(c);

    FILE *f = fopen(tracefile, "r");
    ck_assert(f != NULL);
    size_t len = 0, rawlen = 0;
    char line[4096];
    names[0] = raw[0] = '\0';
    while (fgets(line, sizeof line, f) != NULL) {
        rawlen += (size_t)snprintf(raw + rawlen, rawlen < rawsize ? rawsize - rawlen : 0, "%s",
                                   line);
        /* -f prefixes each line with the pid */
        char *call = line + strspn(line, "0123456789");
        call += strspn(call, " ");
        size_t n = strcspn(call, "(");
        if (startup_reads) {
            const char *result = strstr(call, ") = ");
            char fdcall[32];
            if (online_fd < 0 && strncmp(call, "openat(", 7) == 0
                && strstr(call, online_file) != NULL && result != NULL) {
                online_fd = atol(result + 4);
                continue;
            }
            if (online_fd >= 0) {
                snprintf(fdcall, sizeof fdcall, "read(%ld,", online_fd);
                if (strncmp(call, fdcall, strlen(fdcall)) == 0)
                    continue;
                snprintf(fdcall, sizeof fdcall, "close(%ld)", online_fd);
                if (strncmp(call, fdcall, strlen(fdcall)) == 0) {
                    online_fd = -2;
                    continue;
                }
            }
        }
        if (strncmp(call, "mmap", 4) == 0 || strncmp(call, "mprotect", 8) == 0
            || strncmp(call, "munmap", 6) == 0 || strncmp(call, "+++", 3) == 0)
            continue;
        len += (size_t)snprintf(names + len, len < size ? size - len : 0, "%.*s\n", (int)n, call);
    }
    fclose(f);
    unlink(tracefile);
    return rawlen > 0 ? names : NULL;
}

static size_t occurrences(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

START_TEST(no_syscalls_beyond_loading)
{
    if (afx_strace() == NULL) {
        printf("SKIP: zero-cost trace: strace is not installed (apt-get install strace)\n");
        return;
    }
    static char base[16384], shim[16384], raw[65536], baseraw[65536];
    char empty[4200];
    snprintf(empty, sizeof empty, "%s/libempty.so", afx_bin);
    if (trace(empty, base, sizeof base, baseraw, sizeof baseraw, false) == NULL
        && afx_emulated()) {
        printf("SKIP: zero-cost trace: the test programs run under an emulator (strace is "
               "built for another machine) that gave no trace (qemu-user gives one with "
               "QEMU_STRACE)\n");
        return;
    }
    ck_assert_msg(trace(afx_testlib, shim, sizeof shim, raw, sizeof raw, true) != NULL,
                  "no trace of the program with the preload");
    const char *online = strstr(raw, online_file);
    ck_assert_msg(online != NULL, "the preload did not read the CPUs online:\n%s", raw);
    ck_assert_msg(strstr(online + 1, online_file) == NULL, "read twice:\n%s", raw);
    /* The loader's own reads of /sys and /proc, if any, are the empty
     * preload's too. */
    ck_assert_msg(occurrences(raw, "\"/sys/") == occurrences(baseraw, "\"/sys/") + 1
                      && occurrences(raw, "\"/proc/") == occurrences(baseraw, "\"/proc/"),
                  "the preload touched /sys or /proc beyond the online CPUs:\n%s", raw);
    ck_assert_msg(strcmp(base, shim) == 0,
                  "system calls differ from an empty preload's:\n--- empty\n%s--- arenafix\n%s",
                  base, shim);
}
END_TEST

/* The login environment the cost is measured in (test/cost/login.env):
 * the library reads every variable at startup, and a minimal one hid
 * what forty cost.  Its lines, NULL-terminated, into vars[max]. */
static int login_env(const char **vars, int max, char *buf, size_t size)
{
    const char *file = getenv("AFX_COST_ENV") != NULL ? getenv("AFX_COST_ENV")
                                                      : "test/cost/login.env";
    FILE *f = fopen(file, "r");
    ck_assert_msg(f != NULL, "%s: %s", file, strerror(errno));
    int n = 0;
    size_t used = 0;
    while (n < max - 1 && used < size && fgets(buf + used, (int)(size - used), f) != NULL) {
        char *line = buf + used;
        size_t len = strcspn(line, "\n");
        line[len] = '\0';
        used += len + 1;
        if (len > 0 && line[0] != '#')
            vars[n++] = line;
    }
    fclose(f);
    vars[n] = NULL;
    ck_assert_msg(n >= 40, "%s: %d variables, expected a login's forty", file, n);
    return n;
}

/* The count callgrind gives in a child's stderr; fails the test, with
 * its output, where the child did not exit 0 (what was counted is then
 * not the work asked for) or no count came. */
static long counted(const struct child *c, const char *what)
{
    ck_assert_msg(c->status == 0, "%s under callgrind: status %d, want 0; stdout: %s; stderr: %s", what, c->status,
                  c->out, c->err);
    const char *p = strstr(c->err, "Collected : ");
    long count = p != NULL ? atol(p + strlen("Collected : ")) : -1;
    ck_assert_msg(count > 0, "%s: callgrind gave no count (status 0); stderr: %s", what, c->err);
    return count;
}

/* Instructions executed (callgrind's count, the same from run to run)
 * by /bin/true with LD_PRELOAD=lib, in the login environment. */
static long instructions(const char *valgrind, const char *lib)
{
    static char envbuf[16384];
    char preload[4200];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib);
    const char *args[62];
    args[0] = "-i";
    int n = 1 + login_env(args + 1, 52, envbuf, sizeof envbuf);
    const char *tail[] = { preload, valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           "/bin/true", NULL };
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        args[n++] = tail[i];
    struct child *c = calloc(1, sizeof *c);
    ck_assert(c != NULL);
    afx_run(c, &afx_glibcs[0], NULL, NULL, "/usr/bin/env", args);
    char what[4300];
    snprintf(what, sizeof what, "/bin/true with LD_PRELOAD=%s", lib);
    long count = counted(c, what);
    free(c);
    return count;
}

/* Every process on a host with the library in /etc/ld.so.preload pays
 * its constructor.  A program that never starts a thread pays what any
 * preload costs, within 4% in a login's environment (1.035 measured,
 * the rest a margin for the library's path, which the loader reads:
 * docs/benchmarks.md); one dladdr per bound symbol once made it 7.9
 * times, a pass over every variable per setting 1.16, the start files'
 * lookups, two lazy bindings and two symbol versions 1.08, and glibc's
 * syscall() and pthread_self() bound at load 1.043. */
START_TEST(startup_instructions_near_an_empty_preload)
{
    static const char valgrind[] = "/usr/bin/valgrind";
    if (access(valgrind, X_OK) != 0 || access("/usr/bin/env", X_OK) != 0
        || access("/bin/true", X_OK) != 0) {
        afx_skip("startup instruction count",
                 "valgrind is not installed (apt-get install valgrind)");
        return;
    }
    if (afx_emulated()) {
        afx_skip("startup instruction count",
                 "the test programs run under an emulator: valgrind is built for this machine");
        return;
    }
    char empty[4200];
    snprintf(empty, sizeof empty, "%s/libempty.so", afx_bin);
    long base = instructions(valgrind, empty);
    long lib = instructions(valgrind, afx_testlib);
    double ratio = (double)lib / (double)base;
    printf("startup: /bin/true runs %ld instructions with arenafix, %ld with an empty "
           "preload: %.3f x\n", lib, base, ratio);
    ck_assert_msg(ratio <= 1.04,
                  "/bin/true: %ld instructions with arenafix, %ld with an empty preload: "
                  "%.3f x, above 1.04 x", lib, base, ratio);
}
END_TEST

/* Instructions of costthreads COUNT KIND under callgrind, with LIB
 * preloaded in MODE (NULL: no preload), in the same small environment. */
static long thread_run(const char *valgrind, const char *lib, const char *mode, const char *kind,
                       long count)
{
    char preload[4200], modevar[64], prog[4200], n[32];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib ? lib : "");
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode ? mode : "");
    snprintf(prog, sizeof prog, "%s/costthreads", afx_bin);
    snprintf(n, sizeof n, "%ld", count);
    const char *args[] = { "-i", "PATH=/usr/bin:/bin", "HOME=/", "LANG=C.UTF-8", preload, modevar,
                           valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           prog, n, kind, NULL };
    struct child *c = calloc(1, sizeof *c);
    ck_assert(c != NULL);
    afx_run(c, &afx_glibcs[0], NULL, NULL, "/usr/bin/env", args);
    char what[128];
    snprintf(what, sizeof what, "costthreads %ld %s (%s, mode %s)", count, kind, lib ? "arenafix" : "no preload",
             mode ? mode : "none");
    long ir = counted(c, what);
    free(c);
    return ir;
}

/* Instructions per pthread_create + join: (a run of COUNT threads - a
 * run of none) / COUNT. */
static long per_create(const char *valgrind, const char *lib, const char *mode, const char *kind)
{
    enum { COUNT = 200 };
    long none = thread_run(valgrind, lib, mode, kind, 0);
    long some = thread_run(valgrind, lib, mode, kind, COUNT);
    return (some - none) / COUNT;
}

static const char *const born_wide[] = { "unpinned", "default" };

/* A thread born wide needs no touch: touch mode may add to its creation
 * at most what glibc's own create and join cost.  A byte-by-byte
 * comparison of a 1,024-byte CPU set once added 6,700 to glibc's 2,600. */
START_TEST(touch_create_within_glibcs_cost)
{
    static const char valgrind[] = "/usr/bin/valgrind";
    if (access(valgrind, X_OK) != 0 || access("/usr/bin/env", X_OK) != 0) {
        afx_skip("per-create instruction count",
                 "valgrind is not installed (apt-get install valgrind)");
        return;
    }
    if (afx_emulated()) {
        afx_skip("per-create instruction count",
                 "the test programs run under an emulator: valgrind is built for this machine");
        return;
    }
    const char *kind = born_wide[_i];
    long glibc = per_create(valgrind, NULL, NULL, kind);
    long touch = per_create(valgrind, afx_testlib, "touch", kind);
    printf("cost: pthread_create + join (%s): %ld instructions without arenafix, %ld in touch "
           "mode (+%ld)\n", kind, glibc, touch, touch - glibc);
    ck_assert_msg(touch - glibc <= glibc,
                  "touch mode adds %ld instructions to each create + join of a thread born "
                  "wide (%s), more than glibc's own %ld", touch - glibc, kind, glibc);
}
END_TEST

/* Instructions the creating thread spends in COUNT creations (callgrind's
 * inclusive count of costthreads' afx_cost_create: the interposer,
 * glibc's create, the new thread's thread-local block), which, unlike
 * the whole run's, is the same from run to run.  Fails the test, with
 * the output, where costthreads or callgrind_annotate did not exit 0 or
 * gave no count. */
static long creations_ir(const char *valgrind, const char *lib, const char *mode, const char *kind, long count)
{
    char preload[4200], modevar[64], prog[4200], n[32], outfile[] = "/tmp/afx-cg-XXXXXX",
         outarg[64];
    int fd = mkstemp(outfile);
    ck_assert(fd >= 0);
    close(fd);
    snprintf(outarg, sizeof outarg, "--callgrind-out-file=%s", outfile);
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", lib ? lib : "");
    snprintf(modevar, sizeof modevar, "ARENAFIX_MODE=%s", mode ? mode : "");
    snprintf(prog, sizeof prog, "%s/costthreads", afx_bin);
    snprintf(n, sizeof n, "%ld", count);
    const char *args[] = { "-i", "PATH=/usr/bin:/bin", "HOME=/", "LANG=C.UTF-8", preload, modevar,
                           valgrind, "--tool=callgrind", outarg, prog, n, kind, NULL };
    struct child *c = calloc(1, sizeof *c);
    ck_assert(c != NULL);
    afx_run(c, &afx_glibcs[0], NULL, NULL, "/usr/bin/env", args);
    int run_status = c->status;
    static char run_err[sizeof c->err];
    memcpy(run_err, c->err, sizeof run_err);
    const char *annotate[] = { "--inclusive=yes", outfile, NULL };
    if (run_status == 0)
        afx_run(c, &afx_glibcs[0], NULL, NULL, "/usr/bin/callgrind_annotate", annotate);
    unlink(outfile);
    ck_assert_msg(run_status == 0, "costthreads %ld %s (%s, mode %s) under callgrind: status %d, want 0; "
                  "stderr: %s", count, kind, lib ? "arenafix" : "no preload", mode ? mode : "none", run_status, run_err);
    ck_assert_msg(c->status == 0, "callgrind_annotate: status %d, want 0; stderr: %s", c->status, c->err);
    long ir = -1;
    /* "   1,027,400 (61.54%)  bench/costthreads.c:afx_cost_create [...]" */
    for (const char *line = c->out; line != NULL && *line != '\0';
         line = strchr(line, '\n') != NULL ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        const char *fn = strstr(line, ":afx_cost_create ");
        if (fn == NULL || (end != NULL && fn > end))
            continue;
        ir = 0;
        for (const char *d = line; d < fn && *d != '('; d++)
            if (*d >= '0' && *d <= '9')
                ir = ir * 10 + (*d - '0');
        break;
    }
    ck_assert_msg(ir > 0, "callgrind_annotate gave no count for afx_cost_create (costthreads %ld %s, %s, mode %s); "
                  "its output: %s", count, kind, lib ? "arenafix" : "no preload", mode ? mode : "none", c->out);
    free(c);
    return ir;
}

/* Once the limit is settled, a creation has nothing left for arenafix to
 * do: what it adds to each pthread_create, past the decision window, is
 * the call through the interposer and one look at a flag, in mode off and
 * in the default mode alike, for threads born unpinned or pinned by
 * their attribute: 33 on Debian 12's glibc.  0.1.0 added 298 a creation,
 * for the life of the process (its bookkeeping ran at every one), and
 * 132 came while the library had thread-local storage, which glibc sets
 * up in every new thread. */
START_TEST(settled_create_near_the_floor)
{
    static const char valgrind[] = "/usr/bin/valgrind";
    if (access(valgrind, X_OK) != 0 || access("/usr/bin/env", X_OK) != 0
        || access("/usr/bin/callgrind_annotate", X_OK) != 0) {
        afx_skip("settled per-create instruction count",
                 "valgrind is not installed (apt-get install valgrind)");
        return;
    }
    if (afx_emulated()) {
        afx_skip("settled per-create instruction count",
                 "the test programs run under an emulator: valgrind is built for this machine");
        return;
    }
    /* The first FROM creations hold the decision window (8 x arena_test
     * at most); the next 2 x FROM are counted. */
    enum { FROM = 400, LIMIT = 60 };
    static const char *const kinds[] = { "unpinned", "pinned" };
    static const char *const modes[] = { "off", "mallopt" };
    for (int k = 0; k < 2; k++) {
        long glibc_runs[2];
        for (int r = 0; r < 2; r++)
            glibc_runs[r] = creations_ir(valgrind, NULL, NULL, kinds[k], r == 0 ? FROM : 3 * FROM);
        long glibc = (glibc_runs[1] - glibc_runs[0]) / (2 * FROM);
        for (int m = 0; m < 2; m++) {
            long runs[2];
            for (int r = 0; r < 2; r++)
                runs[r] = creations_ir(valgrind, afx_testlib, modes[m], kinds[k], r == 0 ? FROM : 3 * FROM);
            long added = (runs[1] - runs[0]) / (2 * FROM) - glibc;
            printf("cost: pthread_create once settled (mode %s, %s), the creating thread: %ld "
                   "instructions without arenafix, +%ld with it\n", modes[m], kinds[k], glibc,
                   added);
            ck_assert_msg(added <= LIMIT,
                          "mode %s adds %ld instructions to each pthread_create (%s) once the "
                          "limit is settled, more than %d", modes[m], added, kinds[k], LIMIT);
        }
    }
}
END_TEST

/* A fork from another thread while arenafix binds its real functions
 * leaves the child with the binding half done and no thread to finish
 * it: the child must bind itself, not wait for ever.  libholdbind.so
 * (test/cost/holdbind.c) holds the binding thread in dlvsym while a
 * second thread forks; its child calls mallopt. */
START_TEST(fork_while_binding)
{
    char hold[4200], preload[8400];
    snprintf(hold, sizeof hold, "%s/libholdbind.so", afx_bin);
    if (access(hold, R_OK) != 0) {
        afx_skip("fork while binding", "libholdbind.so is not built (test/cost/cost.mk)");
        return;
    }
    snprintf(preload, sizeof preload, "%s:%s", afx_testlib, hold);
    struct child *c = calloc(1, sizeof *c);
    ck_assert(c != NULL);
    afx_run(c, &afx_glibcs[0], preload, NULL, "single", NULL);
    ck_assert_msg(c->status == 0 && strstr(c->out, "forked child: proceeded\n") != NULL,
                  "status %d:\n%s%s", c->status, c->out, c->err);
    free(c);
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("zero");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, no_syscalls_beyond_loading);
    suite_add_tcase(s, tc);
    /* Counted by callgrind: the slow tier's (make check-cost). */
    tc = tcase_create("instructions");
    tcase_set_tags(tc, "cost");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, startup_instructions_near_an_empty_preload);
    tcase_add_loop_test(tc, touch_create_within_glibcs_cost, 0,
                        (int)(sizeof born_wide / sizeof born_wide[0]));
    tcase_add_test(tc, settled_create_near_the_floor);
    suite_add_tcase(s, tc);
    tc = tcase_create("fork");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fork_while_binding);
    suite_add_tcase(s, tc);
    return s;
}
