/* arenafix inspect --all: every process on the host, read as inspect
 * reads one (procreport.h), but nothing is ever run for a process: its
 * glibc is judged by what its mapped libc.so.6 says (its version), or
 * by one probe of the host's own glibc, run as "arenafix probe" runs it,
 * when the process maps that very file.  Root runs this over other
 * users' processes: each may lie about itself, vanish, or refuse to be
 * read, and none of that stops the scan. */
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "denied.h"
#include "escape.h"
#include "fixes.h"
#include "target/hostglibc.h"
#include "glibcprobe/glibctrust.h"
#include "json.h"
#include "library.h"
#include "files/outfile.h"
#include "proc/mappedfile.h"
#include "glibcprobe/probe.h"
#include "target/procreport.h"
#include "prometheus.h"
#include "proc/procstatus.h"
#include "target/proctable.h"
#include "readfile.h"
#include "selfexe.h"
#include "usertime.h"

/* What became of each process.  Listed: a verdict, or unreadable. */
struct tally {
    long processes;
    long verdict[AFX_HEALTHS];  /* by enum afx_health */
    long fixed;                 /* of the fine: libarenafix active */
    long unreadable;
    long folded;                /* of those, not listed: a user's, no permission */
    long gone;                  /* exited before or while it was read */
    long single;                /* glibc, one thread, fine, no libarenafix */
    long kernel;
    long no_glibc;              /* static, another libc, a zombie's empty map */
    long other_malloc;          /* jemalloc, tcmalloc, mimalloc */
};

struct scan {
    enum afx_scan_format format;
    bool json;                          /* format is JSON */
    struct afx_access_facts access;    /* why root may not read one */
    struct afx_fixes fixes;
    struct afx_prom prom;               /* with --prometheus */
    struct afx_host host;
    struct afx_host_glibc glibc;
    struct tally t;
    long listed;
    struct afx_user_time users;         /* what each user's processes cost */
};

/* One process at a time: the report is large (its maps). */
static struct afx_report report;

/* s escaped for the terminal; four buffers in turn, for one printf. */
static const char *esc(const char *s)
{
    static char buf[4][AFX_ESCAPED_SIZE(PATH_MAX)];
    static int next;
    return afx_escape(s, buf[next++ % 4], sizeof buf[0]);
}

/* Wide enough for most services' names; a longer one pushes the rest. */
#define UNIT_COLUMN "%-24s"

static void text_header(void)
{
    printf("%7s  %-10s %7s %6s %6s  %-7s %-8s " UNIT_COLUMN " %s\n", "PID", "VERDICT", "THREADS", "PINNED", "ARENAS",
           "GLIBC", "ARENAFIX", "UNIT", "NAME (EXECUTABLE): REASON");
}

/* Its unit for the UNIT column, escaped: "-" if none. */
static const char *unit_column(const struct afx_report *r)
{
    static char column[AFX_ESCAPED_SIZE(AFX_UNIT_MAX) + 16];
    /* A container by its engine's name for it (ID and name are of
     * characters that need no escape). */
    if (r->container.engine[0] != '\0' && r->container.pod_name[0] != '\0') {
        /* A pod's as kubectl names it (names the API server accepted). */
        snprintf(column, sizeof column, "%s:%.12s:%s/%s%s%s", r->container.engine, r->container.id,
                 r->container.pod_ns, r->container.pod_name, r->container.pod_container[0] ? "/" : "",
                 r->container.pod_container);
        return column;
    }
    if (r->container.engine[0] != '\0') {
        snprintf(column, sizeof column, "%s:%.12s%s%s", r->container.engine, r->container.id,
                 r->container.name[0] ? ":" : "", r->container.name);
        return column;
    }
    if (r->container.userns) {
        snprintf(column, sizeof column, "rootless:uid=%u", r->container.owner);
        return column;
    }
    if (r->unit.name[0] == '\0')
        return "-";
    /* Not esc(): its four buffers are the row's other columns. */
    afx_escape(r->unit.name, column, AFX_ESCAPED_SIZE(AFX_UNIT_MAX));
    if (r->unit.user)
        strcat(column, " (user)");
    return column;
}

