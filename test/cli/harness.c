#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *read_all(int fd)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        if (len + 1 >= cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    close(fd);
    return buf;
}

static void apply_env(const char *const *env)
{
    for (; env != NULL && *env != NULL; env++) {
        const char *eq = strchr(*env, '=');
        if (eq == NULL) {
            unsetenv(*env);
        } else {
            char *name = strndup(*env, (size_t)(eq - *env));
            setenv(name, eq + 1, 1);
            free(name);
        }
    }
}

int run(struct run *r, const char *const *env, const char *const *argv)
{
    FILE *out = tmpfile(), *err = tmpfile();
    ck_assert(out != NULL && err != NULL);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        dup2(null, STDIN_FILENO);
        dup2(fileno(out), STDOUT_FILENO);
        dup2(fileno(err), STDERR_FILENO);
        apply_env(env);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "test harness: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(99);
    }
    while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR)
        ;
    r->out = read_all(dup(fileno(out)));
    r->err = read_all(dup(fileno(err)));
    fclose(out);
    fclose(err);
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
}

void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

const char *cli(void)
{
    const char *c = getenv("AFX_CLI");
    return c != NULL && *c != '\0' ? c : "build/cli/arenafix";
}

const char *test_prog(const char *name)
{
    static char path[8][4096];
    static int next;
    const char *dir = getenv("AFX_TEST_BIN");
    char *p = path[next++ % 8];
    snprintf(p, sizeof path[0], "%s/%s", dir != NULL && *dir != '\0' ? dir : "build/test", name);
    return p;
}

const char *affected_glibc(const char *test)
{
    const char *g = getenv("ARENAFIX_AFFECTED_GLIBC");
    if (g == NULL || *g == '\0') {
        printf("SKIP %s: ARENAFIX_AFFECTED_GLIBC is empty; set it to a directory holding an "
               "affected glibc's ld.so and libc.so.6 to run it\n", test);
        return NULL;
    }
    return g;
}

const char *testlib(void)
{
    const char *l = getenv("ARENAFIX_TESTLIB");
    return l != NULL && *l != '\0' ? l : "shim/libarenafix.so";
}
