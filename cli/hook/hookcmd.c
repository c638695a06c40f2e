/* arenafix oci-hook: an OCI createRuntime (or prestart) hook that gives
 * a container whose image holds an affected glibc the library, without
 * rebuilding the image: bound read-only at the image's own libc
 * directory, listed in an /etc/ld.so.preload that keeps the image's own
 * entries.  Anything else is left alone, and says why on stderr (the
 * engine's log): the hook always exits 0 once it has read its state, so
 * that the container starts as it would without it. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "readfile.h"
#include "hookmount.h"
#include "hookpolicy.h"
#include "imagelibc.h"
#include "target/hostglibc.h"
#include "library.h"
#include "proc/ocijson.h"
#include "proc/userns.h"

/* The state is a few kilobytes; a config.json rarely more than tens. */
#define STATE_MAX (1L << 20)
#define CONFIG_MAX (4L << 20)
/* An ld.so.preload lists a few libraries. */
#define PRELOAD_MAX (64L << 10)
#define ANNOTATION "io.arenafix.enable"
/* Beside config.json, until it is mounted. */
#define PRELOAD_FILE ".arenafix-ld.so.preload"

static const char hook_usage[] =
    "Usage: arenafix oci-hook [--always | --cdi] [--log FILE]\n"
    "The OCI hook (createRuntime or prestart) that gives a container the library.\n"
    "It reads the container's state on standard input; where the container has\n"
    "the annotation " ANNOTATION "=true and its image an affected glibc, it\n"
    "mounts the library read-only into the image's libc directory and lists it\n"
    "first in the container's /etc/ld.so.preload (the image's entries kept). A\n"
    "musl or static image, another architecture, an image that runs programs of\n"
    "a second ABI too (an i386 loader beside an x86-64 glibc), a glibc older than\n"
    "2.34 or newer than 2.38, or a byte-for-byte copy of the host's fixed one is\n"
    "left alone (a fixed 2.34 to 2.38 of another build cannot be told from its\n"
    "file: it gets the library, which gives the fixed count either way); the\n"
    "reason goes to standard error, and to FILE with --log.\n"
    "\n"
    "Options:\n"
    "      --always    every container the engine runs the hook for is asked for:\n"
    "                  its hooks.d entry's \"when\" chose it (\"always\": true, or\n"
    "                  CRI-O matching a pod's annotations, which the container's\n"
    "                  own configuration lacks); the same limits hold\n"
    "      --cdi       run from the CDI spec (arenafix cdi): the container asked by\n"
    "                  its device, no annotation needed; the same limits hold\n"
    "      --log FILE  append what it says to FILE (runc shows a hook's standard\n"
    "                  error only when it fails)\n"
    "  -h, --help      print this help and exit\n"
    "\n"
    "Examples:\n"
    "  podman run --annotation " ANNOTATION "=true IMAGE   the hook installed\n"
    "  podman run --device arenafix.dev/fix=libarenafix IMAGE  the CDI spec written\n"
    "\n"
    "Exit status: 0 (the container starts, given the library or not); 2 usage error.\n"
    "See arenafix-oci-hook(1).\n";

/* The one line the engine logs. */
static void say(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *id, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "arenafix oci-hook: container %.12s: %s\n", id[0] ? id : "?", text);
}

static bool string_at(const char *json, size_t len, const char *const *keys, size_t nkeys, char *out, size_t size)
{
    const char *v;
    size_t vlen;
    return afx_json_member(json, len, keys, nkeys, &v, &vlen) && afx_json_string(v, vlen, out, size);
}

struct state {
    char id[128];
    long pid;
    char bundle[PATH_MAX];
    bool enabled;
};

static bool read_state(struct state *s, char *why, size_t size)
{
    size_t len;
    char *json = afx_read_fd_max(STDIN_FILENO, (size_t)STATE_MAX, &len);
    const char *v;
    size_t vlen;
    char flag[16];
    bool ok = json != NULL;
    if (ok) {
        string_at(json, len, (const char *const[]){ "id" }, 1, s->id, sizeof s->id);
        ok = afx_json_member(json, len, (const char *const[]){ "pid" }, 1, &v, &vlen)
             && afx_json_positive(v, vlen, &s->pid)
             && string_at(json, len, (const char *const[]){ "bundle" }, 1, s->bundle, sizeof s->bundle)
             && s->bundle[0] == '/';
        s->enabled = string_at(json, len, (const char *const[]){ "annotations", ANNOTATION }, 2, flag, sizeof flag)
                     && strcmp(flag, "true") == 0;
    }
    if (!ok)
        snprintf(why, size, "its state on standard input has no pid and absolute bundle (not run as an OCI hook?)");
    free(json);
    return ok;
}

