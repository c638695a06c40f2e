/* Shared by the check harnesses (test/integration, test/cli): run
 * libcheck suites, AFX_TEST_JOBS of them at a time.
 *
 * Most of these tests wait (for a child to pin its threads, for a
 * timeout to pass, for systemd), so on a 2-CPU machine a few suites at
 * once take the time of the longest one.  Each suite runs in a worker
 * process of its own whose output is kept and printed whole, in the
 * suites' order, so a log reads as a serial run does.  AFX_TEST_JOBS=1
 * (or unset) runs them in this process, one after the other. */
#ifndef AFX_TEST_SUITERUN_H
#define AFX_TEST_SUITERUN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
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

static int afx_run_suites_here(const afx_suite_maker *makers, int n);

/* Run the n suites; the number of tests that failed (a worker that died
 * counts as one failure, and so does a host file they changed). */
static int afx_run_suites(const afx_suite_maker *makers, int n)
{
    static const char preload[] = "/etc/ld.so.preload";
    struct afx_host_file before, after;
    afx_host_file_read(preload, &before);
    int failed = afx_run_suites_here(makers, n);
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

static int afx_run_suites_here(const afx_suite_maker *makers, int n)
{
    const char *env = getenv("AFX_TEST_JOBS");
    int jobs = env != NULL ? atoi(env) : 1;
    if (jobs <= 1) {
        SRunner *sr = srunner_create(makers[0]());
        for (int i = 1; i < n; i++)
            srunner_add_suite(sr, makers[i]());
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed;
    }

    struct afx_suite_result *res = mmap(NULL, sizeof *res * (size_t)n, PROT_READ | PROT_WRITE,
                                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    FILE **out = calloc((size_t)n, sizeof *out);
    pid_t *pid = calloc((size_t)n, sizeof *pid);
    if (res == MAP_FAILED || out == NULL || pid == NULL) {
        perror("suites: no memory for the workers");
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    int started = 0, running = 0, printed = 0, failed = 0, total = 0;
    while (printed < n) {
        while (started < n && running < jobs) {
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
                afx_suite_run_one(makers[started], &res[started]);
                fflush(stdout);
                _exit(0);
            }
            if (pid[started] < 0) {
                perror("suites: fork");
                return 1;
            }
            started++;
            running++;
        }
        int status;
        pid_t done = wait(&status);
        if (done < 0) {
            perror("suites: wait");
            return 1;
        }
        for (int i = 0; i < started; i++)
            if (pid[i] == done) {
                pid[i] = 0;
                running--;
                if (!res[i].finished)
                    fprintf(out[i], "FAIL: suite worker %d ended before its suite did (status %d)\n",
                            i, status);
            }
        /* In order: a suite is shown once all before it are. */
        while (printed < started && pid[printed] == 0) {
            afx_suite_flush(out[printed]);
            total += res[printed].run;
            failed += res[printed].finished ? res[printed].failed : 1;
            printed++;
        }
    }
    printf("all suites (%d at a time): %d checks, %d failed\n", jobs, total, failed);
    munmap(res, sizeof *res * (size_t)n);
    free(out);
    free(pid);
    return failed;
}

#endif
