/* arenafix status [--root DIR] [--json]: what arenafix changed on this
 * host (or in an image), and what the operator should do next.
 *
 * It lists the drop-ins enable wrote (only where enable writes:
 * /etc/systemd/system/UNIT.d/), whether /etc/ld.so.preload names the
 * library, the library itself, the host's glibc as probe judges it, and
 * what gives containers the fix (containerfix.c).
 * Everything under the tree is read as enable reads it (rootdir.c):
 * nothing a user controls leads it outside the tree. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "containerfix.h"
#include "escape.h"
#include "hostinfo.h"
#include "json.h"
#include "library.h"
#include "glibcprobe/probe.h"
#include "proc/proccgroup.h"
#include "files/rootdir.h"
#include "systemctl.h"
#include "unitfile.h"
#include "unitprocs.h"

#define SYSTEM_DIR "etc/systemd/system"
#define DROPIN "arenafix.conf"
#define PRELOAD_FILE "etc/ld.so.preload"
#define MAX_PRELOAD_FILE (1u << 20)

/* At most this many of a unit's processes in a root of their own are named. */
#define CONTAINED_NAMED 8

struct dropin {
    char unit[256];
    char path[2 * PATH_MAX];    /* as it is named: escaped where printed */
    const char *systemd;        /* what systemd made of it */
    char next[1024];             /* the command to run next, or "" */
    /* Its unit's processes in a root of their own on this host (a
     * container's, unitprocs.h), which the drop-in never reaches: how
     * many, the first ones; looked for only without --root. */
    bool looked;
    size_t ncontained;
    long contained[CONTAINED_NAMED];
};

struct preload_line {
    long number;
    char text[512];             /* as it is: escaped where printed */
};

struct status {
    bool json, root_option, asked;
    struct afx_root root;
    bool have_lib;
    struct afx_library lib;
    bool preload_exists;
    char preload_path[2 * PATH_MAX];
    struct preload_line *lines;
    size_t nlines;
    struct dropin *dropins;
    size_t ndropins;
    bool probed;
    struct afx_probe probe;
    struct afx_container_fixes fixes;
    bool failed;
};

/* ---- the drop-ins ------------------------------------------------------ */

/* When the file was last changed, on the monotonic clock systemd's
 * *TimestampMonotonic properties use (microseconds since boot). */
static long long mtime_monotonic(const struct stat *st)
{
    struct timespec real, mono;
    clock_gettime(CLOCK_REALTIME, &real);
    clock_gettime(CLOCK_MONOTONIC, &mono);
    long long age = (real.tv_sec - st->st_mtim.tv_sec) * 1000000LL + (real.tv_nsec - st->st_mtim.tv_nsec) / 1000;
    return mono.tv_sec * 1000000LL + mono.tv_nsec / 1000 - age;
}

static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return true;
    return false;
}

