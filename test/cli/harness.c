#include "harness.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void run_start(struct run *r, const char *const *env, const char *const *argv)
{
    r->out_file = tmpfile();
    r->err_file = tmpfile();
    ck_assert(r->out_file != NULL && r->err_file != NULL);
    /* Not left open in what other runs, started meanwhile, execute. */
    fcntl(fileno(r->out_file), F_SETFD, FD_CLOEXEC);
    fcntl(fileno(r->err_file), F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    r->pid = fork();
    ck_assert_int_ge(r->pid, 0);
    if (r->pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        dup2(null, STDIN_FILENO);
        dup2(fileno(r->out_file), STDOUT_FILENO);
        dup2(fileno(r->err_file), STDERR_FILENO);
        apply_env(env);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "test harness: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(99);
    }
}

int run_wait(struct run *r)
{
    while (waitpid(r->pid, &r->status, 0) < 0 && errno == EINTR)
        ;
    r->out = read_all(dup(fileno(r->out_file)));
    r->err = read_all(dup(fileno(r->err_file)));
    fclose(r->out_file);
    fclose(r->err_file);
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 128 + WTERMSIG(r->status);
}

int run(struct run *r, const char *const *env, const char *const *argv)
{
    run_start(r, env, argv);
    return run_wait(r);
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

/* The first of ARENAFIX_AFFECTED_GLIBC's directories (a colon-separated
 * list: the Makefile names every affected glibc at hand), empty entries
 * skipped, as the integration harness reads it. */
const char *affected_glibc(const char *test)
{
    static char first[4096];
    const char *g = getenv("ARENAFIX_AFFECTED_GLIBC");
    g = g != NULL ? g + strspn(g, ":") : "";
    if (*g == '\0') {
        printf("SKIP %s: ARENAFIX_AFFECTED_GLIBC is empty; set it to a directory holding an "
               "affected glibc's ld.so and libc.so.6 to run it\n", test);
        return NULL;
    }
    snprintf(first, sizeof first, "%.*s", (int)strcspn(g, ":"), g);
    return first;
}

bool skip_emulated(const char *test, const char *why)
{
    if (!afx_emulated())
        return false;
    printf("SKIP %s: under an emulator: %s\n", test, why);
    return true;
}

const char *testlib(void)
{
    const char *l = getenv("ARENAFIX_TESTLIB");
    return l != NULL && *l != '\0' ? l : "shim/libarenafix.so";
}

const char *affected_loader(const char *g)
{
    static char loader[PATH_MAX];
    snprintf(loader, sizeof loader, "%s/%s", g, AFX_LOADER);
    return loader;
}

const char *python3(void)
{
    return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

const char *lines_with(const char *text, const char *needle)
{
    static char shown[1600];
    size_t used = 0;
    shown[0] = '\0';
    for (const char *line = text; line != NULL && *line != '\0' && used < sizeof shown - 1;) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        const char *hit = strstr(line, needle);
        if (hit != NULL && hit < line + len)
            used += (size_t)snprintf(shown + used, sizeof shown - used, "%.*s\n", (int)len, line);
        line = end != NULL ? end + 1 : NULL;
    }
    return shown[0] != '\0' ? shown : "(none)";
}

bool terminal_safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
            return false;
    return true;
}

/* nobody: the child takes nobody's uid, gid and no groups before the
 * exec, as setpriv --reuid=65534 --regid=65534 --clear-groups would in
 * a process of its own. */
static void live_start_with(struct live *l, const char *preload, const char *const *env, bool nobody,
                            const char *const *argv)
{
    /* Close-on-exec: another live process started later must not hold
     * this one's stdin open, or live_stop would wait for it to end. */
    int in[2], out[2];
    ck_assert(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
    l->pid = fork();
    ck_assert_int_ge(l->pid, 0);
    if (l->pid == 0) {
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        close(in[1]);
        close(out[0]);
        if (preload != NULL)
            setenv("LD_PRELOAD", preload, 1);
        else
            unsetenv("LD_PRELOAD");
        for (; env != NULL && *env != NULL; env++)
            putenv((char *)*env);
        /* Why it did not start, on the line live_start reads. */
        if (nobody && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0
                       || setresuid(65534, 65534, 65534) != 0)) {
            dprintf(STDOUT_FILENO, "cannot become nobody: %s\n", strerror(errno));
            _exit(98);
        }
        execvp(argv[0], (char *const *)argv);
        dprintf(STDOUT_FILENO, "exec: %s\n", strerror(errno));
        _exit(99);
    }
    close(in[0]);
    close(out[1]);
    l->stdin_fd = in[1];
    FILE *f = fdopen(out[0], "r");
    char line[64] = "";
    l->arenas = -1;
    ck_assert_msg(fgets(line, sizeof line, f) != NULL
                      && (sscanf(line, "arenas=%d", &l->arenas) == 1 || strcmp(line, "ready\n") == 0),
                  "%s did not start: %s", argv[0], line);
    fclose(f);
}

void live_start_env(struct live *l, const char *preload, const char *const *env, const char *const *argv)
{
    live_start_with(l, preload, env, false, argv);
}

void live_start(struct live *l, const char *preload, const char *const *argv)
{
    live_start_with(l, preload, NULL, false, argv);
}

void live_start_nobody(struct live *l, const char *const *argv)
{
    live_start_with(l, NULL, NULL, true, argv);
}

void live_stop(struct live *l)
{
    close(l->stdin_fd);
    waitpid(l->pid, NULL, 0);
}

bool run_blinded_root(struct run *r, struct live *l, const char *args, const char *test)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to mount a /proc and drop a capability of root's\n", test);
        return false;
    }
    char script[512];
    /* gid=: root's group would otherwise see through hidepid. */
    snprintf(script, sizeof script,
             "mount -t proc -o hidepid=1,gid=65533 proc /proc || exit 99; "
             "exec setpriv --bounding-set=-sys_ptrace \"$0\" %s", args);
    live_start_nobody(l, ARGV(test_prog("arenawait"), "2"));
    run(r, NULL, ARGV("unshare", "-m", "--propagation", "private", "sh", "-c", script, cli()));
    live_stop(l);
    if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == 99) {
        printf("SKIP %s: cannot mount a /proc here: %s\n", test, r->err);
        run_free(r);
        return false;
    }
    return true;
}

