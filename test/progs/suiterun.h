/* Shared by the check harnesses (test/integration, test/cli): run
 * libcheck suites, AFX_TEST_JOBS of them at a time, and beside them
 * those that only wait.
 *
 * Most of these tests wait (for a child to pin its threads, for a
 * timeout to pass, for systemd), so on a 2-CPU machine a few suites at
 * once take the time of the longest one.  Each suite runs in a worker
 * process of its own whose output is kept and printed whole, in the
 * suites' order, so a log reads as a serial run does.  AFX_TEST_JOBS=1
 * (or unset) runs them in this process, one after the other.
 *
 * A harness whose tests judge the whole host (inspect --all) runs each
 * suite in a PID namespace of its own where it can (root): there it
 * sees its own processes and no others, neither another suite's beside
 * it nor anything else the host runs, and what it leaves running ends
 * with it. */
#ifndef AFX_TEST_SUITERUN_H
#define AFX_TEST_SUITERUN_H

#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostfile.h"

typedef Suite *(*afx_suite_maker)(void);

struct afx_suite_result {
    int run, failed;
    int finished;       /* the worker ran its suite to the end */
};

/* Run suite n in this process; record what it counted. */
static void afx_suite_run_one(afx_suite_maker make, struct afx_suite_result *res)
{
    SRunner *sr = srunner_create(make());
    srunner_run_all(sr, CK_NORMAL);
    res->run = srunner_ntests_run(sr);
    res->failed = srunner_ntests_failed(sr);
    res->finished = 1;
    srunner_free(sr);
}

/* The exit status a wait status stands for. */
static int afx_exit_of(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Make this process's children a PID namespace of their own, as
 * `unshare --pid --fork --mount-proc` does: its init (PID 1 there)
 * mounts the namespace's /proc, in a mount namespace of its own, and
 * reaps whatever is orphaned, as an init does.  Returns true in init's
 * one child, which goes on to run the suites; this process and init
 * wait for it and exit with its status.  False, nothing changed, where
 * no namespace can be made (not root): the host's PIDs are seen. */
static bool afx_enter_pid_namespace(void)
{
    if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0)
        return false;
    fflush(NULL);
    pid_t init = fork();
    if (init != 0) {
        int status = 0;
        if (init < 0)
            perror("suites: fork (the PID namespace's init)");
        while (init > 0 && waitpid(init, &status, 0) < 0 && errno == EINTR)
            ;
        _exit(init > 0 ? afx_exit_of(status) : 1);
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0
        || mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        perror("suites: mount the PID namespace's /proc");
        _exit(1);
    }
    pid_t runner = fork();
    if (runner == 0)
        return true;
    int status = 0, st;
    for (pid_t done; runner > 0;) {
        done = wait(&st);
        if (done == runner) {
            status = st;
            break;
        }
        if (done < 0 && errno != EINTR)
            break;
    }
    /* Init's exit ends whatever the suite left running there. */
    _exit(runner > 0 ? afx_exit_of(status) : 1);
}

/* Whether this process may make a PID namespace (tried in a child). */
static bool afx_pid_namespace_possible(void)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWPID | CLONE_NEWNS) == 0 ? 0 : 1);
    int status = 1;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Seconds on the monotonic clock. */