/* What the running systemd made of the drop-in (rel, changed at st). */
static void ask_about(struct status *s, struct dropin *d, const char *rel, const struct stat *st)
{
    static const char *const names[] = { "LoadState", "NeedDaemonReload", "DropInPaths", "ActiveState",
                                         "ExecMainStartTimestampMonotonic", NULL };
    char why[128], state[64], reload[8], active[64], started[32], *paths = malloc(64 * 1024);
    char *text = paths != NULL ? afx_systemctl_show(d->unit, names, why, sizeof why) : NULL;
    if (text == NULL) {
        afx_error("status: cannot ask systemd about %s (systemctl show %s); retry, or use --root / to list "
                  "the drop-ins alone", d->unit, paths != NULL ? why : "out of memory");
        d->systemd = "cannot ask";
        s->failed = true;
        free(paths);
        return;
    }
    char full[PATH_MAX + 2];
    snprintf(full, sizeof full, "/%s", rel);
    afx_show_value(text, "LoadState", state, sizeof state);
    afx_show_value(text, "NeedDaemonReload", reload, sizeof reload);
    afx_show_value(text, "DropInPaths", paths, 64 * 1024);
    afx_show_value(text, "ActiveState", active, sizeof active);
    long long start = atoll(afx_show_value(text, "ExecMainStartTimestampMonotonic", started, sizeof started));
    free(text);
    char word[2 * sizeof d->unit];
    afx_unit_shell_word(d->unit, word, sizeof word);
    if (strcmp(state, "not-found") == 0) {
        d->systemd = "unit not installed";
        snprintf(d->next, sizeof d->next, "arenafix disable %s", word);
    } else if (strcmp(reload, "yes") == 0 || !has_word(paths, full)) {
        d->systemd = "not loaded";
        snprintf(d->next, sizeof d->next, "systemctl daemon-reload && systemctl restart %s", word);
    } else if (strcmp(active, "active") != 0 && strcmp(active, "reloading") != 0) {
        d->systemd = "loaded, in effect from the next start";
    } else if (start > 0 && start < mtime_monotonic(st)) {
        d->systemd = "loaded, but the service started before it was written";
        snprintf(d->next, sizeof d->next, "systemctl restart %s", word);
    } else {
        d->systemd = "loaded, in effect";
    }
    free(paths);
}

/* One directory of SYSTEM_DIR: its arenafix.conf, if arenafix wrote it. */
static void look_at(struct status *s, const char *name)
{
    char unit[256], rel[PATH_MAX], head[256];
    size_t len = strlen(name);
    if (len < 3 || strcmp(name + len - 2, ".d") != 0 || len - 2 >= sizeof unit)
        return;
    snprintf(unit, sizeof unit, "%.*s", (int)(len - 2), name);
    char canonical[256];
    if (!afx_unit_name(unit, canonical, sizeof canonical) || strcmp(canonical, unit) != 0)
        return;     /* not a service: enable writes for services only */
    snprintf(rel, sizeof rel, SYSTEM_DIR "/%s", name);
    int dir = afx_root_opendir(&s->root, rel);
    int fd = dir >= 0 ? afx_open_entry(dir, DROPIN) : -1;
    if (dir >= 0)
        close(dir);
    if (fd < 0)
        return;     /* none, or a link or something else arenafix never writes */
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 ? read(fd, head, sizeof head) : -1;
    close(fd);
    if (n <= 0 || !afx_dropin_is_ours(head, (size_t)n))
        return;
    struct dropin *more = realloc(s->dropins, (s->ndropins + 1) * sizeof *more);
    if (more == NULL) {
        s->failed = true;
        return;
    }
    s->dropins = more;
    struct dropin *d = &s->dropins[s->ndropins++];
    memset(d, 0, sizeof *d);
    snprintf(d->unit, sizeof d->unit, "%s", unit);
    snprintf(rel, sizeof rel, SYSTEM_DIR "/%s/" DROPIN, name);
    afx_root_path(&s->root, rel, d->path, sizeof d->path);
    d->systemd = s->root_option ? "not asked, --root" : "not running here";
    if (s->asked)
        ask_about(s, d, rel, &st);
    if (!s->root_option) {
        d->looked = true;
        d->ncontained = afx_unit_own_roots(d->unit, d->contained, CONTAINED_NAMED);
        /* After a restart of the unit, if one is due: that would not
         * reach them either. */
        if (d->ncontained > 0 && d->next[0] == '\0')
            snprintf(d->next, sizeof d->next, "arenafix inspect %ld", d->contained[0]);
    }
}

static int by_unit(const void *a, const void *b)
{
    return strcmp(((const struct dropin *)a)->unit, ((const struct dropin *)b)->unit);
}

