#include "systemctl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NAMES 16
#define MAX_OUTPUT (1 << 20)
#define SILENCE_MS 30000

bool afx_systemd_running(const struct afx_root *r)
{
    struct stat st;
    return r->host && afx_root_stat(r, "run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

static void run_systemctl(int out, const char *unit, const char *const *names)
{
    const char *argv[4 + 2 * MAX_NAMES + 3] = { "systemctl", "show", "--no-pager" };
    size_t n = 3;
    for (size_t i = 0; names[i] != NULL && i < MAX_NAMES; i++) {
        argv[n++] = "-p";
        argv[n++] = names[i];
    }
    argv[n++] = "--";
    argv[n++] = unit;
    argv[n] = NULL;
    int null = open("/dev/null", O_RDWR);
    dup2(null, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    setenv("SYSTEMD_PAGER", "cat", 1);
    setenv("SYSTEMD_COLORS", "0", 1);
    execvp("systemctl", (char *const *)argv);
    _exit(127);
}

char *afx_systemctl_show(const char *unit, const char *const *names, char *why, size_t size)
{
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, size, "%s", strerror(errno));
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0)
        run_systemctl(out[1], unit, names);
    int fork_err = errno;
    close(out[1]);
    char *text = malloc(MAX_OUTPUT);
    size_t len = 0;
    bool stuck = false;     /* silent too long, or more than MAX_OUTPUT bytes */
    while (pid > 0 && text != NULL && !stuck) {
        struct pollfd p = { .fd = out[0], .events = POLLIN };
        int ready = poll(&p, 1, SILENCE_MS);
        stuck = ready == 0;
        ssize_t n = ready > 0 ? read(out[0], text + len, MAX_OUTPUT - 1 - len) : -1;
        if (n <= 0)
            break;
        len += (size_t)n;
        stuck = len == MAX_OUTPUT - 1;
    }
    close(out[0]);
    int status = 0;
    if (pid > 0 && (stuck || text == NULL))
        kill(pid, SIGKILL);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    bool ok = pid > 0 && text != NULL && !stuck && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) {
        snprintf(why, size, "%s", pid < 0 ? strerror(fork_err) : text == NULL ? "out of memory"
                                  : stuck ? "did not answer in time" : "failed");
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

const char *afx_show_value(const char *text, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    out[0] = '\0';
    for (const char *line = text; line != NULL; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, name, n) == 0 && line[n] == '=') {
            const char *v = line + n + 1;
            snprintf(out, size, "%.*s", (int)strcspn(v, "\n"), v);
            break;
        }
    return out;
}
