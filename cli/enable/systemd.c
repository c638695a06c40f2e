/* arenafix enable|disable [--dry-run] [--force] [--root DIR] UNIT: a systemd
 * drop-in that adds the library to a service's LD_PRELOAD.
 *
 * What the service's LD_PRELOAD is comes from its files read as systemd
 * reads them (unitenv.c, unitfile.c), and, on a running system, is
 * checked against what systemd itself says.  Where the answer depends
 * on what only systemd knows, enable says so and writes nothing. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "library.h"
#include "preload.h"
#include "proc/proccgroup.h"
#include "readfile.h"
#include "files/rootdir.h"
#include "systemctl.h"
#include "unitenv.h"
#include "unitfile.h"
#include "unitprocs.h"

#define DROPIN "arenafix.conf"
#define SYSTEM_DIR "etc/systemd/system"

struct target {
    struct afx_root root;
    bool root_option;           /* --root given: files only, systemd not asked */
    char unit[256];             /* "foo.service" */
    char dir[PATH_MAX];         /* SYSTEM_DIR/foo.service.d, relative to the root */
    char path[PATH_MAX + 32];   /* .../arenafix.conf */
    char shown[2 * PATH_MAX];   /* the drop-in's path, as it is named: for afx_error */
    char printed[AFX_ESCAPED_SIZE(2 * PATH_MAX)];  /* the same for standard output */
};

/* Who runs the systemctl commands: here, or the system an image under
 * --root becomes (a service of this host's is not the tree's). */
static const char *next_step(const struct target *t)
{
    return t->root.host ? "now run" : "on the system that boots it, if it runs";
}

/* ---- the drop-in on disk ---------------------------------------------- */

/* Our drop-in in the opened directory: 1 and its first bytes, 0 if
 * absent, -1 after a message (a symlink, not a regular file). */
static int read_dropin(const struct target *t, int dir, char *head, size_t size, size_t *len)
{
    int fd = afx_open_entry(dir, DROPIN);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0) {
        if (errno == ELOOP || errno == EINVAL)
            afx_error("%s: %s; arenafix did not write that: remove or rename it by hand", t->shown,
                      errno == ELOOP ? "a symlink" : "not a regular file");
        else
            afx_error("cannot read %s: %s; %s", t->shown, strerror(errno), afx_next_step(&t->root, errno));
        return -1;
    }
    ssize_t n = read(fd, head, size - 1);
    int err = errno;
    close(fd);
    if (n < 0) {
        afx_error("cannot read %s: %s; %s", t->shown, strerror(err), afx_next_step(&t->root, err));
        return -1;
    }
    head[n] = '\0';
    *len = (size_t)n;
    return 1;
}

/* The drop-in there, if any, must be one arenafix wrote. */
static bool not_foreign(const struct target *t, int dir, const char *what)
{
    char head[512];
    size_t len;
    int rc = read_dropin(t, dir, head, sizeof head, &len);
    if (rc > 0 && !afx_dropin_is_ours(head, len)) {
        afx_error("%s: %s was not written by arenafix (its first line is not \"%s\"); arenafix "
                  "leaves it alone: rename or remove it by hand", what, t->shown, AFX_DROPIN_HEADER);
        return false;
    }
    return rc >= 0;
}

static void random_name(char *out, size_t size)
{
    unsigned char r[8];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long long v = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)getpid() << 32);
        memcpy(r, &v, sizeof r);
    }
    /* Hidden and not *.conf: systemd never reads it, even half written. */
    snprintf(out, size, "." DROPIN ".%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3], r[4], r[5],
             r[6], r[7]);
}