static void find_dropins(struct status *s)
{
    int fd = afx_root_opendir(&s->root, SYSTEM_DIR);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (dir == NULL) {
        char where[2 * PATH_MAX];
        if (fd >= 0)
            close(fd);
        if (errno != ENOENT) {
            afx_error("status: cannot list %s: %s; %s", afx_root_path(&s->root, SYSTEM_DIR, where, sizeof where),
                      strerror(errno), afx_next_step(&s->root, errno));
            s->failed = true;
        }
        return;
    }
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        if (e->d_name[0] != '.' && (e->d_type == DT_DIR || e->d_type == DT_UNKNOWN))
            look_at(s, e->d_name);
    closedir(dir);
    if (s->ndropins > 1)
        qsort(s->dropins, s->ndropins, sizeof *s->dropins, by_unit);
}

/* ---- /etc/ld.so.preload ------------------------------------------------ */

/* Every line naming the library: ld.so loads it into every process. */
static void read_preload_file(struct status *s)
{
    char *text;
    size_t len;
    struct stat st;
    afx_root_path(&s->root, PRELOAD_FILE, s->preload_path, sizeof s->preload_path);
    int rc = afx_root_read(&s->root, PRELOAD_FILE, MAX_PRELOAD_FILE, &text, &len, &st);
    if (rc == -ENOENT)
        return;
    if (rc < 0) {
        afx_error("status: cannot read %s: %s", s->preload_path,
                  rc == -EINVAL ? "not a regular file" : rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
        s->failed = true;
        return;
    }
    s->preload_exists = true;
    long number = 0;
    for (char *line = text; line < text + len; line += strcspn(line, "\n") + 1) {
        number++;
        size_t n = strcspn(line, "\n");
        char one[512];
        snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one - 1 ? n : sizeof one - 1), line);
        if (memmem(line, n, "libarenafix.so", 14) == NULL)
            continue;
        struct preload_line *more = realloc(s->lines, (s->nlines + 1) * sizeof *more);
        if (more == NULL) {
            s->failed = true;
            break;
        }
        s->lines = more;
        s->lines[s->nlines].number = number;
        snprintf(s->lines[s->nlines].text, sizeof s->lines[s->nlines].text, "%s", one);
        s->nlines++;
    }
    free(text);
}

/* ---- the report -------------------------------------------------------- */

static const char *verdict_name(const struct status *s)
{
    if (!s->probed)
        return NULL;
    return s->probe.verdict == AFX_AFFECTED ? "affected"
           : s->probe.verdict == AFX_NOT_AFFECTED ? "not affected" : "cannot tell";
}

/* s for a line of the report: buf[0] to buf[3] in turn, so that one
 * printf may show four. */
static const char *shown(const char *s)
{
    static char buf[4][AFX_ESCAPED_SIZE(2 * PATH_MAX)];
    static unsigned next;
    return afx_printable(s, buf[next++ % 4], sizeof buf[0]);
}

/* rel under the tree, for a line. */
static const char *in_tree(const struct status *s, const char *rel)
{
    static char buf[4][2 * PATH_MAX];
    static unsigned next;
    return shown(afx_root_path(&s->root, rel, buf[next++ % 4], sizeof buf[0]));
}

static void print_containers(const struct status *s)
{
    const struct afx_container_fixes *f = &s->fixes;
    if (f->nhooks == 0)
        printf("oci hook:       no hooks.d entry (podman, CRI-O)\n");
    for (size_t i = 0; i < f->nhooks; i++)
        printf("oci hook:       %s: podman and CRI-O run it for a container with "
               "io.arenafix.enable=true\n", in_tree(s, f->hooks[i]));
    if (!f->log_exists)
        printf("hook log:       %s: none (no container has asked since it was made)\n",
               in_tree(s, f->log));
    else
        printf("hook log:       %s: %ld line%s, the last: %s\n", in_tree(s, f->log), f->log_lines,
               f->log_lines == 1 ? "" : "s", shown(f->log_last));
    if (f->ncdi == 0)
        printf("cdi spec:       none (arenafix cdi --output /etc/cdi/arenafix.json writes one)\n");
    for (size_t i = 0; i < f->ncdi; i++)
        printf("cdi spec:       %s\n", in_tree(s, f->cdi[i]));
    if (f->nruntimes == 0)
        printf("runtime shim:   named by no engine's configuration (docker, containerd)\n");
    for (size_t i = 0; i < f->nruntimes; i++)
        printf("runtime shim:   %s %s\n", in_tree(s, f->runtimes[i]),
               strstr(f->runtimes[i], "arenafix/") != NULL ? "configures arenafix-runtime"
                                                           : "names arenafix-runtime");
}

