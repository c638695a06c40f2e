#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

/* Arenas per CPU in glibc's limit and the count it allows before it
 * looks at CPUs at all (NARENAS_FROM_NCORES(1), arena_test). */
#define ARENAS_PER_CPU (sizeof(long) == 4 ? 2 : 8)

int afx_probe_threads(void)
{
    /* Past arena_test + 1 (where the limit is latched) with a margin,
     * few enough to cost a few milliseconds. */
    return ARENAS_PER_CPU + 4;
}

/* The child sees glibc's defaults: none of the user's arena settings,
 * preloads or our own variables. */
static bool inherited(const char *var)
{
    static const char *const dropped[] = { "LD_PRELOAD=", "GLIBC_TUNABLES=", "MALLOC_", "ARENAFIX_" };
    for (size_t i = 0; i < sizeof dropped / sizeof dropped[0]; i++)
        if (strncmp(var, dropped[i], strlen(dropped[i])) == 0)
            return false;
    return true;
}

static char **child_env(const char *preload, char *preload_var, size_t size)
{
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (env == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (inherited(environ[i]))
            env[k++] = environ[i];
    if (preload != NULL) {
        snprintf(preload_var, size, "LD_PRELOAD=%s", preload);
        env[k++] = preload_var;
    }
    return env;
}

/* Read the child's output (stdout and stderr) into buf. */
static void drain(int fd, char *buf, size_t size)
{
    size_t used = 0;
    for (;;) {
        ssize_t r = read(fd, buf + used, size - used - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        used += (size_t)r;
        if (used == size - 1)
            used = 0;   /* far too much: keep the tail */
    }
    buf[used] = '\0';
}

bool afx_probe_child_run(const struct afx_glibc *g, bool pinned, int threads, const char *preload,
                         struct afx_probe_run *out, char *err, size_t errsize)
{
    char exe[4096], count[16], preload_var[4200], output[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(err, errsize, "cannot read /proc/self/exe: %s; is /proc mounted?", strerror(errno));
        return false;
    }
    exe[n] = '\0';
    snprintf(count, sizeof count, "%d", threads);
    const char *mode = pinned ? "pinned" : "free";
    const char *argv_native[] = { exe, AFX_PROBE_CHILD, mode, count, NULL };
    const char *argv_loader[] = { g->loader, "--library-path", g->libdir, exe, AFX_PROBE_CHILD,
                                  mode, count, NULL };
    const char **argv = g->loader != NULL ? argv_loader : argv_native;

    char **env = child_env(preload, preload_var, sizeof preload_var);
    int fds[2];
    if (env == NULL || pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errsize, "cannot start the probe: %s", strerror(errno));
        free(env);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        execve(argv[0], (char *const *)argv, env);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(AFX_EXIT_CANNOT_EXEC);
    }
    close(fds[1]);
    free(env);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errsize, "cannot fork the probe: %s", strerror(errno));
        return false;
    }
    drain(fds[0], output, sizeof output);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    const char *line = strstr(output, "arenas=");
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && line != NULL
        && sscanf(line, "arenas=%d glibc=%31s sees=%d", &out->arenas, out->glibc, &out->sees) == 3)
        return true;
    output[strcspn(output, "\n")] = '\0';
    snprintf(err, errsize, "the %s probe child failed (%s %d): %s", mode,
             WIFEXITED(status) ? "status" : "signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
             output[0] ? output : "no output");
    return false;
}

void afx_probe_judge(struct afx_probe *p)
{
    long fair = p->threads + 1L;            /* one each, plus main's */
    long limit = ARENAS_PER_CPU * p->online;
    p->expected = fair < limit ? fair : limit;

    if (p->online < 2) {
        p->verdict = AFX_CANNOT_TELL;
        snprintf(p->reason, sizeof p->reason,
                 "%ld CPU online: pinning cannot lower the arena limit here", p->online);
    } else if (p->free_run.arenas < p->expected) {
        p->verdict = AFX_CANNOT_TELL;
        snprintf(p->reason, sizeof p->reason,
                 "even unpinned threads got only %d arenas of %ld: something else limits them",
                 p->free_run.arenas, p->expected);
    } else if (p->pinned_run.arenas < p->expected) {
        p->verdict = AFX_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads pinned to %d CPU got %d arenas instead of %ld: the limit was "
                 "taken from their affinity", p->pinned_run.sees, p->pinned_run.arenas, p->expected);
    } else {
        p->verdict = AFX_NOT_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads pinned to %d CPU still got %d arenas: the limit follows the online CPUs",
                 p->pinned_run.sees, p->pinned_run.arenas);
    }
}

bool afx_probe_glibc(const struct afx_glibc *g, long online, const char *shim, struct afx_probe *p,
                     char *err, size_t errsize)
{
    memset(p, 0, sizeof *p);
    p->online = online;
    p->threads = afx_probe_threads();
    if (!afx_probe_child_run(g, false, p->threads, NULL, &p->free_run, err, errsize)
        || !afx_probe_child_run(g, true, p->threads, NULL, &p->pinned_run, err, errsize))
        return false;
    if (shim != NULL) {
        if (!afx_probe_child_run(g, true, p->threads, shim, &p->shim_run, err, errsize))
            return false;
        p->shim_tried = true;
    }
    afx_probe_judge(p);
    return true;
}
