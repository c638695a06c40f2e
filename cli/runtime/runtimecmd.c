/* arenafix-runtime: an OCI runtime in front of runc (or crun) that adds
 * arenafix's createRuntime hook to the bundle of each container it
 * creates, then runs the real runtime with the arguments as they came.
 * The hook judges the image, as it does from hooks.d or CDI.  Nothing
 * goes to standard error but the real runtime's own failure to start:
 * an engine reads a runtime's standard error as its failure. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundleedit.h"
#include "cli.h"
#include "readfile.h"
#include "runcargs.h"
#include "runtimeconf.h"

/* A config.json rarely passes tens of kilobytes. */
#define CONFIG_MAX (4L << 20)
#define CONF_MAX (64L << 10)
#define CONF_FILE AFX_SYSCONFDIR "/arenafix/runtime.conf"

#ifndef AFX_SYSCONFDIR
#define AFX_SYSCONFDIR "/etc"
#endif

static int log_fd = -1;
static const char *log_path = "";

/* The operator's log, appended to as the hook does: never through a
 * link, a regular file only, never waiting.  Opened for a first line:
 * a runtime's every state and kill leaves no trace. */
static void log_open(void)
{
    if (log_fd >= 0 || log_path[0] == '\0')
        return;
    int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0640);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    log_fd = fd;
}

static void say(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *id, const char *fmt, ...)
{
    char text[4096], line[4200];
    va_list ap;
    log_open();
    if (log_fd < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    for (char *p = text; *p != '\0'; p++)
        if (*p < 0x20 || *p > 0x7e)
            *p = '?';
    int n = snprintf(line, sizeof line, "arenafix-runtime: container %.64s: %s\n", id != NULL ? id : "?", text);
    if (n > 0 && write(log_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) < 0)
        return;
}

static void conf_read(struct afx_runtime_conf *c, char *why, size_t size)
{
    const char *path = getenv("ARENAFIX_RUNTIME_CONFIG");
    afx_runtime_conf_default(c);
    why[0] = '\0';
    if (path == NULL || path[0] == '\0')
        path = CONF_FILE;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    size_t len;
    char *text = NULL;
    if (fd < 0 && errno == ENOENT)
        return;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (text = afx_read_fd_max(fd, (size_t)CONF_MAX, &len)) == NULL)
        snprintf(why, size, "%.1024s cannot be read (a regular file of at most %ld bytes): defaults used", path,
                 CONF_MAX);
    else if (!afx_runtime_conf_parse(c, text, len, why, size - 32))
        snprintf(why + strlen(why), size - strlen(why), "; the lines after it ignored");
    free(text);
    if (fd >= 0)
        close(fd);
}

/* The user that wrote the bundle: root, or the caller (a rootless
 * engine's runtime). */
static bool owned(const struct stat *st)
{
    return (st->st_uid == 0 || st->st_uid == geteuid()) && (st->st_mode & 022) == 0;
}

/* text as the bundle's config.json, whole or not at all: a new file
 * beside it, synced, renamed over it. */
static bool replace(int dir, const struct stat *old, const char *text, size_t len, char *why, size_t size)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, ".config.json.arenafix-%ld", (long)getpid());
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, old->st_mode & 07777);
    bool ok = fd >= 0 && fchmod(fd, old->st_mode & 07777) == 0
              && (geteuid() != 0 || fchown(fd, old->st_uid, old->st_gid) == 0);
    for (size_t at = 0; ok && at < len;) {
        ssize_t n = write(fd, text + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        at += ok ? (size_t)n : 0;
    }
    ok = ok && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    ok = ok && renameat(dir, tmp, dir, "config.json") == 0;
    if (!ok) {
        snprintf(why, size, "left alone: config.json could not be rewritten: %s", strerror(errno));
        if (fd >= 0)
            unlinkat(dir, tmp, 0);
        return false;
    }
    fsync(dir);
    return true;
}