static void print_text(const struct status *s)
{
    printf("arenafix:       %s%s%s\n", AFX_VERSION, s->root_option ? ", looking at " : "",
           s->root_option ? (s->root.host ? "/" : shown(s->root.shown)) : "");
    if (s->have_lib) {
        printf("library:        %s (%s)\n", shown(s->lib.file), s->lib.found_by);
        printf("preload entry:  %s\n", shown(s->lib.preload));
    } else {
        printf("library:        not found\n");
    }
    if (s->probed)
        printf("glibc:          %s on this host: %s by bug 30945 (arenafix probe)\n", shown(s->probe.pinned_run.glibc),
               verdict_name(s));
    else if (s->root_option)
        printf("glibc:          not probed (--root: run arenafix probe on the host that boots the tree)\n");
    if (!s->preload_exists)
        printf("ld.so.preload:  %s: none\n", shown(s->preload_path));
    else if (s->nlines == 0)
        printf("ld.so.preload:  %s does not name the library\n", shown(s->preload_path));
    for (size_t i = 0; i < s->nlines; i++)
        printf("ld.so.preload:  %s line %ld names it, for every process: %s\n", shown(s->preload_path),
               s->lines[i].number, shown(s->lines[i].text));
    if (s->ndropins == 0)
        printf("drop-ins:       none\n");
    for (size_t i = 0; i < s->ndropins; i++) {
        const struct dropin *d = &s->dropins[i];
        printf("drop-in:        %s: %s (systemd: %s)\n", shown(d->unit), shown(d->path), d->systemd);
        if (d->ncontained == 0)
            continue;
        printf("not reached:    %s runs %zu process%s in a root of %s own, which the drop-in never reaches (a "
               "container's: systemd-nspawn's payload, a podman run under the unit): PID", shown(d->unit),
               d->ncontained, d->ncontained == 1 ? "" : "es", d->ncontained == 1 ? "its" : "their");
        for (size_t k = 0; k < d->ncontained && k < CONTAINED_NAMED; k++)
            printf("%s %ld", k > 0 ? "," : "", d->contained[k]);
        printf("%s; arenafix inspect PID gives each its fix\n", d->ncontained > CONTAINED_NAMED ? ", ..." : "");
    }
    for (size_t i = 0; i < s->ndropins; i++)
        if (s->dropins[i].next[0] != '\0')
            printf("next:           %s\n", shown(s->dropins[i].next));
    print_containers(s);
}