/* Objects of the array after the first start with a comma. */
static void json_next(struct scan *s)
{
    if (s->listed++ > 0)
        putchar(',');
}

static void list_unreadable(struct scan *s, const struct afx_report *r, const char *why)
{
    s->t.unreadable++;
    if (s->format == AFX_SCAN_PROMETHEUS)
        return;
    if (!s->json) {
        s->listed++;
        printf("%7ld  %-10s %7s %6s %6s  %-7s %-8s " UNIT_COLUMN " %s (%s): %s\n", r->pid, "unreadable", "-", "-",
               "-", "-", "-", "-", esc(r->name), esc(r->exe[0] ? r->exe : "?"), esc(why));
        return;
    }
    json_next(s);
    afx_report_json_unreadable(r, why, stdout);
}

static void list_judged(struct scan *s, const struct afx_report *r)
{
    s->t.verdict[r->health]++;
    if (afx_report_fixed(r))
        s->t.fixed++;
    if (s->format == AFX_SCAN_PROMETHEUS) {
        afx_prom_add(&s->prom, r);
        return;
    }
    afx_fixes_add(&s->fixes, r);
    if (s->json) {
        json_next(s);
        char **cmd = afx_fix_command(r);
        afx_report_json(r, cmd, stdout);
        free(cmd);
        return;
    }
    s->listed++;
    char threads[24] = "-", pinned[24] = "-", arenas[24] = "-";
    bool whole = r->unread[0] == '\0';
    if (whole) {
        snprintf(threads, sizeof threads, "%ld", r->threads.count);
        snprintf(pinned, sizeof pinned, "%ld", r->threads.narrowed);
        snprintf(arenas, sizeof arenas, "%ld", r->exact > 0 ? r->exact : r->maps.heaps + 1);
    }
    printf("%7ld  %-10s %7s %6s %6s  %-7s %-8s " UNIT_COLUMN " %s (%s): %s\n", r->pid, afx_health_names[r->health],
           threads, pinned, arenas, esc(r->glibc),
           whole && r->maps.arenafix ? afx_mode_name(r->env.arenafix.mode) : "-",
           unit_column(r), esc(r->name), esc(r->exe[0] ? r->exe : "?"), esc(r->why));
}

static bool is_kernel_thread(long pid, int *err)
{
    char path[64];
    unsigned long flags;
    afx_proc_path(path, sizeof path, pid, "/stat");
    char *stat = afx_slurp_max(path, 64L << 10, NULL, NULL);
    *err = stat == NULL ? errno : 0;
    bool kernel = stat != NULL && afx_stat_flags(stat, &flags) && (flags & AFX_PF_KTHREAD) != 0;
    free(stat);
    return kernel;
}

static bool gone(int err)
{
    return err == ENOENT || err == ESRCH;
}

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Its real user ID, the one its owner cannot shed: its status, read
 * once a run (proctable.h). */
static bool real_uid(long pid, uid_t *uid)
{
    struct afx_proc_entry *e = afx_proc_entry(pid, NULL);
    if (e == NULL || e->err != 0 || e->uid < 0)
        return false;
    *uid = (uid_t)e->uid;
    return true;
}

/* A process of a user whose processes have had their time: named, not
 * read, cannot tell. */
static void list_skipped(struct scan *s, struct afx_report *r, uid_t uid)
{
    char why[200];
    snprintf(why, sizeof why, "the processes of uid %lu took longer than %d s in all to read, more than inspect "
             "spends on one user's: not read", (unsigned long)uid, AFX_USER_SECONDS);
    afx_report_skip(r, why);
    bool exited = afx_report_exited(r);
    afx_report_close(r);
    if (exited) {
        s->t.gone++;
        return;
    }
    afx_report_judge(r);
    list_judged(s, r);
}