static bool write_all(int fd, const char *text)
{
    for (size_t n = strlen(text); n > 0;) {
        ssize_t w = write(fd, text, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        text += w, n -= (size_t)w;
    }
    return true;
}

/* Write, sync, rename, sync: systemd never reads half a file, a crash
 * leaves the old drop-in or the new, and the file is 0644 whatever the
 * umask.  Everything is relative to the directory opened without
 * symlinks: nothing lands anywhere else. */
static int write_dropin(const struct target *t, const char *text)
{
    bool created;
    int dir = afx_root_dir(&t->root, t->dir, true, &created);
    if (dir < 0) {
        char where[2 * PATH_MAX];
        if (errno == ENOENT)
            afx_error("%s does not exist; is systemd installed? (or use --root)",
                      afx_root_path(&t->root, SYSTEM_DIR, where, sizeof where));
        return AFX_EXIT_FAIL;
    }
    if (!not_foreign(t, dir, "enable")) {
        close(dir);
        return AFX_EXIT_FAIL;
    }
    char tmp[64];
    random_name(tmp, sizeof tmp);
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    bool ok = fd >= 0 && fchmod(fd, 0644) == 0 && write_all(fd, text) && fsync(fd) == 0;
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && renameat(dir, tmp, dir, DROPIN) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        if (fd >= 0)
            unlinkat(dir, tmp, 0);
        afx_error("cannot write %s: %s; %s", t->shown, strerror(err), afx_next_step(&t->root, err));
        close(dir);
        return AFX_EXIT_FAIL;
    }
    fsync(dir);
    close(dir);
    if (created && (dir = afx_root_dir(&t->root, SYSTEM_DIR, false, NULL)) >= 0) {
        fsync(dir);
        close(dir);
    }
    return AFX_EXIT_OK;
}

/* ---- what systemd says ------------------------------------------------- */

struct systemd_view {
    char load_state[64];
    bool reload_needed;
    int has_preload;            /* afx_show_preload() */
    char *preload;
};

/* `systemctl show` for the unit.  False after a message when it could
 * not be asked. */
static bool ask_systemd(const char *unit, struct systemd_view *v)
{
    static const char *const names[] = { "LoadState", "NeedDaemonReload", "Environment", NULL };
    char why[128], reload[8];
    memset(v, 0, sizeof *v);
    char *text = afx_systemctl_show(unit, names, why, sizeof why);
    if (text == NULL) {
        afx_error("cannot ask systemd about %s (systemctl show %s); arenafix checks its reading of the unit "
                  "files against systemd's: retry, or use --root / to go by the files alone", unit, why);
        return false;
    }
    afx_show_value(text, "LoadState", v->load_state, sizeof v->load_state);
    v->reload_needed = strcmp(afx_show_value(text, "NeedDaemonReload", reload, sizeof reload), "yes") == 0;
    v->has_preload = afx_show_preload(text, &v->preload);
    free(text);
    if (v->has_preload < 0) {
        afx_error("cannot read systemd's Environment= for %s; use --root / to go by the files alone", unit);
        return false;
    }
    return true;
}

static bool systemd_running(const struct target *t)
{
    return !t->root_option && afx_systemd_running(&t->root);
}

static const char *shown_value(const struct afx_unit_env *e, char *out, size_t size)
{
    if (e->state != AFX_ENV_SET)
        return "unset";
    snprintf(out, size, "\"%s\"", e->preload);
    return out;
}

/* The files as read here against systemd's loaded unit: they must
 * agree, or arenafix's reading is wrong and it writes nothing. */
static bool agrees_with_systemd(const struct target *t, const struct systemd_view *view,
                                const struct afx_unit_env *now)
{
    struct systemd_view v = *view;
    bool ok = true;
    if (strcmp(v.load_state, "loaded") != 0) {
        if (strcmp(v.load_state, "masked") != 0 && strcmp(v.load_state, "not-found") != 0)
            afx_error("note: systemd has not loaded %s (LoadState=%s): its files are read as they are", t->unit,
                      v.load_state);
    } else if (v.reload_needed) {
        afx_error("note: %s changed on disk since systemd loaded it (NeedDaemonReload=yes): its files "
                  "are read as they are now", t->unit);
    } else {
        struct afx_unit_env said;
        afx_unit_env_init(&said);
        ok = v.has_preload == 0 || afx_unit_env_set(&said, v.preload);
        if (ok && !afx_unit_env_same(&said, now)) {
            char a[PATH_MAX], b[PATH_MAX];
            afx_error("enable: systemd gives %s LD_PRELOAD %s, but arenafix reads %s from its files; "
                      "arenafix does not guess: write the drop-in by hand (see arenafix-enable(1))", t->unit,
                      shown_value(&said, a, sizeof a), shown_value(now, b, sizeof b));
            ok = false;
        }
        afx_unit_env_free(&said);
    }
    return ok;
}

