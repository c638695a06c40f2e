#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

const char *afx_testlib;
const char *afx_bin;
struct glibc afx_glibcs[AFX_MAX_GLIBCS];
int afx_nglibcs;
long afx_online;
int afx_skipped;

long afx_fixed_arenas(int threads)
{
    return afx_fixed_glibc_arenas(threads, afx_online);
}

int afx_nproving(void)
{
    int n = 0;
    for (int i = 0; i < afx_nglibcs; i++)
        n += afx_glibcs[i].affected;
    return n > 0 ? n : 1;
}

const struct glibc *afx_proving(int i)
{
    for (int g = 0; g < afx_nglibcs; g++)
        if (afx_glibcs[g].affected && i-- == 0)
            return &afx_glibcs[g];
    return &afx_glibcs[0];
}

/* Variables that would change what is tested are not inherited. */
static bool inherited(const char *entry)
{
    static const char *const drop[] = { "ARENAFIX_", "LD_PRELOAD=", "GLIBC_TUNABLES=",
                                        "MALLOC_ARENA_MAX=", "MALLOC_ARENA_TEST=",
                                        "AFX_CTOR_THREADS=" };
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        if (strncmp(entry, drop[i], strlen(drop[i])) == 0)
            return false;
    return true;
}

static void slurp(int fd, char *buf, size_t size)
{
    size_t len = 0;
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t n = read(fd, buf + len, size - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fd);
}

int afx_run_limit_s = AFX_RUN_LIMIT_S;

/* Wait for PID, killing it after afx_run_limit_s.  Returns false if it
 * had to be killed. */
static bool wait_bounded(pid_t pid, int *status)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
#ifdef SYS_pidfd_open
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    int pidfd = -1;
#endif
    bool killed = false;
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid || (done < 0 && errno != EINTR))
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = (afx_run_limit_s - (now.tv_sec - start.tv_sec)) * 1000L;
        if (!killed && left_ms <= 0) {
            kill(pid, SIGKILL);
            killed = true;
        }
        if (pidfd >= 0) {
            struct pollfd p = { .fd = pidfd, .events = POLLIN };
            poll(&p, 1, killed ? 1000 : (int)(left_ms < 1000 ? left_ms : 1000));
        } else {
            /* No pidfd (an older kernel, an emulator): poll gently. */
            usleep(2000);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return !killed;
}

void afx_run(struct child *c, const struct glibc *g, const char *preload,
             const char *const *env, const char *prog, const char *const *args)
{
    char path[4096], preload_env[8192];
    const char *argv[64], *envp[512];
    int argc = 0, envc = 0;

    if (prog[0] == '/')
        snprintf(path, sizeof path, "%s", prog);
    else
        snprintf(path, sizeof path, "%s/%s", afx_bin, prog);
    if (g->dir != NULL) {
        static char loader[4096];
        snprintf(loader, sizeof loader, "%s/" AFX_LOADER, g->dir);
        argv[argc++] = loader;
        argv[argc++] = "--library-path";
        argv[argc++] = g->dir;
    }
    argv[argc++] = path;
    for (; args != NULL && *args != NULL && argc < 63; args++)
        argv[argc++] = *args;
    argv[argc] = NULL;

    for (char **e = environ; *e != NULL && envc < 500; e++)
        if (inherited(*e))
            envp[envc++] = *e;
    if (preload != NULL) {
        snprintf(preload_env, sizeof preload_env, "LD_PRELOAD=%s", preload);
        envp[envc++] = preload_env;
    }
    for (; env != NULL && *env != NULL && envc < 510; env++)
        envp[envc++] = *env;
    envp[envc] = NULL;

    char outname[] = "/tmp/afx-out-XXXXXX", errname[] = "/tmp/afx-err-XXXXXX";
    /* Usable outside a test too (main's probing): failures are reported
     * as a status of -1, never with ck_assert. */
    c->status = -1;
    c->out[0] = '\0';
    snprintf(c->err, sizeof c->err, "cannot start %s: %s\n", argv[0], strerror(errno));
    int out = mkstemp(outname), err = mkstemp(errname);
    if (out < 0 || err < 0)
        return;
    unlink(outname);
    unlink(errname);

    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return;
    if (pid == 0) {
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        execve(argv[0], (char *const *)argv, (char *const *)envp);
        dprintf(STDERR_FILENO, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* Bounded: a hang is a failure (status 124), never a stalled suite.
     * Waited for through a pidfd where the kernel has them (5.3): polling
     * waitpid kept the CPUs busy, which the children (threads racing for
     * arenas) need more than the parent does. */
    int status = 0;
    bool killed = !wait_bounded(pid, &status);
    if (killed)
        c->status = 124;
    else
        c->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    slurp(out, c->out, sizeof c->out);
    slurp(err, c->err, sizeof c->err);
}

int afx_arenas(const struct child *c)
{
    const char *p = strstr(c->out, "arenas=");
    ck_assert_msg(c->status == 0 && p != NULL, "test program failed (status %d): %s%s",
                  c->status, c->out, c->err);
    return atoi(p + strlen("arenas="));
}

int afx_log_lines(const struct child *c)
{
    int n = 0;
    for (const char *p = c->err; *p != '\0'; p++)
        if ((p == c->err || p[-1] == '\n') && strncmp(p, "arenafix:", 9) == 0)
            n++;
    return n;
}

const char *afx_runtime_missing(const struct child *c)
{
    static char why[512];
    const char *version = strstr(c->err, ": version `GLIBC_");
    const char *by = version != NULL ? strstr(version, "(required by ") : NULL;
    /* A test program built here must run on every glibc under test:
     * only a library of the system's counts. */
    if (c->status != 0 && by != NULL && strncmp(by + 13, afx_bin, strlen(afx_bin)) != 0) {
        int vlen = (int)strcspn(version + 11, "'"), blen = (int)strcspn(by + 13, ")");
        snprintf(why, sizeof why, "%.*s needs %.*s, which this glibc predates",
                 blen, by + 13, vlen, version + 11);
        return why;
    }
    /* glibc loads the unwinder for cancellation and pthread_exit itself,
     * and only says that it could not. */
    if (c->status != 0 && strstr(c->err, "libgcc_s.so.1 must be installed for pthread_") != NULL) {
        snprintf(why, sizeof why, "this system's libgcc_s.so.1 (needed for pthread_cancel and "
                                  "pthread_exit) does not load under this glibc");
        return why;
    }
    return NULL;
}

void afx_skip(const char *what, const char *why)
{
    printf("SKIP: %s: %s\n", what, why);
    afx_skipped++;
}

const char *afx_strace(void)
{
    static const char *const where[] = { "/usr/bin/strace", "/bin/strace" };
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

long afx_env_count(const char *name, long fallback)
{
    const char *env = getenv(name);
    long n = env != NULL ? atol(env) : 0;
    return n > 0 ? n : fallback;
}