static double afx_suite_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The CPU a finished worker and everything it waited for used. */
static double afx_suite_cpu(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec)
           + (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* Print what a finished worker wrote, then forget it. */
static void afx_suite_flush(FILE *out)
{
    char buf[8192];
    size_t n;
    rewind(out);
    while ((n = fread(buf, 1, sizeof buf, out)) > 0)
        fwrite(buf, 1, n, stdout);
    fclose(out);
    fflush(stdout);
}

static int afx_run_suites_here(const afx_suite_maker *makers, int n, int waiting, bool own_pids);

/* Run the n suites; the number of tests that failed (a worker that died
 * counts as one failure, and so does a host file they changed).
 * waiting: the first suites, those that spend their time waiting out
 * the command's deadlines (a read a user holds, a loader that never
 * ends), idle: with AFX_TEST_JOBS above 1 they start at once, beside
 * the AFX_TEST_JOBS others, whose slots they would otherwise hold for
 * nothing.  own_pids: each suite in a PID namespace of its own, where
 * one can be made. */
static int afx_run_suites(const afx_suite_maker *makers, int n, int waiting, bool own_pids)
{
    static const char preload[] = "/etc/ld.so.preload";
    struct afx_host_file before, after;
    if (own_pids && !afx_pid_namespace_possible()) {
        printf("note: no PID namespace can be made here (not root): the suites see the host's processes, "
               "and each other's\n");
        own_pids = false;
    } else if (own_pids) {
        printf("each suite runs in a PID namespace of its own: its scans see its processes alone\n");
    }
    afx_host_file_read(preload, &before);
    int failed = afx_run_suites_here(makers, n, waiting, own_pids);
    afx_host_file_read(preload, &after);
    if (!afx_host_file_same(&before, &after)) {
        printf("FAIL: the suites changed this host's %s (%s before, %s after): a test wrote outside "
               "its own directories\n", preload, before.exists ? "there" : "absent", after.exists ? "there" : "absent");
        failed++;
    }
    free(before.text);
    free(after.text);
    return failed;
}

/* The n suites one after the other, in this process; the failures. */
static int afx_run_suites_serially(const afx_suite_maker *makers, int n)
{
    SRunner *sr = srunner_create(makers[0]());
    for (int i = 1; i < n; i++)
        srunner_add_suite(sr, makers[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

static int afx_run_suites_here(const afx_suite_maker *makers, int n, int waiting, bool own_pids)
{
    const char *env = getenv("AFX_TEST_JOBS");
    int jobs = env != NULL ? atoi(env) : 1;
    if (jobs <= 1 && !own_pids)
        return afx_run_suites_serially(makers, n);
    if (jobs <= 1) {
        /* All of them in one namespace, in a child of this process. */
        int *failed = mmap(NULL, sizeof *failed, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (failed == MAP_FAILED) {
            perror("suites: no memory for the count");
            return 1;
        }
        *failed = -1;
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (!afx_enter_pid_namespace())
                _exit(1);
            *failed = afx_run_suites_serially(makers, n);
            fflush(NULL);
            _exit(0);
        }
        int status;
        while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        int result = *failed >= 0 ? *failed : 1;
        if (*failed < 0)
            printf("FAIL: the suites' process ended before they did\n");
        munmap(failed, sizeof *failed);
        return result;
    }

    struct afx_suite_result *res = mmap(NULL, sizeof *res * (size_t)n, PROT_READ | PROT_WRITE,
                                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    FILE **out = calloc((size_t)n, sizeof *out);
    pid_t *pid = calloc((size_t)n, sizeof *pid);
    /* Each suite's wall and CPU time, said after its output: where the
     * time of a slow run went, without a profiler. */
    double *began = calloc((size_t)n, sizeof *began), all_cpu = 0;
    if (res == MAP_FAILED || out == NULL || pid == NULL || began == NULL) {
        perror("suites: no memory for the workers");
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    bool selected = getenv("CK_RUN_SUITE") != NULL || getenv("AFX_RUN_TEST") != NULL || getenv("CK_INCLUDE_TAGS") != NULL;
    int started = 0, running = 0, printed = 0, failed = 0, total = 0;
    while (printed < n) {
        /* running counts the others alone. */
        while (started < n && (started < waiting || running < jobs)) {
            out[started] = tmpfile();
            if (out[started] == NULL) {
                perror("suites: tmpfile");
                return 1;
            }
            pid[started] = fork();
            if (pid[started] == 0) {
                dup2(fileno(out[started]), STDOUT_FILENO);
                dup2(fileno(out[started]), STDERR_FILENO);
                setvbuf(stdout, NULL, _IOLBF, 0);
                if (own_pids && !afx_enter_pid_namespace()) {
                    printf("FAIL: suite worker %d: no PID namespace: %s\n", started, strerror(errno));
                    _exit(1);
                }
                afx_suite_run_one(makers[started], &res[started]);
                fflush(stdout);
                _exit(0);
            }
            if (pid[started] < 0) {
                perror("suites: fork");
                return 1;
            }
            began[started] = afx_suite_now();
            if (started >= waiting)
                running++;
            started++;
        }
        int status;
        struct rusage ru;
        pid_t done = wait4(-1, &status, 0, &ru);
        if (done < 0) {
            perror("suites: wait");
            return 1;
        }
        for (int i = 0; i < started; i++)
            if (pid[i] == done) {
                pid[i] = 0;
                if (i >= waiting)
                    running--;
                if (!res[i].finished)
                    fprintf(out[i], "FAIL: suite worker %d ended before its suite did (status %d)\n",
                            i, status);
                double cpu = afx_suite_cpu(&ru);
                all_cpu += cpu;
                fprintf(out[i], "(this suite: %.1f s, %.1f CPU-s)\n", afx_suite_now() - began[i], cpu);
                /* Now, not when shown: a worker forked meanwhile would
                 * inherit the buffer, and each test its suite forks
                 * writes it again as it exits. */
                fflush(out[i]);
            }
        /* In order: a suite is shown once all before it are; one left
         * out by SUITE= or TEST= (it ran nothing) is not. */
        while (printed < started && pid[printed] == 0) {
            if (selected && res[printed].finished && res[printed].run == 0)
                fclose(out[printed]);
            else
                afx_suite_flush(out[printed]);
            total += res[printed].run;
            failed += res[printed].finished ? res[printed].failed : 1;
            printed++;
        }
    }
    if (waiting > 0)
        printf("all suites (%d at a time, and %d that wait beside them): %d checks, %d failed, %.1f CPU-s\n", jobs,
               waiting < n ? waiting : n, total, failed, all_cpu);
    else
        printf("all suites (%d at a time): %d checks, %d failed, %.1f CPU-s\n", jobs, total, failed, all_cpu);
    if (selected && total == 0) {
        printf("FAIL: no test matched CK_RUN_SUITE=%s AFX_RUN_TEST=%s (make SUITE=, TEST=)\n",
               getenv("CK_RUN_SUITE") ? getenv("CK_RUN_SUITE") : "", getenv("AFX_RUN_TEST") ? getenv("AFX_RUN_TEST") : "");
        failed++;
    }
    munmap(res, sizeof *res * (size_t)n);
    free(out);
    free(pid);
    free(began);
    return failed;
}

#endif