/* The bundle, root's alone, opened O_PATH; its config.json's root.path
 * (made absolute) and whether it carries the annotation. */
static int read_bundle(const struct state *s, char *rootfs, size_t rsize, bool *enabled, char *why, size_t size)
{
    struct stat st;
    int dir = open(s->bundle, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0 || fstat(dir, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        snprintf(why, size, "its bundle %.200s is not a directory only root may write", s->bundle);
        if (dir >= 0)
            close(dir);
        return -1;
    }
    int fd = openat(dir, "config.json", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    size_t len = 0;
    char *json = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? afx_read_fd_max(fd, (size_t)CONFIG_MAX, &len) : NULL;
    if (fd >= 0)
        close(fd);
    char path[PATH_MAX], flag[16];
    bool ok = json != NULL && string_at(json, len, (const char *const[]){ "root", "path" }, 2, path, sizeof path);
    if (json != NULL && string_at(json, len, (const char *const[]){ "annotations", ANNOTATION }, 2, flag, sizeof flag)
        && strcmp(flag, "true") == 0)
        *enabled = true;
    free(json);
    if (ok)
        ok = (size_t)snprintf(rootfs, rsize, "%s%s%s", path[0] == '/' ? "" : s->bundle, path[0] == '/' ? "" : "/", path) < rsize;
    if (!ok) {
        snprintf(why, size, "its bundle's config.json names no root.path");
        close(dir);
        return -1;
    }
    return dir;
}

/* The host's libc.so.6, the one this command runs on; -1 if unknown. */
static int host_libc(void)
{
    Dl_info info;
    if (dladdr((void *)gnu_get_libc_version, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/')
        return -1;
    return open(info.dli_fname, O_RDONLY | O_CLOEXEC);
}

/* The image's /etc/ld.so.preload: *old its contents (NULL if it has
 * none), *target the file to mount over.  False if it is anything but
 * a regular file or absent, or larger than PRELOAD_MAX. */
static bool image_preload(int root, char **old, size_t *len, int *target, char *why, size_t size)
{
    *old = NULL;
    *target = -1;
    int etc = afx_image_path(root, "/etc", O_DIRECTORY);
    if (etc < 0) {
        snprintf(why, size, "no /etc directory in the image: %s", strerror(errno));
        return false;
    }
    struct stat st = { 0 };
    int at = openat(etc, "ld.so.preload", O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (at >= 0 && fstat(at, &st) == 0 && S_ISREG(st.st_mode)) {
        int fd = afx_image_reopen(at);
        *old = fd >= 0 && st.st_size <= PRELOAD_MAX ? afx_read_fd_max(fd, (size_t)PRELOAD_MAX, len) : NULL;
        if (fd >= 0)
            close(fd);
        close(etc);
        if (*old == NULL) {
            snprintf(why, size, "its /etc/ld.so.preload cannot be read, or is larger than %ld bytes", PRELOAD_MAX);
            close(at);
            return false;
        }
        /* The very file read is the one mounted over. */
        *target = at;
        return true;
    } else if (at >= 0) {
        snprintf(why, size, "its /etc/ld.so.preload is %s, not a regular file: the image's, not merged",
                 S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
        close(at);
        close(etc);
        return false;
    } else if (errno != ENOENT) {
        snprintf(why, size, "its /etc/ld.so.preload cannot be opened: %s", strerror(errno));
        close(etc);
        return false;
    }
    *target = afx_hook_target(etc, "ld.so.preload", why, size);
    close(etc);
    if (*target < 0) {
        free(*old);
        *old = NULL;
        return false;
    }
    return true;
}

/* text written to a new file in the bundle (root's), cloned as a
 * detached read-only mount.  Its name is removed once the mount is
 * attached (the kernel attaches no unlinked file). */
static int preload_tree(int bundle, const char *text, size_t len, char *why, size_t size)
{
    unlinkat(bundle, PRELOAD_FILE, 0);
    int fd = openat(bundle, PRELOAD_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(why, size, "cannot write %s in its bundle: %s", PRELOAD_FILE, strerror(errno));
        return -1;
    }
    bool ok = fchmod(fd, 0644) == 0;
    for (size_t at = 0; ok && at < len;) {
        ssize_t n = write(fd, text + at, len - at);
        if (n < 0 && errno == EINTR)
            continue;
        ok = n > 0;
        at += ok ? (size_t)n : 0;
    }
    int tree = ok ? afx_hook_clone(fd, why, size) : -1;
    if (!ok)
        snprintf(why, size, "cannot write %s in its bundle: %s", PRELOAD_FILE, strerror(errno));
    close(fd);
    if (tree < 0)
        unlinkat(bundle, PRELOAD_FILE, 0);
    return tree;
}

/* Mount the library and the merged ld.so.preload into the container. */
static bool inject(const struct state *s, int root, int bundle, int lib, const char *libc_dir, char *done,
                   size_t dsize, char *why, size_t size)
{
    char entry[128], *old, *merged;
    size_t old_len = 0, len;
    bool listed, ok = false;
    int preload_target, lib_target = -1, lib_tree = -1, preload_tree_fd = -1, dir = -1, afx_dir = -1;
    snprintf(entry, sizeof entry, "%s/arenafix/libarenafix.so", libc_dir);
    if (!image_preload(root, &old, &old_len, &preload_target, why, size))
        return false;
    merged = afx_hook_preload_merge(old, old_len, entry, &len, &listed);
    if (listed) {
        snprintf(why, size, "its /etc/ld.so.preload lists %s already", entry);
        goto out;
    }
    if (merged == NULL) {
        snprintf(why, size, "out of memory");
        goto out;
    }
    dir = afx_image_path(root, libc_dir, O_DIRECTORY);
    if (dir < 0) {
        snprintf(why, size, "cannot open %s: %s", libc_dir, strerror(errno));
        goto out;
    }
    if ((afx_dir = afx_hook_target_dir(dir, "arenafix", why, size)) < 0
        || (lib_target = afx_hook_target(afx_dir, "libarenafix.so", why, size)) < 0
        || (lib_tree = afx_hook_clone(lib, why, size)) < 0
        || (preload_tree_fd = preload_tree(bundle, merged, len, why, size)) < 0
        || !afx_hook_enter(s->pid, why, size))
        goto out;
    /* The library first: an ld.so.preload naming a file not there
     * would make the loader complain in every program. */
    if (!afx_hook_attach(lib_tree, lib_target, why, size)) {
        snprintf(why + strlen(why), size - strlen(why), " (the library)");
        goto out;
    }
    if (!afx_hook_attach(preload_tree_fd, preload_target, why, size)) {
        snprintf(why + strlen(why), size - strlen(why), " (ld.so.preload)");
        goto out;
    }
    int kept = 0;
    for (size_t i = 0; old != NULL && i < old_len;) {
        i += strspn(old + i, " \t\n:");
        if (i < old_len && old[i] != '\0') {
            kept++;
            i += strcspn(old + i, " \t\n:");
        } else if (i < old_len) {
            i++;
        }
    }
    snprintf(done, dsize, "%s mounted read-only, first in /etc/ld.so.preload (%d of the image's entries kept)", entry,
             kept);
    ok = true;
out:
    if (preload_tree_fd >= 0)
        unlinkat(bundle, PRELOAD_FILE, 0);
    free(old);
    free(merged);
    for (int *fd = (int[]){ preload_target, lib_target, lib_tree, preload_tree_fd, dir, afx_dir }, i = 0; i < 6; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    return ok;
}

/* asked: the hook runs from a CDI device's edits, which only the
 * containers given that device get, or from a hooks.d entry whose
 * "when" the operator made the request (--always): the engine chose
 * the container.  Without it, the container's own annotation is. */
static int hook(bool asked)
{
    struct state s = { 0 };
    char why[PATH_MAX + 256], rootfs[PATH_MAX], done[256];
    if (!read_state(&s, why, sizeof why)) {
        say(s.id, "left alone: %s", why);
        return AFX_EXIT_OK;
    }
    int bundle = read_bundle(&s, rootfs, sizeof rootfs, &s.enabled, why, sizeof why);
    s.enabled = s.enabled || asked;
    if (!s.enabled) {
        say(s.id, "left alone: no annotation " ANNOTATION "=true");
        if (bundle >= 0)
            close(bundle);
        return AFX_EXIT_OK;
    }
    if (bundle < 0) {
        say(s.id, "left alone: %s", why);
        return AFX_EXIT_OK;
    }
    struct afx_library lib;
    int lib_fd = -1, host = -1, root = -1;
    struct afx_image_facts f;
    bool given = false;
    if (!afx_userns_initial()) {
        /* Rootless: root's files show there as the overflow uid, as any
         * other user's do, so none can be known to be root's alone. */
        say(s.id, "left alone: the hook runs in a user namespace (a rootless engine's), where no file can be told "
            "to be root's alone, the library's neither; run the container with the options arenafix inspect "
            "prints (the library mounted read-only, LD_PRELOAD)");
        close(bundle);
        return AFX_EXIT_OK;
    }
    if (!afx_find_library(&lib) || !afx_library_trusted(&lib)) {
        snprintf(why, sizeof why, "no library only root may have written (above)");
        goto out;
    }
    if ((lib_fd = open(lib.file, O_RDONLY | O_CLOEXEC)) < 0) {
        snprintf(why, sizeof why, "cannot open the library %s: %s", lib.file, strerror(errno));
        goto out;
    }
    if ((root = afx_image_root_open(s.pid, rootfs, why, sizeof why)) < 0)
        goto out;
    host = host_libc();
    afx_image_facts_read(root, lib_fd, host, &f);
    if (f.host_copy && afx_glibc_state_by_version(f.version) == AFX_GLIBC_UNKNOWN) {
        /* The host's own glibc, trusted code: its probe tells. */
        struct afx_host h;
        struct afx_host_glibc g;
        afx_host_read(&h);
        afx_host_glibc_probe(&g, &h, true);
        f.host = g.state;
        if (g.fd >= 0)
            close(g.fd);
    }
    if (!afx_hook_decide(&f, why, sizeof why))
        goto out;
    say(s.id, "%s", why);
    given = inject(&s, root, bundle, lib_fd, f.libc_dir, done, sizeof done, why, sizeof why);
out:
    if (given)
        say(s.id, "given the library: %s", done);
    else
        say(s.id, "left alone: %s", why);
    for (int *fd = (int[]){ bundle, lib_fd, host, root }, i = 0; i < 4; i++)
        if (fd[i] >= 0)
            close(fd[i]);
    return AFX_EXIT_OK;
}

int afx_cmd_oci_hook(int argc, char **argv)
{
    static const struct option options[] = {
        { "log", required_argument, NULL, 'l' },
        { "cdi", no_argument, NULL, 'c' },
        { "always", no_argument, NULL, 'a' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    const char *log = NULL;
    bool asked = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (c == 'h') {
            fputs(hook_usage, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        }
        if (c == 'c' || c == 'a') {
            asked = true;
            continue;
        }
        if (c != 'l')
            afx_usage_error("oci-hook: unknown option %s; usage: arenafix oci-hook [--always | --cdi] [--log FILE]",
                            argv[optind - 1]);
        log = optarg;
    }
    if (optind < argc)
        afx_usage_error("oci-hook: unexpected argument %s; usage: arenafix oci-hook [--always | --cdi] [--log FILE]",
                        argv[optind]);
    if (log != NULL) {
        /* The operator's file, named in the hooks.d entry: appended to,
         * never through a link; a regular file only, opened without
         * waiting (a FIFO with no reader would hold the container's
         * start). */
        int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0640);
        struct stat st;
        if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
            close(fd);
            fd = -1;
            errno = EINVAL;
        }
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
            afx_error("oci-hook: cannot append to %s: %s; saying it here", log,
                      errno == EINVAL ? "not a regular file" : strerror(errno));
        if (fd >= 0 && fd != STDERR_FILENO)
            close(fd);
    }
    return hook(asked);
}