/* ---- enable ------------------------------------------------------------ */

/* What the service's LD_PRELOAD is before our drop-in (*before), with
 * every file as it is now (*now), and with ours holding value (*after). */
struct reading {
    struct afx_unit_files files;
    struct afx_unit_env before, now;
};

static void reading_free(struct reading *r)
{
    afx_unit_files_free(&r->files);
    afx_unit_env_free(&r->before);
    afx_unit_env_free(&r->now);
}

static bool refuse_unsure(const struct target *t, const struct afx_unit_env *e)
{
    if (e->broken[0] != '\0') {
        afx_error("enable: cannot read %s: %s; fix that first", t->unit, e->broken);
        return true;
    }
    if (e->state == AFX_ENV_UNSURE) {
        afx_error("enable: cannot tell what LD_PRELOAD %s gets: %s; arenafix does not guess: set it "
                  "without specifiers, or write the drop-in by hand (see arenafix-enable(1))", t->unit, e->unsure);
        return true;
    }
    return false;
}

static bool read_unit(const struct target *t, struct reading *r)
{
    char where[2 * PATH_MAX];
    afx_unit_env_init(&r->before);
    afx_unit_env_init(&r->now);
    if (!afx_unit_files_find(&t->root, t->unit, DROPIN, &r->files)) {
        afx_error("enable: cannot tell which files systemd reads for %s: %s", t->unit, r->files.problem);
        return false;
    }
    if (r->files.alias_of[0] != '\0') {
        char word[4 * sizeof r->files.alias_of + 4];
        afx_error("enable: %s is another name of %s: run arenafix enable %s", t->unit, r->files.alias_of,
                  afx_unit_shell_word(r->files.alias_of, word, sizeof word));
        return false;
    }
    for (size_t i = 0; i < r->files.nwatched; i++)
        if (strcmp(r->files.watched[i], t->path) != 0) {
            afx_error("enable: %s has another drop-in named " DROPIN ", %s, and systemd reads only one "
                      "of the two: rename it", t->unit,
                      afx_root_path(&t->root, r->files.watched[i], where, sizeof where));
            return false;
        }
    if (r->files.fragment != NULL)
        afx_unit_files_apply(&t->root, r->files.fragment, &r->before);
    for (size_t i = 0; i < r->files.count && strcmp(r->files.dropins[i].name, DROPIN) < 0; i++)
        afx_unit_files_apply(&t->root, r->files.dropins[i].path, &r->before);
    if (refuse_unsure(t, &r->before) || !afx_unit_env_copy(&r->now, &r->before))
        return false;
    for (size_t i = 0; i < r->files.count; i++)
        if (strcmp(r->files.dropins[i].name, DROPIN) >= 0)
            afx_unit_files_apply(&t->root, r->files.dropins[i].path, &r->now);
    return true;
}

/* Drop-ins after ours that change LD_PRELOAD again: each is named. */
static bool warn_later(const struct target *t, const struct reading *r, const char *value)
{
    char where[2 * PATH_MAX];
    struct afx_unit_env with, ours;
    afx_unit_env_init(&ours);
    afx_unit_env_init(&with);
    bool ok = afx_unit_env_set(&ours, value) && afx_unit_env_copy(&with, &ours);
    for (size_t i = 0; ok && i < r->files.count; i++) {
        if (strcmp(r->files.dropins[i].name, DROPIN) <= 0)
            continue;
        struct afx_unit_env one;
        if (!afx_unit_env_copy(&one, &ours))
            break;
        afx_unit_files_apply(&t->root, r->files.dropins[i].path, &one);
        afx_unit_files_apply(&t->root, r->files.dropins[i].path, &with);
        if (one.broken[0] == '\0' && !afx_unit_env_same(&one, &ours))
            afx_error("warning: %s %s LD_PRELOAD after " DROPIN " and overrides it; add the library "
                      "there instead (arenafix path --preload)",
                      afx_root_path(&t->root, r->files.dropins[i].path, where, sizeof where),
                      one.state == AFX_ENV_UNSURE ? "may set" : "sets");
        afx_unit_env_free(&one);
    }
    if (ok && refuse_unsure(t, &with))
        ok = false;
    if (ok && with.environment_files)
        afx_error("note: %s reads an EnvironmentFile=; if that sets LD_PRELOAD it overrides the "
                  "drop-in: add the library there as well", t->unit);
    if (ok && with.unsets_preload)
        afx_error("warning: %s has UnsetEnvironment= naming LD_PRELOAD, which removes what the "
                  "drop-in sets", t->unit);
    afx_unit_env_free(&ours);
    afx_unit_env_free(&with);
    return ok;
}