static void edit_bundle(const struct afx_runc_args *a, const struct afx_runtime_conf *c)
{
    char why[4096];
    const char *args[] = { "arenafix", "oci-hook", "--always", c->log[0] ? "--log" : NULL, c->log, NULL };
    const struct afx_hook_entry entry = { c->hook, args };
    struct stat st;
    int dir = open(a->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || fstat(dir, &st) != 0 || !owned(&st)) {
        say(a->id, "left alone: its bundle %.1024s is not a directory only root or this user may write", a->bundle);
        if (dir >= 0)
            close(dir);
        return;
    }
    int fd = openat(dir, "config.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    size_t len = 0, out_len = 0;
    char *text = NULL, *out = NULL;
    if (fd < 0) {
        say(a->id, "left alone: its bundle's config.json cannot be opened: %s",
            errno == ELOOP ? "a symbolic link" : strerror(errno));
    } else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !owned(&st) || st.st_size > CONFIG_MAX) {
        say(a->id, "left alone: its bundle's config.json is not a regular file of at most %ld bytes that only root "
            "or this user may write", CONFIG_MAX);
    } else if ((text = afx_read_fd_max(fd, (size_t)CONFIG_MAX, &len)) == NULL) {
        say(a->id, "left alone: its bundle's config.json cannot be read whole");
    } else if (afx_bundle_add_hook(text, len, &entry, c->annotated_only, &out, &out_len, why, sizeof why)
               == AFX_EDIT_ADDED) {
        if (replace(dir, &st, out, out_len, why, sizeof why))
            say(a->id, "bundle %.1024s: %s", a->bundle, why);
        else
            say(a->id, "%s", why);
    } else {
        say(a->id, "%s", why);
    }
    free(text);
    free(out);
    if (fd >= 0)
        close(fd);
    close(dir);
}

/* The same file as this program: a runtime named runc in PATH may be
 * this shim installed in its place. */
static bool is_self(const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The runtime to run: a path as it is, a name looked up in PATH. */
static bool find_runtime(const char *name, char *out, size_t size)
{
    if (strchr(name, '/') != NULL) {
        snprintf(out, size, "%s", name);
        return !is_self(out);
    }
    const char *path = getenv("PATH");
    if (path == NULL || path[0] == '\0')
        path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (const char *p = path; *p != '\0';) {
        size_t n = strcspn(p, ":");
        if (n > 0 && (size_t)snprintf(out, size, "%.*s/%s", (int)n, p, name) < size && access(out, X_OK) == 0
            && !is_self(out))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

int afx_runtime_main(int argc, char **argv)
{
    struct afx_runtime_conf c;
    char why[2048], runtime[PATH_MAX];
    const char *chosen = NULL;
    int first = 1;
    /* The shim's own option, first (docker's runtimeArgs): the runtime. */
    if (argc > 1 && strncmp(argv[1], "--runtime=", 10) == 0) {
        chosen = argv[1] + 10;
        first = 2;
    } else if (argc > 2 && strcmp(argv[1], "--runtime") == 0) {
        chosen = argv[2];
        first = 3;
    }
    conf_read(&c, why, sizeof why);
    log_path = c.log;
    if (why[0] != '\0')
        say(NULL, "configuration: %s", why);
    if (chosen == NULL)
        chosen = getenv("ARENAFIX_RUNTIME");
    if (chosen == NULL || chosen[0] == '\0')
        chosen = c.runtime;
    struct afx_runc_args a;
    afx_runc_args_read(argc, argv, first, &a);
    if (a.creates && a.problem != NULL)
        say(a.id, "left alone: %s (runc says what)", a.problem);
    else if (a.creates)
        edit_bundle(&a, &c);
    if (!find_runtime(chosen, runtime, sizeof runtime)) {
        say(a.id, "no runtime %s to run (a runtime other than this program)", chosen);
        fprintf(stderr, "arenafix-runtime: no runtime %s to run (ARENAFIX_RUNTIME, --runtime or runtime in %s)\n",
                chosen, CONF_FILE);
        return AFX_EXIT_NOT_FOUND;
    }
    char **args = calloc((size_t)(argc - first + 2), sizeof *args);
    if (args == NULL) {
        fprintf(stderr, "arenafix-runtime: out of memory\n");
        return AFX_EXIT_FAIL;
    }
    args[0] = runtime;
    memcpy(args + 1, argv + first, (size_t)(argc - first) * sizeof *args);
    if (log_fd >= 0)
        close(log_fd);
    execv(runtime, args);
    int err = errno;
    fprintf(stderr, "arenafix-runtime: cannot run %s: %s\n", runtime, strerror(err));
    return err == ENOENT ? AFX_EXIT_NOT_FOUND : AFX_EXIT_CANNOT_EXEC;
}
