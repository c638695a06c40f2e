#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "selfexe.h"

extern char **environ;

int afx_probe_threads(void)
{
    /* Past arena_test + 1 (where the limit is latched) with a margin,
     * few enough to cost a few milliseconds. */
    return (sizeof(long) == 4 ? 2 : 8) + 4;
}

/* The child sees glibc's defaults: none of the user's arena settings,
 * preloads or our own variables.  A run meant to be without the library
 * also says ARENAFIX_MODE=off: on a host that preloads it through
 * /etc/ld.so.preload, which no environment can undo, it is loaded all
 * the same, and would make an affected glibc look fixed. */
static char mode_off[] = "ARENAFIX_MODE=off";

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
    char **env = calloc(n + 3, sizeof *env);
    if (env == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (inherited(environ[i]))
            env[k++] = environ[i];
    if (preload != NULL) {
        snprintf(preload_var, size, "LD_PRELOAD=%s", preload);
        env[k++] = preload_var;
    } else {
        env[k++] = mode_off;
    }
    return env;
}

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000;
}

/* Read the child's output (stdout and stderr) into buf, keeping the
 * tail of too much, until it closes or the deadline passes (false). */
static bool drain(int fd, char *buf, size_t size, long deadline)
{
    size_t used = 0;
    bool closed = false;
    while (!closed) {
        long left = deadline - now_ms();
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0)
            break;
        int ready = poll(&p, 1, (int)left);
        if (ready < 0 && errno != EINTR)
            break;
        if (ready <= 0)
            continue;
        ssize_t r = read(fd, buf + used, size - used - 1);
        if (r < 0 && errno == EINTR)
            continue;
        closed = r <= 0;
        used += r > 0 ? (size_t)r : 0;
        if (used == size - 1)
            used = 0;   /* far too much: keep the tail */
    }
    buf[used] = '\0';
    return closed;
}

/* Wait for the child until the deadline (false after it).  Past it,
 * ask it to stop (a jailed child kills the one it waits for), then
 * kill it. */
static bool reap(pid_t pid, int *status, long deadline)
{
    int sent = 0;   /* SIGTERM, then SIGKILL */
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return sent == 0;
        if (done < 0 && errno != EINTR)
            return false;
        if (now_ms() >= deadline && sent < 2) {
            kill(pid, sent++ == 0 ? SIGTERM : SIGKILL);
            deadline = now_ms() + 1000;
        }
        nanosleep(&(struct timespec){ .tv_nsec = 5 * 1000 * 1000 }, NULL);
    }
}

/* In the child: run the probe child under glibc g.  Never returns. */
static _Noreturn void exec_probe(const struct afx_glibc *g, int self, const char *const *args, char **env)
{
    char program[32], libc[32];
    const char *argv[16] = { 0 };
    int n = 0;
    snprintf(program, sizeof program, "/proc/self/fd/%d", self);
    if (g->jail != NULL) {
        snprintf(libc, sizeof libc, "/proc/self/fd/%d", g->libc_fd);
        argv[n++] = "ld.so";
        argv[n++] = "--preload";
        argv[n++] = libc;
        argv[n++] = program;
    } else if (g->loader != NULL) {
        argv[n++] = g->loader;
        argv[n++] = "--library-path";
        argv[n++] = g->libdir;
        argv[n++] = program;
    } else {
        argv[n++] = "arenafix";
    }
    for (int i = 0; args[i] != NULL; i++)
        argv[n++] = args[i];
    if (g->jail != NULL) {
        /* Nothing of ours or the caller's, but the library's off switch
         * (see mode_off): the jailed probe always runs without it. */
        char *const jail_env[] = { mode_off, NULL };
        /* The filter lets this one exec through, by this address. */
        static const char here[] = "";
        const int keep[] = { self, g->libc_fd };
        if (!afx_jail_enter(g->jail, keep, 2, g->loader_fd, here)) {
            fprintf(stderr, "cannot take its namespaces and limits: %s\n", strerror(errno));
            _exit(AFX_EXIT_CANNOT_EXEC);
        }
        execveat(g->loader_fd, here, (char *const *)argv, jail_env, AT_EMPTY_PATH);
    } else if (g->loader != NULL) {
        fcntl(self, F_SETFD, 0);
        execve(g->loader, (char *const *)argv, env);
    } else {
        execveat(self, "", (char *const *)argv, env, AT_EMPTY_PATH);
        /* No execveat (Linux before 3.19, a seccomp filter, qemu-user
         * 7.2): the same file by its /proc name. */
        if (errno == ENOSYS) {
            fcntl(self, F_SETFD, 0);
            execve(program, (char *const *)argv, env);
        }
    }
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(AFX_EXIT_CANNOT_EXEC);
}

bool afx_probe_child_run(const struct afx_glibc *g, bool pinned, int threads, const char *preload,
                         struct afx_probe_run *out, char *err, size_t errsize)
{
    char count[16], preload_var[4200], output[2048];
    const char *mode = pinned ? "pinned" : "free";
    snprintf(count, sizeof count, "%d", threads);
    const char *args[] = { AFX_PROBE_CHILD, mode, count, NULL };

    int self = afx_self_open();
    if (self < 0) {
        snprintf(err, errsize, "cannot open this program's own file: %s; is /proc mounted?", strerror(errno));
        return false;
    }
    char **env = child_env(preload, preload_var, sizeof preload_var);
    int fds[2], null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (env == NULL || null < 0 || pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errsize, "cannot start the probe: %s", strerror(errno));
        free(env);
        close(self);
        if (null >= 0)
            close(null);
        return false;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(null, STDIN_FILENO);
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        exec_probe(g, self, args, env);
    }
    close(fds[1]);
    close(null);
    close(self);
    free(env);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errsize, "cannot fork the probe: %s", strerror(errno));
        return false;
    }
    long deadline = now_ms() + AFX_PROBE_DEADLINE * 1000L;
    int status = 0;
    bool finished = drain(fds[0], output, sizeof output, deadline);
    close(fds[0]);
    finished = reap(pid, &status, finished ? deadline : 0) && finished;
    const char *line = strstr(output, "arenas=");
    if (finished && WIFEXITED(status) && WEXITSTATUS(status) == 0 && line != NULL
        && sscanf(line, "arenas=%d glibc=%31s sees=%d", &out->arenas, out->glibc, &out->sees) == 3)
        return true;
    output[strcspn(output, "\n")] = '\0';
    if (!finished)
        snprintf(err, errsize, "the %s probe child did not finish within %d s", mode, AFX_PROBE_DEADLINE);
    else
        snprintf(err, errsize, "the %s probe child failed (%s %d): %s", mode,
                 WIFEXITED(status) ? "status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), output[0] ? output : "no output");
    return false;
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