/* At most this many of a unit's processes in a root of their own are named. */
#define CONTAINED_NAMED 8

/* The unit runs processes in a root of their own (unitprocs.h) on this
 * host: the drop-in's LD_PRELOAD would reach the unit's own processes,
 * the engine's, never those, and the unit's main process would then
 * pass for fixed.  Refused, said why; with --force, written for the
 * unit's own processes, said all the same.  True if refused. */
static bool refuse_contained(const struct target *t, bool force)
{
    long pids[CONTAINED_NAMED];
    size_t n = t->root.host ? afx_unit_own_roots(t->unit, pids, CONTAINED_NAMED) : 0;
    if (n == 0)
        return false;
    char list[CONTAINED_NAMED * (24 + AFX_ESCAPED_SIZE(16))] = "", path[64], name[AFX_ESCAPED_SIZE(16)];
    size_t used = 0;
    for (size_t i = 0; i < n && i < CONTAINED_NAMED; i++) {
        size_t len = 0;
        afx_proc_path(path, sizeof path, pids[i], "/comm");
        char *comm = afx_slurp_max(path, 64, NULL, &len);
        if (comm != NULL && len > 0 && comm[len - 1] == '\n')
            comm[len - 1] = '\0';
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%ld %s", i > 0 ? ", " : "", pids[i],
                                 comm != NULL ? afx_escape(comm, name, sizeof name) : "(gone)");
        free(comm);
    }
    afx_error("%s%s runs %zu process%s in a root of %s own (%s%s): a container's (systemd-nspawn's payload, a podman "
              "run under the unit, a RootDirectory=); the drop-in's LD_PRELOAD reaches the unit's own processes, "
              "the engine's, never %s, and arenafix inspect PID gives each its fix%s",
              force ? "warning: --force: " : "enable: ", t->unit, n, n == 1 ? "" : "es", n == 1 ? "its" : "their",
              list, n > CONTAINED_NAMED ? ", ..." : "", n == 1 ? "it" : "those",
              force ? "" : "; use --force to write the drop-in for the unit's own processes all the same");
    return !force;
}