static void scan_one(struct scan *s, long pid)
{
    struct afx_report *r = &report;
    const char *what = "stat";
    char why[600];
    int err;
    s->t.processes++;
    afx_report_reset(r, pid, &s->host);
    if (is_kernel_thread(pid, &err)) {
        s->t.kernel++;
        return;
    }
    uid_t uid;
    bool owned = err == 0 && real_uid(pid, &uid);
    if (owned && afx_user_time_spent(&s->users, uid)) {
        list_skipped(s, r, uid);
        return;
    }
    double started = seconds(CLOCK_MONOTONIC);
    if (err == 0)
        err = afx_report_read(r, &what);
    if (owned)
        afx_user_time_add(&s->users, uid, seconds(CLOCK_MONOTONIC) - started);
    bool exited = gone(err) || afx_report_exited(r);
    afx_report_close(r);
    if (exited) {
        s->t.gone++;
        return;
    }
    if (err != 0) {
        bool denied = err == EACCES || err == EPERM;
        /* A user cannot read others' processes: one line says how many
         * (the JSON, for scripts, keeps them all).  Root's are worth a
         * row each: something other than ownership stops it. */
        if (denied && !s->access.root && !s->json) {
            s->t.unreadable++;
            s->t.folded++;
            return;
        }
        char cause[400];
        afx_denied_reason(&s->access, what, false, cause, sizeof cause);
        if (denied)
            snprintf(why, sizeof why, "no permission to read /proc/%ld/%s; %s", pid, what,
                     s->access.root ? cause : "run as root");
        else
            snprintf(why, sizeof why, "cannot read /proc/%ld/%s: %s", pid, what, strerror(err));
        list_unreadable(s, r, why);
        return;
    }
    /* One not read whole is listed whatever the part read says: an
     * attacker's, or one an operator needs to look at. */
    bool whole = r->unread[0] == '\0';
    /* A static glibc program is judged by its arenas, as any other; so
     * is one whose executable was not read, which may be one. */
    if (whole && r->maps.libc.path[0] == '\0' && r->libc_kind != AFX_LIBC_STATIC_GLIBC && !r->exe_unread) {
        s->t.no_glibc++;
        return;
    }
    if (whole && r->maps.foreign[0] != '\0') {
        s->t.other_malloc++;
        return;
    }
    afx_judge_glibc_unrun(r, &s->glibc);
    afx_report_judge(r);
    /* A lone unpinned thread without the library: no arena to share. */
    if (whole && (r->health == AFX_FINE || r->health == AFX_UNDETERMINED) && r->threads.count <= 1
        && !r->maps.arenafix) {
        s->t.single++;
        return;
    }
    list_judged(s, r);
}

static int worst_status(const struct tally *t)
{
    return t->verdict[AFX_HIT] > 0            ? AFX_EXIT_AFFECTED
           : t->verdict[AFX_AT_RISK] > 0      ? AFX_EXIT_AT_RISK
           : t->verdict[AFX_UNDETERMINED] > 0 ? AFX_EXIT_UNKNOWN
                                              : AFX_EXIT_OK;
}

static void summary(struct scan *s, int status)
{
    const struct tally *t = &s->t;
    if (!s->json) {
        if (t->folded > 0)
            printf("not listed: %ld processes this user may not read; run as root (sudo arenafix inspect --all) "
                   "to see them\n", t->folded);
        printf("summary: hit %ld, at risk %ld, cannot tell %ld, fine %ld (fixed by libarenafix %ld), unreadable %ld; "
               "not listed: gone %ld, single-threaded %ld, kernel threads %ld, no glibc %ld, other malloc %ld; "
               "processes %ld\n",
               t->verdict[AFX_HIT], t->verdict[AFX_AT_RISK], t->verdict[AFX_UNDETERMINED], t->verdict[AFX_FINE], t->fixed,
               t->unreadable,
               t->gone, t->single, t->kernel, t->no_glibc, t->other_malloc, t->processes);
        printf("host glibc: %s, %s\n", afx_glibc_state_name(s->glibc.state), esc(s->glibc.note));
        afx_fixes_print(&s->fixes, stdout);
        return;
    }
    struct afx_json j;
    fputs("],\"summary\":", stdout);
    afx_json_begin(&j, stdout);
    afx_json_long(&j, "exit_status", status);
    afx_json_long(&j, "processes", t->processes);
    afx_json_long(&j, "listed", s->listed);
    afx_json_long(&j, "hit", t->verdict[AFX_HIT]);
    afx_json_long(&j, "at_risk", t->verdict[AFX_AT_RISK]);
    afx_json_long(&j, "cannot_tell", t->verdict[AFX_UNDETERMINED]);
    afx_json_long(&j, "fine", t->verdict[AFX_FINE]);
    afx_json_long(&j, "fixed", t->fixed);
    afx_json_long(&j, "unreadable", t->unreadable);
    afx_json_long(&j, "gone", t->gone);
    afx_json_long(&j, "single_threaded", t->single);
    afx_json_long(&j, "kernel_threads", t->kernel);
    afx_json_long(&j, "no_glibc", t->no_glibc);
    afx_json_long(&j, "other_malloc", t->other_malloc);
    afx_json_long(&j, "online_cpus", s->host.online);
    afx_json_str(&j, "host_glibc_state", afx_glibc_state_name(s->glibc.state));
    afx_json_str(&j, "host_glibc_note", s->glibc.note);
    afx_json_end(&j);
    fputs("}\n", stdout);
}