/* items as a JSON array of what each writes (an object). */
static char *json_array(const struct status *s, size_t count, void (*one)(const struct status *, size_t, FILE *))
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (f == NULL)
        return NULL;
    fputc('[', f);
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            fputc(',', f);
        one(s, i, f);
    }
    fputc(']', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void json_line(const struct status *s, size_t i, FILE *f)
{
    fprintf(f, "{\"line\":%ld,\"text\":", s->lines[i].number);
    afx_json_quote(f, s->lines[i].text);
    fputc('}', f);
}

static void json_dropin(const struct status *s, size_t i, FILE *f)
{
    const struct dropin *d = &s->dropins[i];
    fputs("{\"unit\":", f);
    afx_json_quote(f, d->unit);
    fputs(",\"path\":", f);
    afx_json_quote(f, d->path);
    fputs(",\"systemd\":", f);
    afx_json_quote(f, d->systemd);
    fputs(",\"next\":", f);
    afx_json_quote(f, d->next[0] != '\0' ? d->next : NULL);
    /* null where not looked for (--root); the first ones, and how many. */
    fputs(",\"not_reached\":", f);
    if (!d->looked) {
        fputs("null,\"not_reached_count\":null", f);
    } else {
        fputc('[', f);
        for (size_t k = 0; k < d->ncontained && k < CONTAINED_NAMED; k++)
            fprintf(f, "%s%ld", k > 0 ? "," : "", d->contained[k]);
        fprintf(f, "],\"not_reached_count\":%zu", d->ncontained);
    }
    fputc('}', f);
}

/* The commands to run next, as a JSON array. */
static char *json_steps(const struct status *s)
{
    char *buf = NULL;
    size_t size = 0, n = 0;
    FILE *f = open_memstream(&buf, &size);
    if (f == NULL)
        return NULL;
    fputc('[', f);
    for (size_t i = 0; i < s->ndropins; i++)
        if (s->dropins[i].next[0] != '\0') {
            fputs(n++ > 0 ? "," : "", f);
            afx_json_quote(f, s->dropins[i].next);
        }
    fputc(']', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* A path under the tree, as JSON. */
static void json_path(const struct status *s, const char *rel, FILE *f)
{
    char path[2 * PATH_MAX];
    afx_json_quote(f, afx_root_path(&s->root, rel, path, sizeof path));
}

static void json_hook(const struct status *s, size_t i, FILE *f)
{
    json_path(s, s->fixes.hooks[i], f);
}

static void json_cdi(const struct status *s, size_t i, FILE *f)
{
    json_path(s, s->fixes.cdi[i], f);
}

static void json_runtime(const struct status *s, size_t i, FILE *f)
{
    json_path(s, s->fixes.runtimes[i], f);
}

static void json_containers(struct afx_json *j, const struct status *s)
{
    const struct afx_container_fixes *f = &s->fixes;
    char *hooks = json_array(s, f->nhooks, json_hook), *cdi = json_array(s, f->ncdi, json_cdi);
    char *runtimes = json_array(s, f->nruntimes, json_runtime), log[2 * PATH_MAX];
    afx_json_raw(j, "oci_hooks", hooks != NULL ? hooks : "null");
    afx_json_str(j, "hook_log", afx_root_path(&s->root, f->log, log, sizeof log));
    afx_json_bool(j, "hook_log_exists", f->log_exists);
    afx_json_long(j, "hook_log_lines", f->log_lines);
    afx_json_str(j, "hook_log_last", f->log_exists ? f->log_last : NULL);
    afx_json_raw(j, "cdi_specs", cdi != NULL ? cdi : "null");
    afx_json_raw(j, "runtime_configs", runtimes != NULL ? runtimes : "null");
    free(hooks);
    free(cdi);
    free(runtimes);
}

static void print_json(const struct status *s, int exit_status)
{
    struct afx_json j;
    char *lines = json_array(s, s->nlines, json_line), *dropins = json_array(s, s->ndropins, json_dropin);
    char *steps = json_steps(s);
    afx_json_begin(&j, stdout);
    afx_json_str(&j, "version", AFX_VERSION);
    afx_json_str(&j, "root", s->root_option ? (s->root.host ? "/" : s->root.shown) : NULL);
    afx_json_str(&j, "library", s->have_lib ? s->lib.file : NULL);
    afx_json_str(&j, "library_found_by", s->have_lib ? s->lib.found_by : NULL);
    afx_json_str(&j, "preload_entry", s->have_lib ? s->lib.preload : NULL);
    afx_json_str(&j, "glibc", s->probed ? s->probe.pinned_run.glibc : NULL);
    afx_json_str(&j, "verdict", verdict_name(s));
    afx_json_str(&j, "ld_so_preload", s->preload_path);
    afx_json_bool(&j, "ld_so_preload_exists", s->preload_exists);
    afx_json_bool(&j, "ld_so_preload_names_library", s->nlines > 0);
    afx_json_raw(&j, "ld_so_preload_lines", lines != NULL ? lines : "null");
    afx_json_str(&j, "systemd", s->root_option ? "not asked" : s->asked ? "running" : "not running");
    afx_json_raw(&j, "dropins", dropins != NULL ? dropins : "null");
    json_containers(&j, s);
    afx_json_raw(&j, "next", steps != NULL ? steps : "null");
    afx_json_long(&j, "exit_status", exit_status);
    afx_json_end(&j);
    free(lines);
    free(dropins);
    free(steps);
}

static const char status_help[] =
    "Usage: arenafix status [--json] [--root DIR]\n"
    "What arenafix changed: the drop-ins arenafix enable wrote and whether systemd\n"
    "loaded them, /etc/ld.so.preload, the library, the host's glibc, and what gives\n"
    "containers the fix: the OCI hook's hooks.d entry and what it last logged, CDI\n"
    "specs, and engines configured with arenafix-runtime.  A unit with a drop-in\n"
    "that runs processes in a root of their own (a container) is named: not reached.\n"
    "\n"
    "Options:\n"
    "  -j, --json       one JSON object, for a script\n"
    "  -r, --root DIR   the image under DIR (systemd not asked, glibc not probed)\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix status                   what is enabled here, and what to do next\n"
    "  arenafix status --json            the same, for a script\n"
    "  arenafix status --root /srv/img   what an image will boot with\n"
    "\n"
    "Exit status: 0 everything read, 1 something could not be, 2 usage error.\n"
    "See arenafix-status(1).\n";

static void probe_host(struct status *s)
{
    struct afx_host h;
    char err[512];
    struct afx_glibc g = { 0 };
    afx_host_read(&h);
    if (h.online < 1) {
        afx_error("status: cannot read /sys/devices/system/cpu/online; mount sysfs and retry");
        s->failed = true;
    } else if (!afx_probe_glibc(&g, h.online, NULL, &s->probe, err, sizeof err)) {
        afx_error("status: probe: %s", err);
        s->failed = true;
    } else {
        s->probed = true;
    }
}

int afx_cmd_status(int argc, char **argv)
{
    static const struct option options[] = {
        { "json", no_argument, NULL, 'j' },
        { "root", required_argument, NULL, 'r' },
        { 0 },
    };
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(status_help, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        }
    struct status s = { 0 };
    const char *root = NULL;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:jr:", options, NULL)) != -1) {
        if (c == 'j')
            s.json = true;
        else if (c == 'r')
            root = optarg;
        else
            afx_usage_error("status: %s %s; usage: arenafix status [--json] [--root DIR] (see arenafix status --help)",
                            c == ':' ? "missing value for" : "unknown option", argv[optind - 1]);
    }
    if (optind < argc)
        afx_usage_error("status: unexpected argument %s; usage: arenafix status [--json] [--root DIR]", argv[optind]);
    s.root_option = root != NULL;
    int rc = afx_root_open(&s.root, root, "status: --root");
    if (rc != AFX_EXIT_OK)
        return rc;
    s.asked = !s.root_option && afx_systemd_running(&s.root);
    s.have_lib = afx_find_library(&s.lib);
    s.failed = !s.have_lib;
    if (!s.root_option)
        probe_host(&s);
    read_preload_file(&s);
    find_dropins(&s);
    afx_container_fixes_read(&s.root, &s.fixes);
    rc = s.failed ? AFX_EXIT_FAIL : AFX_EXIT_OK;
    if (s.json)
        print_json(&s, rc);
    else
        print_text(&s);
    afx_root_close(&s.root);
    free(s.lines);
    free(s.dropins);
    return fflush(stdout) == 0 ? rc : AFX_EXIT_FAIL;
}