static int enable(const struct target *t, bool dry_run, bool force)
{
    if (afx_unit_is_template(t->unit)) {
        afx_error("enable: %s is a template; give an instance (%.*s@NAME.service): each instance's "
                  "own drop-ins may give it another LD_PRELOAD", t->unit, (int)(strlen(t->unit) - 9), t->unit);
        return AFX_EXIT_USAGE;
    }
    struct afx_library lib;
    if (!afx_find_library(&lib) || !afx_library_trusted(&lib))
        return AFX_EXIT_FAIL;
    /* The way to the drop-in is checked before anything is read. */
    int dir = afx_root_dir(&t->root, t->dir, false, NULL);
    if (dir < 0 && errno != ENOENT)
        return AFX_EXIT_FAIL;
    if (dir >= 0) {
        bool ok = not_foreign(t, dir, "enable");
        close(dir);
        if (!ok)
            return AFX_EXIT_FAIL;
    } else if (!dry_run && (dir = afx_root_dir(&t->root, SYSTEM_DIR, false, NULL)) < 0) {
        char where[2 * PATH_MAX];
        if (errno == ENOENT)
            afx_error("%s does not exist; is systemd installed? (or use --root)",
                      afx_root_path(&t->root, SYSTEM_DIR, where, sizeof where));
        return AFX_EXIT_FAIL;
    } else if (dir >= 0) {
        close(dir);
    }

    struct reading r;
    int rc = AFX_EXIT_FAIL;
    char *list = NULL, *text = NULL;
    struct systemd_view v = { .load_state = "" };
    bool asked = systemd_running(t);
    if (!read_unit(t, &r) || (asked && !ask_systemd(t->unit, &v)))
        goto out;
    /* systemd's answer where it runs; the unit search path otherwise. */
    bool missing = asked ? strcmp(v.load_state, "not-found") == 0 : r.files.fragment == NULL && !r.files.masked;
    bool masked = asked ? strcmp(v.load_state, "masked") == 0 : r.files.masked;
    if (missing && !force) {
        /* As systemctl says it: a typo must not leave a drop-in behind. */
        if (asked)
            afx_error("Unit %s not found. systemd has no such unit (LoadState=not-found): check the name, or use "
                      "--force to write the drop-in for a unit installed later", t->unit);
        else
            afx_error("Unit %s not found. No unit file for it in systemd's unit directories under %s: check the "
                      "name, or use --force to write the drop-in for a unit installed later", t->unit,
                      t->root.host ? "/" : t->root.shown);
        goto out;
    }
    if (missing)
        afx_error("note: --force: %s is not installed; the drop-in takes effect once it is (then daemon-reload)",
                  t->unit);
    else if (masked)
        afx_error("note: %s is masked; the drop-in takes effect once it is unmasked", t->unit);
    if (asked && !missing && !agrees_with_systemd(t, &v, &r.now))
        goto out;
    if (refuse_contained(t, force))
        goto out;
    list = afx_preload_append(r.before.state == AFX_ENV_SET ? r.before.preload : NULL, lib.preload, lib.file);
    text = list != NULL ? afx_dropin_text(t->unit, list) : NULL;
    if (text == NULL) {
        afx_error("out of memory");
        goto out;
    }
    if (!warn_later(t, &r, list))
        goto out;
    if (dry_run) {
        printf("# %s\n%s", t->printed, text);
        rc = AFX_EXIT_OK;
    } else if ((rc = write_dropin(t, text)) == AFX_EXIT_OK) {
        char word[2 * sizeof t->unit];
        printf("wrote %s\n%s: systemctl daemon-reload && systemctl restart %s\n", t->printed, next_step(t),
               afx_unit_shell_word(t->unit, word, sizeof word));
    }
out:
    free(v.preload);
    free(list);
    free(text);
    reading_free(&r);
    return rc;
}

/* ---- disable ----------------------------------------------------------- */

static int disable(const struct target *t, bool dry_run)
{
    int dir = afx_root_dir(&t->root, t->dir, false, NULL);
    char head[512];
    size_t len;
    int found = dir >= 0 ? read_dropin(t, dir, head, sizeof head, &len) : errno == ENOENT ? 0 : -1;
    if (found <= 0) {
        if (dir >= 0)
            close(dir);
        if (found == 0)
            printf("arenafix is not enabled for %s (no %s): nothing to do\n", t->unit, t->printed);
        return found == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
    }
    if (!afx_dropin_is_ours(head, len)) {
        afx_error("disable: %s was not written by arenafix (its first line is not \"%s\"); arenafix "
                  "leaves it alone: remove it by hand if it should go", t->shown, AFX_DROPIN_HEADER);
        close(dir);
        return AFX_EXIT_FAIL;
    }
    if (dry_run) {
        printf("would remove %s\n", t->printed);
        close(dir);
        return AFX_EXIT_OK;
    }
    if (unlinkat(dir, DROPIN, 0) != 0) {
        afx_error("cannot remove %s: %s; %s", t->shown, strerror(errno), afx_next_step(&t->root, errno));
        close(dir);
        return AFX_EXIT_FAIL;
    }
    fsync(dir);
    close(dir);
    /* The directory too, if now empty: other drop-ins stay. */
    int parent = afx_root_dir(&t->root, SYSTEM_DIR, false, NULL);
    if (parent >= 0) {
        if (unlinkat(parent, strrchr(t->dir, '/') + 1, AT_REMOVEDIR) == 0)
            fsync(parent);
        close(parent);
    }
    char word[2 * sizeof t->unit];
    printf("removed %s\n%s: systemctl daemon-reload && systemctl restart %s\n", t->printed, next_step(t),
           afx_unit_shell_word(t->unit, word, sizeof word));
    return AFX_EXIT_OK;
}