/* ---- a container's process: its own mount namespace and root ---------- */

long child_in_other_mounts(long pid)
{
    char path[64], text[256], ns[64], ours[64];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", pid, pid);
    FILE *f = fopen(path, "r");
    ssize_t n = readlink("/proc/self/ns/mnt", ours, sizeof ours - 1);
    ours[n > 0 ? n : 0] = '\0';
    long found = -1;
    if (f != NULL && fgets(text, sizeof text, f) != NULL)
        for (char *tok = strtok(text, " \n"); tok != NULL && found < 0; tok = strtok(NULL, " \n")) {
            snprintf(path, sizeof path, "/proc/%s/ns/mnt", tok);
            n = readlink(path, ns, sizeof ns - 1);
            ns[n > 0 ? n : 0] = '\0';
            if (n > 0 && strcmp(ns, ours) != 0)
                found = atol(tok);
        }
    if (f != NULL)
        fclose(f);
    return found;
}

/* The container's tree in a new directory, then arenawait there as its
 * root: pivot_root, or chroot alone. */
static long start_in_tree(struct live *l, const char *g, char *dir, size_t size, bool pivot)
{
    char cmd[6 * PATH_MAX];
    snprintf(dir, size, "%s/ownroot-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(dir) != NULL && chmod(dir, 0755) == 0);
    snprintf(cmd, sizeof cmd,
             "set -e; r=%s; mkdir -p $r/lib $r/lib64 $r/old \"$r/$(dirname %s)\"; "
             "cp %s/libc.so.6 $r/lib/; cp %s/libc.so.6 $r/lib64/; cp %s $r%s; cp %s $r/arenawait",
             dir, AFX_SYSTEM_LOADER, g, g, affected_loader(g), AFX_SYSTEM_LOADER, test_prog("arenawait"));
    struct run r;
    run(&r, NULL, ARGV("sh", "-c", cmd));
    ck_assert_status(&r, 0);
    run_free(&r);
    if (pivot)
        snprintf(cmd, sizeof cmd,
                 "mount --make-rprivate / && mount --bind %s %s && cd %s && pivot_root . old && "
                 "exec /arenawait 30 pinned", dir, dir, dir);
    else
        snprintf(cmd, sizeof cmd, "mount --make-rprivate / && exec chroot %s /arenawait 30 pinned", dir);
    live_start(l, NULL, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd));
    return child_in_other_mounts(l->pid);
}

long live_start_contained(struct live *l, const char *g, char *dir, size_t size)
{
    return start_in_tree(l, g, dir, size, true);
}

long live_start_chroot_contained(struct live *l, const char *g, char *dir, size_t size)
{
    return start_in_tree(l, g, dir, size, false);
}

long live_start_chrooting(struct live *l, const char *g, const char *preload, char *dir, size_t size)
{
    char cmd[4 * PATH_MAX], jail[PATH_MAX + 8];
    snprintf(dir, size, "%s/chroot-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(dir) != NULL && chmod(dir, 0755) == 0);
    snprintf(cmd, sizeof cmd, "mount --make-rprivate / && mount -t tmpfs afxjail \"$1\" && shift && exec \"$@\"");
    snprintf(jail, sizeof jail, "chroot=%s", dir);
    live_start(l, preload, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd, "sh", dir, affected_loader(g),
                                "--library-path", g, test_prog("arenawait"), "30", "pinned", jail));
    return child_in_other_mounts(l->pid);
}
