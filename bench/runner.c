/* The scenario runner (runner.h). */
#include "runner.h"

#include "loader.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "pin.h"
#include "workloads.h"

extern char **environ;

#define CHILD_TIMEOUT_S 300 /* a hung run must not hang the benchmark */

void afb_result_format(const struct afb_metrics *m, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "afb-result");
    struct afb_metrics copy = *m;
    for (int i = 0; i < AFB_METRIC_COUNT && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s=%.6f", afb_metric_names[i],
                                 *afb_metric_at(&copy, i));
}

int afb_result_parse(const char *line, struct afb_metrics *m)
{
    if (strncmp(line, "afb-result ", 11) != 0)
        return -1;
    for (int i = 0; i < AFB_METRIC_COUNT; i++) {
        char key[40];
        snprintf(key, sizeof key, " %s=", afb_metric_names[i]);
        const char *at = strstr(line, key);
        if (at == NULL)
            return -1;
        char *end;
        double v = strtod(at + strlen(key), &end);
        if (end == at + strlen(key))
            return -1;
        *afb_metric_at(m, i) = v;
    }
    return 0;
}

const char *afb_first_glibc(const char *list, char *buf, size_t len)
{
    if (list == NULL)
        return NULL;
    list += strspn(list, ":");
    size_t n = strcspn(list, ":");
    if (n == 0 || n >= len)
        return NULL;
    memcpy(buf, list, n);
    buf[n] = '\0';
    return buf;
}

int afb_glibc_dir_usable(const char *dir)
{
    char path[4096];
    if (dir == NULL || *dir == '\0')
        return 0;
    snprintf(path, sizeof path, "%s/%s", dir, AFX_LOADER);
    if (access(path, X_OK) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/libc.so.6", dir);
    return access(path, R_OK) == 0;
}

static int pinned(enum afb_scenario s)
{
    return s != AFB_S_UNPINNED;
}

int afb_run_one(const struct afb_run *run, struct afb_metrics *out, char *err, size_t errlen)
{
    char threads[16], iterations[24], loader[4096];
    snprintf(threads, sizeof threads, "%d", run->threads);
    snprintf(iterations, sizeof iterations, "%ld", run->iterations);
    const char *argv[16];
    int argc = 0;
    if (run->glibc_dir != NULL) {
        snprintf(loader, sizeof loader, "%s/%s", run->glibc_dir, AFX_LOADER);
        argv[argc++] = loader;
        argv[argc++] = "--library-path";
        argv[argc++] = run->glibc_dir;
    }
    argv[argc++] = run->self;
    argv[argc++] = "run-one";
    argv[argc++] = afb_workload_names[run->workload];
    argv[argc++] = threads;
    argv[argc++] = iterations;
    argv[argc++] = afb_pinpath_names[pinned(run->scenario) ? run->pin : AFB_P_NONE];
    argv[argc++] = run->scenario == AFB_S_INFIX ? "fix" : "nofix";
    argv[argc++] = run->slots;
    argv[argc] = NULL;

    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char **env = afb_env_build(environ, run->scenario, run->preload, run->arena_max);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execve(argv[0], (char **)argv, env);
        fprintf(stderr, "arenafix-bench: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    afb_env_free(env);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    char line[1024] = "";
    FILE *f = fdopen(fds[0], "r");
    int got = 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (!got && afb_result_parse(line, out) == 0)
            got = 1;
    fclose(f);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !got) {
        if (WIFSIGNALED(status))
            snprintf(err, errlen, "child killed by signal %d", WTERMSIG(status));
        else
            snprintf(err, errlen, "child exited with status %d%s", WEXITSTATUS(status),
                     got ? "" : " and no result");
        return -1;
    }
    return 0;
}

int afb_child_main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "arenafix-bench: run-one WORKLOAD THREADS ITERATIONS PIN fix|nofix SLOTS\n");
        return 2;
    }
    alarm(CHILD_TIMEOUT_S);
    struct afb_job job = { 0 };
    int w = afb_lookup(afb_workload_names, AFB_W_COUNT, argv[0]);
    int p = afb_lookup(afb_pinpath_names, AFB_P_COUNT, argv[3]);
    job.threads = atoi(argv[1]);
    job.iterations = atol(argv[2]);
    job.infix = strcmp(argv[4], "fix") == 0;
    cpu_set_t *slots = calloc((size_t)job.threads + 1, sizeof *slots);
    job.nslots = afb_slots_parse(argv[5], slots, job.threads + 1);
    if (w < 0 || p < 0 || job.threads < 1 || job.iterations < 1 || job.nslots < 1) {
        fprintf(stderr, "arenafix-bench: run-one: bad arguments\n");
        return 2;
    }
    job.workload = (enum afb_workload)w;
    job.pin = (enum afb_pinpath)p;
    job.slots = slots;
    struct afb_metrics m;
    char err[200], line[1024];
    if (afb_job_run(&job, &m, err, sizeof err) != 0) {
        fprintf(stderr, "arenafix-bench: %s %s: %s\n", argv[0], argv[3], err);
        return 1;
    }
    afb_result_format(&m, line, sizeof line);
    printf("%s\n", line);
    return 0;
}