static const char enable_help[] =
    "Usage: arenafix enable [--dry-run] [--force] [--root DIR] UNIT\n"
    "Add libarenafix to a systemd service's LD_PRELOAD, keeping what it preloads,\n"
    "with a drop-in: /etc/systemd/system/UNIT.d/arenafix.conf.\n"
    "\n"
    "Options:\n"
    "  -n, --dry-run    print the drop-in, write nothing\n"
    "  -f, --force      write it for a unit that is not installed yet, or one that\n"
    "                   runs a container (processes in a root of their own, which\n"
    "                   the drop-in never reaches: refused without it)\n"
    "  -r, --root DIR   the image under DIR, by its files alone (systemd not asked)\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix enable nginx                   preload the library into nginx.service\n"
    "  arenafix enable --dry-run nginx         show the drop-in first\n"
    "  arenafix enable --root /srv/img web     in an image, before it boots\n"
    "\n"
    "Exit status: 0 written (--dry-run: would be), 1 failure, no such unit, or a\n"
    "unit running a container,\n"
    "2 usage error.  Then: systemctl daemon-reload && systemctl restart UNIT.\n"
    "See arenafix-enable(1).\n";

static const char disable_help[] =
    "Usage: arenafix disable [--dry-run] [--root DIR] UNIT\n"
    "Remove the drop-in arenafix enable wrote for UNIT, even if the unit is gone;\n"
    "any other drop-in is left alone.\n"
    "\n"
    "Options:\n"
    "  -n, --dry-run    say what would be removed, remove nothing\n"
    "  -r, --root DIR   the image under DIR\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix disable nginx                  take the library out of nginx.service\n"
    "  arenafix status                         which units arenafix changed\n"
    "\n"
    "Exit status: 0 removed (or nothing to remove), 1 failure, 2 usage error.\n"
    "Then: systemctl daemon-reload && systemctl restart UNIT.\n"
    "See arenafix-disable(1).\n";

/* -h or --help among the options (before "--"): help, whatever else is there. */
static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
    return false;
}

int afx_cmd_enable(int argc, char **argv, bool on)
{
    static const struct option options[] = {
        { "dry-run", no_argument, NULL, 'n' },
        { "force", no_argument, NULL, 'f' },
        { "root", required_argument, NULL, 'r' },
        { 0 },
    };
    const char *what = on ? "enable" : "disable", *root = NULL;
    const char *usage = on ? "[--dry-run] [--force] [--root DIR] UNIT" : "[--dry-run] [--root DIR] UNIT";
    if (wants_help(argc, argv)) {
        fputs(on ? enable_help : disable_help, stdout);
        return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
    }
    bool dry_run = false, force = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, on ? "+:nfr:" : "+:nr:", options, NULL)) != -1) {
        if (c == 'n') {
            dry_run = true;
        } else if (c == 'f' && on) {
            force = true;
        } else if (c == 'r') {
            root = optarg;
        } else {
            afx_usage_error("%s: %s %s; usage: arenafix %s %s (see arenafix %s --help)", what,
                            c == ':' ? "missing value for" : "unknown option", argv[optind - 1], what, usage, what);
        }
    }
    if (optind != argc - 1)
        afx_usage_error("%s: %s; usage: arenafix %s %s (see arenafix %s --help)", what,
                        optind >= argc ? "no unit given" : "one unit only", what, usage, what);
    struct target t = { .root_option = root != NULL };
    if (!afx_unit_name(argv[optind], t.unit, sizeof t.unit))
        afx_usage_error("%s: %s is not a service unit name; give one such as nginx or nginx.service",
                        what, argv[optind]);
    char option[32];
    snprintf(option, sizeof option, "%s: --root", what);
    int rc = afx_root_open(&t.root, root, option);
    if (rc != AFX_EXIT_OK)
        return rc;
    snprintf(t.dir, sizeof t.dir, SYSTEM_DIR "/%s.d", t.unit);
    snprintf(t.path, sizeof t.path, "%s/" DROPIN, t.dir);
    afx_root_path(&t.root, t.path, t.shown, sizeof t.shown);
    afx_printable(t.shown, t.printed, sizeof t.printed);
    rc = on ? enable(&t, dry_run, force) : disable(&t, dry_run);
    afx_root_close(&t.root);
    return rc;
}