/* A /proc entry that is a process: digits only, a PID's range. */
static long pid_of(const char *name)
{
    char *end;
    if (name[0] < '1' || name[0] > '9')
        return -1;
    errno = 0;
    long pid = strtol(name, &end, 10);
    return *end == '\0' && errno == 0 && pid <= 0x3fffffff ? pid : -1;
}

/* The metrics, to out; the scan's status, or a failure if they could
 * not be written. */
static int write_prometheus(struct scan *s, int status, double started, FILE *out, struct afx_outfile *file)
{
    struct afx_library lib;
    struct afx_prom_facts f = {
        .glibc_version = s->glibc.version,
        .glibc_state = s->glibc.state,
        .library = afx_find_library(&lib) ? lib.file : NULL,
        .fixed = s->t.fixed,
        .unreadable = s->t.unreadable,
    };
    memcpy(f.verdict, s->t.verdict, sizeof f.verdict);
    f.timestamp = seconds(CLOCK_REALTIME);
    f.duration = seconds(CLOCK_MONOTONIC) - started;
    bool written = afx_prom_write(&s->prom, &f, out);
    if (file != NULL)
        return afx_outfile_commit(file) ? status : AFX_EXIT_FAIL;
    if (!written || fflush(out) != 0) {
        afx_error("cannot write the metrics to stdout: %s", strerror(errno));
        return AFX_EXIT_FAIL;
    }
    return status;
}

int afx_inspect_all(enum afx_scan_format format, bool probe_host_glibc, const char *output)
{
    static struct scan s;
    static struct afx_outfile file;
    double started = seconds(CLOCK_MONOTONIC);
    FILE *out = stdout;
    s.format = format;
    s.json = format == AFX_SCAN_JSON;
    /* Before the scan: a file that cannot be made fails at once. */
    if (output != NULL && (out = afx_outfile_open(&file, output, 0)) == NULL)
        return AFX_EXIT_FAIL;
    afx_access_facts_read(&s.access);
    afx_host_read(&s.host);
    afx_host_glibc_probe(&s.glibc, &s.host, probe_host_glibc);

    DIR *d = opendir("/proc");
    if (d == NULL) {
        afx_error("cannot read /proc: %s; mount it (mount -t proc proc /proc)", strerror(errno));
        if (output != NULL)
            afx_outfile_abandon(&file);
        return AFX_EXIT_FAIL;
    }
    if (format == AFX_SCAN_JSON)
        fputs("{\"processes\":[\n", stdout);
    else if (format == AFX_SCAN_TEXT)
        text_header();
    long self = (long)getpid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        long pid = pid_of(e->d_name);
        if (pid > 0 && pid != self)
            scan_one(&s, pid);
    }
    closedir(d);
    afx_user_time_free(&s.users);
    int status = worst_status(&s.t);
    if (format == AFX_SCAN_PROMETHEUS)
        return write_prometheus(&s, status, started, out, output != NULL ? &file : NULL);
    summary(&s, status);
    return fflush(stdout) == 0 ? status : AFX_EXIT_FAIL;
}
