/* arenafix inspect --all --prometheus: what node_exporter's textfile
 * collector serves.  A hit process must show as a series of its unit
 * and command name, a name the process chose must not break a line of
 * the format, promtool must accept the whole, and --output must replace
 * the file whole, never through a link someone put there. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "inspect/prometheus.h"

/* Each metric the monitoring documents (docs/rollout.md) name. */
static const char *const metrics[] = {
    "arenafix_info", "arenafix_glibc_affected", "arenafix_library_installed", "arenafix_processes", "arenafix_processes_fixed",
    "arenafix_process_verdict", "arenafix_scan_timestamp_seconds", "arenafix_scan_duration_seconds",
};

/* A label value between its quotes: the format's escapes only. */
static const char *label_value_end(const char *p)
{
    for (; *p != '"'; p++) {
        if (*p == '\0' || *p == '\n')
            return NULL;
        if (*p == '\\' && p[1] != '\\' && p[1] != '"' && p[1] != 'n')
            return NULL;
        if (*p == '\\')
            p++;
    }
    return p;
}

/* One sample line, NAME{a="x",...} VALUE, as the format defines it;
 * false for anything else (a line a process's name made). */
static bool sample_line(const char *line, size_t len)
{
    const char *p = line, *end = line + len;
    if (strncmp(p, "arenafix_", 9) != 0)
        return false;
    p += strspn(p, "abcdefghijklmnopqrstuvwxyz_");
    if (*p == '{') {
        for (p++; *p != '}';) {
            size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
            if (n == 0 || p[n] != '=' || p[n + 1] != '"')
                return false;
            if ((p = label_value_end(p + n + 2)) == NULL || p >= end)
                return false;
            p++;
            if (*p == ',')
                p++;
        }
        p++;
    }
    char *num;
    if (*p != ' ')
        return false;
    strtod(p + 1, &num);
    return num == end && num > p + 1;
}

/* Every line is a HELP, a TYPE or a sample, and each metric has its
 * HELP and TYPE. */
static void well_formed(const char *out)
{
    for (const char *line = out; *line != '\0';) {
        size_t len = strcspn(line, "\n");
        bool ok = strncmp(line, "# HELP arenafix_", 16) == 0 || strncmp(line, "# TYPE arenafix_", 16) == 0
                  || sample_line(line, len);
        ck_assert_msg(ok && line[len] == '\n', "not a line of the format: \"%.*s\"\n%s", (int)len, line, out);
        line += len + 1;
    }
    for (size_t i = 0; i < sizeof metrics / sizeof metrics[0]; i++) {
        char help[128], type[128];
        snprintf(help, sizeof help, "# HELP %s ", metrics[i]);
        snprintf(type, sizeof type, "\n# TYPE %s gauge\n", metrics[i]);
        ck_assert_msg(strstr(out, help) != NULL && strstr(out, type) != NULL, "no HELP or TYPE for %s:\n%s",
                      metrics[i], out);
    }
}

/* promtool, as Prometheus's own lint, accepts it; skipped without it. */
static void promtool_accepts(const char *test, const char *out)
{
    struct run r;
    if (run(&r, NULL, ARGV("sh", "-c", "command -v promtool")) != 0) {
        printf("SKIP %s (promtool part): no promtool (Debian's package prometheus)\n", test);
        run_free(&r);
        return;
    }
    run_free(&r);
    char path[] = "/tmp/arenafix-prom-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert(write(fd, out, strlen(out)) == (ssize_t)strlen(out));
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "promtool check metrics < %s", path);
    int status = run(&r, NULL, ARGV("sh", "-c", cmd));
    unlink(path);
    ck_assert_msg(status == 0, "promtool check metrics: %s%s\n%s", r.out, r.err, out);
    run_free(&r);
}

/* The affected glibc's loader under the name comm (a link: the kernel
 * names a process after the path it was started by), in a directory of
 * its own made in dir. */
static void link_loader(const char *g, const char *comm, char *dir, char *path)
{
    ck_assert(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    snprintf(path, PATH_MAX, "%s/%s", dir, comm);
    ck_assert_msg(symlink(affected_loader(g), path) == 0, "%s: %s", path, strerror(errno));
}

/* arenawait's 30 pinned threads on the affected glibc, named comm: the
 * bug's 9 arenas.  False, having said why, where it cannot run. */
static bool start_hit_named(struct live *l, const char *test, const char *comm, char *dir, char *link)
{
    if (skip_emulated(test, EMULATED_PROC))
        return false;
    const char *g = affected_glibc(test);
    if (g == NULL)
        return false;
    link_loader(g, comm, dir, link);
    live_start(l, NULL, ARGV(link, "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    ck_assert_int_eq(l->arenas, 9);
    return true;
}

static void stop_named(struct live *l, const char *dir, const char *link)
{
    live_stop(l);
    unlink(link);
    rmdir(dir);
}

/* A hit process is one series of its unit and name, never its PID; it
 * counts among the hit, and the status says hit. */
START_TEST(hit_process_is_a_series)
{
    char comm[16], dir[] = "/tmp/arenafix-prom-XXXXXX", link[PATH_MAX];
    snprintf(comm, sizeof comm, "afxhit%d", (int)getpid() % 1000000);
    struct live l;
    if (!start_hit_named(&l, __func__, comm, dir, link))
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus"));
    stop_named(&l, dir, link);

    ck_assert_status(&r, 3);
    well_formed(r.out);
    char want[64], pid[32];
    snprintf(want, sizeof want, ",comm=\"%s\",verdict=\"hit\"} 1\n", comm);
    const char *series = strstr(r.out, want);
    ck_assert_msg(series != NULL, "no series %s:\n%s", want, r.out);
    ck_assert_msg(strstr(r.out, "\narenafix_process_verdict{unit=\"") != NULL, "%s", r.out);
    snprintf(pid, sizeof pid, "\"%d\"", (int)l.pid);
    ck_assert_msg(strstr(r.out, pid) == NULL, "a label holds the PID:\n%s", r.out);
    long hit = 0;
    const char *count = strstr(r.out, "\narenafix_processes{verdict=\"hit\"} ");
    ck_assert_msg(count != NULL && sscanf(count, "\narenafix_processes{verdict=\"hit\"} %ld", &hit) == 1 && hit >= 1,
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "\narenafix_info{version=\"" AFX_VERSION "\",glibc_version=\"") != NULL
                      && strstr(r.out, "\",library=\"/") != NULL && strstr(r.out, "libarenafix.so\"} 1\n") != NULL,
                  "%s", r.out);
    ck_assert_msg(strstr(r.out, "\narenafix_library_installed 1\n") != NULL, "%s", r.out);
    promtool_accepts(__func__, r.out);
    run_free(&r);
}
END_TEST

/* A name with a double quote, backslashes and a newline (its comm, as
 * the kernel keeps it) is one escaped label value, as the text report
 * shows it; no line of the file is the process's to write. */
START_TEST(hostile_comm_cannot_break_the_format)
{
    static const char comm[] = "q\"r\\s\nx} 1\n#";
    char dir[] = "/tmp/arenafix-prom-XXXXXX", link[PATH_MAX];
    struct live l;
    if (!start_hit_named(&l, __func__, comm, dir, link))
        return;
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe"));
    stop_named(&l, dir, link);

    ck_assert_status(&r, 3);
    well_formed(r.out);
    /* Shown as "q"r\\s\012x} 1\012#", then escaped for the format. */
    static const char want[] = ",comm=\"q\\\"r\\\\\\\\s\\\\012x} 1\\\\012#\",verdict=\"hit\"} 1\n";
    ck_assert_msg(strstr(r.out, want) != NULL, "want %s in:\n%s", want, r.out);
    promtool_accepts(__func__, r.out);
    run_free(&r);
}
END_TEST

/* --output replaces the file whole: mode 0644 for the collector's user,
 * a link planted at its name replaced (its target untouched), nothing
 * left beside it; a directory that is not there fails in one line. */
START_TEST(output_replaces_the_file)
{
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX], target[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    snprintf(target, sizeof target, "%s/target", dir);
    FILE *t = fopen(target, "w");
    ck_assert(t != NULL && fputs("untouched\n", t) >= 0 && fclose(t) == 0);
    ck_assert(symlink(target, file) == 0);

    struct run r;
    int status = run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe", "--output", file));
    ck_assert_msg(status == 0 || (status >= 3 && status <= 5), "exit %d: %s", status, r.err);
    ck_assert_str_eq(r.out, "");
    run_free(&r);

    struct stat st;
    ck_assert(lstat(file, &st) == 0 && S_ISREG(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    char buf[256 << 10];
    FILE *f = fopen(file, "r");
    ck_assert(f != NULL);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    well_formed(buf);
    f = fopen(target, "r");
    ck_assert(f != NULL && fgets(buf, sizeof buf, f) != NULL);
    fclose(f);
    ck_assert_str_eq(buf, "untouched\n");
    unlink(file);
    unlink(target);
    ck_assert_msg(rmdir(dir) == 0, "something left beside the file: %s", strerror(errno));

    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--output", file));
    ck_assert_status(&r, 1);
    ck_assert_msg(strncmp(r.err, "arenafix: --output ", 19) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                  "%s", r.err);
    run_free(&r);
}
END_TEST

/* Whoever owns a directory on the way to FILE (Debian's prometheus user
 * owns /var/lib/prometheus) may swap the next one for a link to /etc:
 * root's scan must not write through it. */
START_TEST(output_follows_no_link_on_the_way)
{
    char dir[] = "/tmp/arenafix-prom-XXXXXX", elsewhere[64], link[64], file[128];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(elsewhere, sizeof elsewhere, "%s/etc", dir);
    snprintf(link, sizeof link, "%s/node-exporter", dir);
    ck_assert(mkdir(elsewhere, 0755) == 0 && symlink("etc", link) == 0);
    snprintf(file, sizeof file, "%s/arenafix.prom", link);

    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe", "--output", file));
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, "node-exporter on its way is a symbolic link") != NULL, "%s", r.err);
    run_free(&r);
    ck_assert_msg(rmdir(elsewhere) == 0, "written through the link: %s", strerror(errno));
    unlink(link);
    ck_assert(rmdir(dir) == 0);
}
END_TEST

/* ---- the writer, called directly --------------------------------------- */

static struct afx_report report;

/* One judged process, as the scan hands it over. */
static void add(struct afx_prom *p, enum afx_health h, const char *unit, bool user, const char *comm, long uid)
{
    memset(&report, 0, sizeof report);
    report.health = h;
    snprintf(report.unit.name, sizeof report.unit.name, "%s", unit);
    report.unit.user = user;
    snprintf(report.name, sizeof report.name, "%s", comm);
    report.uid = uid;
    afx_prom_add(p, &report);
}

/* What afx_prom_write writes, malloc'd; checked well formed. */
static char *written(struct afx_prom *p, const struct afx_prom_facts *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert(out != NULL);
    ck_assert(afx_prom_write(p, f, out));
    ck_assert(fclose(out) == 0);
    well_formed(buf);
    return buf;
}

/* line (without its newline) is a whole line of out, n times. */
static int lines_of(const char *out, const char *line)
{
    int n = 0;
    size_t len = strlen(line);
    for (const char *p = out; (p = strstr(p, line)) != NULL; p += len)
        if ((p == out || p[-1] == '\n') && p[len] == '\n')
            n++;
    return n;
}

/* (check's messages are short: the first lines of out.) */
#define ck_assert_line(out, line) \
    ck_assert_msg(lines_of(out, line) == 1, "want the line %s once in:\n%.3000s", line, out)

/* Every gauge from the facts it is given: each verdict's count apart,
 * the glibc's state as 1 only when it is known affected, the scan's
 * time as it was given. */
START_TEST(writer_gauges)
{
    static struct afx_prom p;
    struct afx_prom_facts f = {
        .glibc_version = "2.36", .glibc_state = AFX_GLIBC_AFFECTED, .library = "/usr/lib/arenafix/libarenafix.so",
        .verdict = { [AFX_HIT] = 7, [AFX_AT_RISK] = 5, [AFX_UNDETERMINED] = 3, [AFX_FINE] = 11 },
        .fixed = 4, .unreadable = 2, .timestamp = 1700000000.25, .duration = 1.5,
    };
    char *out = written(&p, &f);
    ck_assert_line(out, "arenafix_info{version=\"" AFX_VERSION
                        "\",glibc_version=\"2.36\",library=\"/usr/lib/arenafix/libarenafix.so\"} 1");
    ck_assert_line(out, "arenafix_glibc_affected{state=\"affected\"} 1");
    ck_assert_line(out, "arenafix_library_installed 1");
    ck_assert_line(out, "arenafix_processes{verdict=\"hit\"} 7");
    ck_assert_line(out, "arenafix_processes{verdict=\"at_risk\"} 5");
    ck_assert_line(out, "arenafix_processes{verdict=\"cannot_tell\"} 3");
    ck_assert_line(out, "arenafix_processes{verdict=\"fine\"} 11");
    ck_assert_line(out, "arenafix_processes{verdict=\"unreadable\"} 2");
    ck_assert_line(out, "arenafix_processes_fixed 4");
    ck_assert_line(out, "arenafix_scan_timestamp_seconds 1700000000.250");
    ck_assert_line(out, "arenafix_scan_duration_seconds 1.500");
    ck_assert_msg(strstr(out, "arenafix_process_verdict{") == NULL, "%s", out);
    free(out);

    f.glibc_state = AFX_GLIBC_UNKNOWN;
    f.library = NULL;
    out = written(&p, &f);
    ck_assert_line(out, "arenafix_info{version=\"" AFX_VERSION "\",glibc_version=\"2.36\",library=\"\"} 1");
    ck_assert_line(out, "arenafix_glibc_affected{state=\"unknown\"} 0");
    ck_assert_line(out, "arenafix_library_installed 0");
    free(out);
    f.glibc_state = AFX_GLIBC_FIXED;
    f.glibc_version = "2.39";
    out = written(&p, &f);
    ck_assert_line(out, "arenafix_glibc_affected{state=\"not_affected\"} 0");
    ck_assert_line(out, "arenafix_info{version=\"" AFX_VERSION "\",glibc_version=\"2.39\",library=\"\"} 1");
    /* No version anywhere but in the _info metric: an upgrade changes
     * no series an alert compares. */
    for (const char *v = out; (v = strstr(v, "version=")) != NULL; v++) {
        const char *line = v;
        while (line > out && line[-1] != '\n')
            line--;
        ck_assert_msg(strncmp(line, "arenafix_info{", 14) == 0, "a version outside arenafix_info: %.80s", line);
    }
    free(out);
}
END_TEST

/* A series per (unit, name, verdict): a hit and an at-risk process of
 * the same unit and name are two (the hit alert must see the hit one);
 * fine and cannot-tell processes are no series. */
START_TEST(writer_series_by_verdict)
{
    static struct afx_prom p;
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    add(&p, AFX_HIT, "db.service", false, "postgres", 0);
    add(&p, AFX_AT_RISK, "db.service", false, "postgres", 0);
    add(&p, AFX_HIT, "db.service", false, "postgres", 0);
    add(&p, AFX_AT_RISK, "app.service", true, "worker", 1000);
    add(&p, AFX_FINE, "db.service", false, "postgres", 0);
    add(&p, AFX_UNDETERMINED, "db.service", false, "postgres", 0);
    add(&p, AFX_HIT, "", false, "batch", 0);
    char *out = written(&p, &f);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"db.service\",comm=\"postgres\",verdict=\"hit\"} 2");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"db.service\",comm=\"postgres\",verdict=\"at_risk\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"app.service (user)\",comm=\"worker\",verdict=\"at_risk\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"\",comm=\"batch\",verdict=\"hit\"} 1");
    size_t series = 0;
    for (const char *s = out; (s = strstr(s, "\narenafix_process_verdict{")) != NULL; s++)
        series++;
    ck_assert_msg(series == 4, "%zu series:\n%s", series, out);
    free(out);
    /* Written, it starts again empty. */
    out = written(&p, &f);
    ck_assert_msg(strstr(out, "arenafix_process_verdict{") == NULL, "%s", out);
    free(out);
}
END_TEST

/* The series lines of out, each "unit\tcomm\tverdict\tcount", sorted;
 * their number in *n. */
struct series_line {
    char labels[2 * AFX_PROM_LABEL_SIZE + 32];
    long count;
};

static size_t series_of(const char *out, struct series_line *list, size_t max)
{
    size_t n = 0;
    static const char key[] = "\narenafix_process_verdict{";
    for (const char *s = out; (s = strstr(s, key)) != NULL; s++) {
        ck_assert(n < max);
        const char *end = strchr(s + sizeof key - 1, '}');
        ck_assert(end != NULL);
        snprintf(list[n].labels, sizeof list[n].labels, "%.*s", (int)(end - s - (sizeof key - 1)),
                 s + sizeof key - 1);
        ck_assert(sscanf(end, "} %ld\n", &list[n].count) == 1);
        n++;
    }
    return n;
}

static int count_of(const char *haystack, const char *needle)
{
    int n = 0;
    for (const char *p = haystack; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* Past the bound, exactly one (other) series per verdict takes the
 * rest; each process is counted once, no series written twice. */
START_TEST(writer_bound_folds_into_one_other)
{
    static struct afx_prom p;
    static struct series_line got[2 * AFX_PROM_SERIES_MAX];
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    long processes = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 300; i++) {
            char comm[16];
            snprintf(comm, sizeof comm, "w%03d", i);
            add(&p, AFX_HIT, "app.service", true, comm, 1000);
            add(&p, AFX_AT_RISK, "batch.service", false, comm, 1000);
            processes += 2;
        }
    char *out = written(&p, &f);
    size_t n = series_of(out, got, sizeof got / sizeof got[0]);
    ck_assert_msg(n == AFX_PROM_SERIES_MAX + 2, "%zu series:\n%.3000s", n, out);
    long total = 0;
    for (size_t i = 0; i < n; i++) {
        total += got[i].count;
        for (size_t k = 0; k < i; k++)
            ck_assert_msg(strcmp(got[i].labels, got[k].labels) != 0, "twice: %s", got[i].labels);
    }
    ck_assert_int_eq(total, processes);
    ck_assert_int_eq(count_of(out, "{unit=\"(other)\",comm=\"(other)\",verdict=\"hit\"}"), 1);
    ck_assert_int_eq(count_of(out, "{unit=\"(other)\",comm=\"(other)\",verdict=\"at_risk\"}"), 1);
    /* The hit before the at-risk (though of a user's unit, these of a
     * system service), then by name. */
    ck_assert_line(out, "arenafix_process_verdict{unit=\"app.service (user)\",comm=\"w000\",verdict=\"hit\"} 2");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"app.service (user)\",comm=\"w199\",verdict=\"hit\"} 2");
    ck_assert_msg(strstr(out, "comm=\"w200\"") == NULL && strstr(out, "batch.service") == NULL, "%.3000s", out);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(other)\",comm=\"(other)\",verdict=\"hit\"} 200");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(other)\",comm=\"(other)\",verdict=\"at_risk\"} 600");
    free(out);
}
END_TEST

/* Which series are kept is not the first processes' choice: another
 * user's hundreds of hit processes, read first (the low PIDs), in a
 * user's unit, in no unit or in a login session's scope, never push a
 * hit series of root's or of a system service into (other); and the
 * same processes in another order keep the same series. */
START_TEST(writer_ranks_what_an_operator_must_see)
{
    static struct afx_prom p;
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    static const struct {
        const char *unit;
        bool user;
    } attackers[] = { { "app-x.service", true }, { "", false }, { "session-5.scope", false } };
    for (size_t a = 0; a < sizeof attackers / sizeof attackers[0]; a++) {
        for (int i = 0; i < 250; i++) {
            char comm[16];
            snprintf(comm, sizeof comm, "a%03d", i);
            add(&p, AFX_HIT, attackers[a].unit, attackers[a].user, comm, 65534);
        }
        add(&p, AFX_HIT, "", false, "rootjob", 0);
        add(&p, AFX_HIT, "zabbix-agent.service", false, "zabbix_agentd", 110);
        add(&p, AFX_HIT, "session-3.scope", false, "make", 0);
        char *out = written(&p, &f);
        ck_assert_line(out, "arenafix_process_verdict{unit=\"\",comm=\"rootjob\",verdict=\"hit\"} 1");
        ck_assert_line(out, "arenafix_process_verdict{unit=\"zabbix-agent.service\",comm=\"zabbix_agentd\","
                            "verdict=\"hit\"} 1");
        ck_assert_line(out, "arenafix_process_verdict{unit=\"session-3.scope\",comm=\"make\",verdict=\"hit\"} 1");
        ck_assert_line(out, "arenafix_process_verdict{unit=\"(other)\",comm=\"(other)\",verdict=\"hit\"} 53");
        free(out);
    }

    /* Forward and backward, the same file.  (A series some of whose
     * processes are root's ranks higher once the first of them is read,
     * and its processes read before may have been folded already: the
     * names that are root's here are root's alone.) */
    char *out[2];
    for (int dir = 0; dir < 2; dir++) {
        for (int k = 0; k < 600; k++) {
            int i = dir == 0 ? k : 599 - k;
            char comm[16], unit[32];
            snprintf(comm, sizeof comm, "p%03d", i % 37);
            snprintf(unit, sizeof unit, "u%02d.%s", i % 11, i % 4 == 0 ? "scope" : "service");
            add(&p, i % 5 == 0 ? AFX_HIT : AFX_AT_RISK, i % 7 == 0 ? "" : unit, i % 3 == 0, comm,
                i % 37 % 13 == 0 ? 0 : 1000 + i % 2);
        }
        out[dir] = written(&p, &f);
    }
    ck_assert_str_eq(out[0], out[1]);
    free(out[0]);
    free(out[1]);
}
END_TEST

/* Past the bound, a hit process is kept before at-risk ones, whoever
 * runs them: 250 at-risk series of root's system services, read first,
 * do not push nobody's one hit process (in a user's unit) into
 * (other). */
START_TEST(writer_keeps_hit_before_at_risk)
{
    static struct afx_prom p;
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    for (int i = 0; i < 250; i++) {
        char unit[32];
        snprintf(unit, sizeof unit, "s%03d.service", i);
        add(&p, AFX_AT_RISK, unit, false, "worker", 0);
    }
    add(&p, AFX_HIT, "app.service", true, "solver", 65534);
    add(&p, AFX_HIT, "", false, "batch", 1000);
    char *out = written(&p, &f);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"app.service (user)\",comm=\"solver\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"\",comm=\"batch\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(other)\",comm=\"(other)\",verdict=\"at_risk\"} 52");
    ck_assert_msg(count_of(out, "{unit=\"(other)\",comm=\"(other)\",verdict=\"hit\"}") == 0, "%.3000s", out);
    /* The at-risk kept are the services' first in name order. */
    ck_assert_line(out, "arenafix_process_verdict{unit=\"s000.service\",comm=\"worker\",verdict=\"at_risk\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"s197.service\",comm=\"worker\",verdict=\"at_risk\"} 1");
    ck_assert_msg(strstr(out, "s198.service") == NULL, "%.3000s", out);
    free(out);
}
END_TEST

/* A hit process in the cgroup that text (as the kernel writes it)
 * names. */
static void add_in_cgroup(struct afx_prom *p, const char *cgroup, const char *comm)
{
    memset(&report, 0, sizeof report);
    report.health = AFX_HIT;
    ck_assert_msg(afx_cgroup_unit(cgroup, strlen(cgroup), &report.unit), "%s", cgroup);
    snprintf(report.name, sizeof report.name, "%s", comm);
    afx_prom_add(p, &report);
}

/* A container's scope is its engine in the unit label, never its ID:
 * a host that starts a container a minute would otherwise make a new
 * series a minute.  Each engine's containers, under systemd's cgroup
 * driver (rootful, rootless, in a Kubernetes pod's slice), are one
 * series per command name. */
START_TEST(writer_folds_container_ids)
{
    static struct afx_prom p;
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    static const struct {
        const char *prefix, *path, *label;
    } engines[] = {
        { "0::/machine.slice/libpod-", "", "(podman container)" },
        { "0::/machine.slice/libpod-conmon-", "", "(podman container)" },
        { "0::/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-", "", "(podman container) (user)" },
        { "0::/system.slice/docker-", "/system.slice/sshd.service", "(docker container)" },
        { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/"
          "cri-containerd-", "", "(containerd container)" },
        { "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod11111111_2222_3333_4444_555555555555.slice/"
          "crio-", "", "(cri-o container)" },
        { "0::/system.slice/crio-conmon-", "", "(cri-o container)" },
        { "0::/machine.slice/nerdctl-", "", "(nerdctl container)" },
        { "1:name=systemd:/system.slice/docker-", "", "(docker container)" },
    };
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++)
        for (int c = 0; c < 30; c++) {
            char cgroup[512];
            snprintf(cgroup, sizeof cgroup, "%s%064x.scope%s\n", engines[e].prefix, 0xc0ffee00 + c + 100 * (int)e,
                     engines[e].path);
            add_in_cgroup(&p, cgroup, "postgres");
        }
    /* No container ID (64 hexadecimal digits): a unit's name as it is. */
    add_in_cgroup(&p, "0::/system.slice/docker-abc.scope\n", "postgres");
    add_in_cgroup(&p, "0::/system.slice/docker-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
                  "postgres");
    add_in_cgroup(&p, "0::/system.slice/docker.service\n", "dockerd");
    /* A pod's processes outside a scope (the cgroupfs driver): no unit. */
    add_in_cgroup(&p, "0::/kubepods/burstable/pod0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/"
                      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", "postgres");
    char *out = written(&p, &f);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(podman container)\",comm=\"postgres\",verdict=\"hit\"} 60");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(podman container) (user)\",comm=\"postgres\","
                        "verdict=\"hit\"} 30");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(docker container)\",comm=\"postgres\",verdict=\"hit\"} 60");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(containerd container)\",comm=\"postgres\",verdict=\"hit\"} 30");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(cri-o container)\",comm=\"postgres\",verdict=\"hit\"} 60");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(nerdctl container)\",comm=\"postgres\",verdict=\"hit\"} 30");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"docker-abc.scope\",comm=\"postgres\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"docker-0123456789ABCDEF0123456789abcdef0123456789abcdef"
                        "0123456789abcdef.scope\",comm=\"postgres\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"docker.service\",comm=\"dockerd\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"\",comm=\"postgres\",verdict=\"hit\"} 1");
    ck_assert_int_eq(count_of(out, "\narenafix_process_verdict{"), 10);
    ck_assert_msg(strstr(out, "c0ffee") == NULL, "a container ID in a label:\n%.3000s", out);
    free(out);
}
END_TEST

/* A container its engine's files name (root's, never the tenant's) is
 * named in a container label, by its name, else its short ID, so that
 * on-call can find it; processes in no container keep their series as
 * they were.  Bounded as units are: 250 named containers keep 200
 * series, the rest folded. */
static void add_in_container(struct afx_prom *p, const char *engine, const char *id, const char *name,
                             const char *comm)
{
    memset(&report, 0, sizeof report);
    report.health = AFX_HIT;
    snprintf(report.unit.name, sizeof report.unit.name, "libpod-%s.scope", id);
    snprintf(report.container.engine, sizeof report.container.engine, "%s", engine);
    snprintf(report.container.id, sizeof report.container.id, "%s", id);
    snprintf(report.container.name, sizeof report.container.name, "%s", name);
    snprintf(report.name, sizeof report.name, "%s", comm);
    afx_prom_add(p, &report);
}

START_TEST(writer_names_containers)
{
    static struct afx_prom p;
    const struct afx_prom_facts f = { .glibc_version = "2.36" };
    static const char id[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    add_in_container(&p, "podman", id, "pg-primary", "postgres");
    add_in_container(&p, "podman", id, "pg-primary", "postgres");
    add_in_container(&p, "docker", id, "", "postgres");
    add_in_cgroup(&p, "0::/system.slice/nginx.service\n", "nginx");
    char *out = written(&p, &f);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(podman container)\",container=\"pg-primary\","
                        "comm=\"postgres\",verdict=\"hit\"} 2");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(docker container)\",container=\"0123456789ab\","
                        "comm=\"postgres\",verdict=\"hit\"} 1");
    ck_assert_line(out, "arenafix_process_verdict{unit=\"nginx.service\",comm=\"nginx\",verdict=\"hit\"} 1");
    free(out);

    for (int c = 0; c < 250; c++) {
        char name[32];
        snprintf(name, sizeof name, "worker-%03d", c);
        add_in_container(&p, "podman", id, name, "postgres");
    }
    out = written(&p, &f);
    ck_assert_int_eq(count_of(out, "\narenafix_process_verdict{"), AFX_PROM_SERIES_MAX + 1);
    ck_assert_line(out, "arenafix_process_verdict{unit=\"(other)\",comm=\"(other)\",verdict=\"hit\"} 50");
    free(out);
}
END_TEST

/* A label value as the text report shows it, then escaped for the
 * format, cut whole. */
START_TEST(writer_label_escape)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "nginx", "nginx" },
        { "", "" },
        { "a\"b", "a\\\"b" },
        { "a\\b", "a\\\\\\\\b" },           /* \ shown as \\, each escaped */
        { "a\nb", "a\\\\012b" },            /* newline shown as \012 */
        { "\xc3\xa9t\xc3\xa9", "\\\\303\\\\251t\\\\303\\\\251" },
        { "x} 1\n# y", "x} 1\\\\012# y" },
    };
    char out[AFX_PROM_LABEL_SIZE];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(afx_prom_label(cases[i].in, out, sizeof out), cases[i].want);

    char longer[400];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    afx_prom_label(longer, out, sizeof out);
    ck_assert_msg(strlen(out) <= AFX_PROM_LABEL_MAX && strcmp(out + strlen(out) - 3, "...") == 0, "%s", out);
    memset(longer, '"', sizeof longer - 1);
    afx_prom_label(longer, out, sizeof out);
    size_t len = strlen(out);
    ck_assert_msg(len > 3 && strcmp(out + len - 3, "...") == 0 && (len - 3) % 2 == 0, "%s", out);
    for (size_t i = 0; i < len - 3; i += 2)
        ck_assert_msg(out[i] == '\\' && out[i + 1] == '"', "half an escape at %zu: %s", i, out);
    /* A short buffer takes whole escapes only. */
    char small[4];
    ck_assert_str_eq(afx_prom_label("\"\"\"", small, sizeof small), "\\\"");
    ck_assert_str_eq(afx_prom_label("abcdef", small, sizeof small), "abc");
}
END_TEST

/* Fine because libarenafix is loaded and on; not with ARENAFIX_MODE=off,
 * nor when not fine. */
START_TEST(fixed_by_the_library)
{
    static const struct {
        enum afx_health health;
        bool arenafix;
        enum afx_mode mode;
        bool fixed;
    } cases[] = {
        { AFX_FINE, true, AFX_MODE_MALLOPT, true }, { AFX_FINE, true, AFX_MODE_TOUCH, true },
        { AFX_FINE, true, AFX_MODE_BOTH, true },    { AFX_FINE, true, AFX_MODE_OFF, false },
        { AFX_FINE, false, AFX_MODE_MALLOPT, false }, { AFX_HIT, true, AFX_MODE_MALLOPT, false },
        { AFX_AT_RISK, true, AFX_MODE_TOUCH, false }, { AFX_UNDETERMINED, true, AFX_MODE_MALLOPT, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&report, 0, sizeof report);
        report.health = cases[i].health;
        report.maps.arenafix = cases[i].arenafix;
        report.env.arenafix.mode = cases[i].mode;
        ck_assert_msg(afx_report_fixed(&report) == cases[i].fixed, "case %zu", i);
    }
}
END_TEST

/* The file's contents, malloc'd; NULL if it cannot be read. */
static char *contents(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    /* A trace holds a line for each file of /proc read: all of it. */
    ck_assert(fseek(f, 0, SEEK_END) == 0);
    long size = ftell(f);
    ck_assert(size >= 0 && fseek(f, 0, SEEK_SET) == 0);
    char *buf = malloc((size_t)size + 1);
    ck_assert(buf != NULL);
    size_t n = fread(buf, 1, (size_t)size, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* What is left in dir: its entries, sorted, one a line. */
static void entries(const char *dir, char *out, size_t size)
{
    struct run r;
    run(&r, NULL, ARGV("ls", "-A", dir));
    snprintf(out, size, "%s", r.out);
    run_free(&r);
}

/* The value of the sample line that starts with prefix, or -1. */
static double sample(const char *out, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = out; (p = strstr(p, prefix)) != NULL; p += n)
        if (p == out || p[-1] == '\n')
            return strtod(p + n, NULL);
    return -1;
}

/* 210 processes of uid 65534, hit, each of its own name, read first
 * (started first, they have the lower PIDs), then one of root's, hit
 * too: root's is a series of its own, not folded into (other). */
START_TEST(other_users_cannot_push_roots_series_out)
{
    enum { ATTACKERS = 210 };
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to start processes as another user\n", __func__);
        return;
    }
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char dir[] = "/tmp/arenafix-prom-XXXXXX", path[PATH_MAX], root_comm[16];
    ck_assert(mkdtemp(dir) != NULL);
    chmod(dir, 0755);
    static struct live attacker[ATTACKERS];
    for (int i = 0; i < ATTACKERS; i++) {
        snprintf(path, sizeof path, "%s/a%03d", dir, i);
        ck_assert(symlink(affected_loader(g), path) == 0);
        live_start_nobody(&attacker[i], ARGV(path, "--library-path", g, test_prog("arenawait"), "10", "pinned"));
    }
    snprintf(root_comm, sizeof root_comm, "zroot%d", (int)getpid() % 100000);
    snprintf(path, sizeof path, "%s/%s", dir, root_comm);
    ck_assert(symlink(affected_loader(g), path) == 0);
    struct live mine;
    live_start(&mine, NULL, ARGV(path, "--library-path", g, test_prog("arenawait"), "30", "pinned"));
    struct run r, full;
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe"));
    /* Metrics of more than a stdio buffer: a disk full for one write,
     * the first buffer's, and not for the last.  Nothing of it is
     * committed. */
    char file[PATH_MAX];
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    FILE *f = fopen(file, "w");
    ck_assert(f != NULL && fputs("old\n", f) >= 0 && fclose(f) == 0);
    int full_status = run(&full, NULL, ARGV(test_prog("sysfail"), "--write-size", "4096", cli(), "inspect", "--all",
                                            "--prometheus", "--no-probe", "--output", file));
    char *kept = contents(file);
    unlink(file);
    live_stop(&mine);
    unlink(path);
    for (int i = ATTACKERS; i-- > 0;) {
        live_stop(&attacker[i]);
        snprintf(path, sizeof path, "%s/a%03d", dir, i);
        unlink(path);
    }
    rmdir(dir);

    ck_assert_status(&r, 3);
    well_formed(r.out);
    /* Whatever unit the test runs in (none, a session's, a service's),
     * theirs and root's share it. */
    char want[128];
    snprintf(want, sizeof want, ",comm=\"%s\",verdict=\"hit\"} 1\n", root_comm);
    ck_assert_msg(strstr(r.out, want) != NULL, "no series %s", want);
    /* Theirs did fill the rest: they were there to push. */
    ck_assert_int_ge(count_of(r.out, ",comm=\"a0") + count_of(r.out, ",comm=\"a1") + count_of(r.out, ",comm=\"a2"),
                     AFX_PROM_SERIES_MAX - 20);
    ck_assert_int_ge(sample(r.out, "arenafix_processes{verdict=\"hit\"} "), ATTACKERS);
    ck_assert_uint_gt(strlen(r.out), 2 * 4096);
    run_free(&r);
    ck_assert_msg(full_status == 1 && strstr(full.err, ": cannot write the new file: No space left on device; ") != NULL,
                  "exit %d: %s", full_status, full.err);
    ck_assert_str_eq(kept, "old\n");
    free(kept);
    run_free(&full);
}
END_TEST

/* The scan's time is the epoch's (the stale-metrics alert compares it
 * with time()), not a clock from boot. */
START_TEST(scan_timestamp_is_wall_clock)
{
    struct run r;
    time_t before = time(NULL);
    run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe"));
    time_t after = time(NULL);
    ck_assert_msg(WIFEXITED(r.status) && WEXITSTATUS(r.status) != 1 && WEXITSTATUS(r.status) != 2, "%s", r.err);
    double t = sample(r.out, "arenafix_scan_timestamp_seconds ");
    ck_assert_msg(t >= (double)before - 1 && t <= (double)after + 1, "timestamp %.3f, not between %ld and %ld", t,
                  (long)before, (long)after);
    ck_assert_msg(sample(r.out, "arenafix_scan_duration_seconds ") >= 0, "%s", r.out);
    run_free(&r);
}
END_TEST

/* Root that may not read another user's process (no CAP_SYS_PTRACE, a
 * /proc mounted hidepid=1): counted as unreadable in the metrics. */
START_TEST(unreadable_processes_counted)
{
    struct live l;
    struct run r;
    if (!run_blinded_root(&r, &l, "inspect --all --prometheus --no-probe", __func__))
        return;
    well_formed(r.out);
    ck_assert_msg(sample(r.out, "arenafix_processes{verdict=\"unreadable\"} ") >= 1, "%s", r.out);
    run_free(&r);
}
END_TEST

/* The collector's user reads the file, whatever the umask of whoever
 * runs the scan. */
START_TEST(output_mode_whatever_the_umask)
{
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    mode_t old = umask(077);
    struct run r;
    int status = run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe", "--output", file));
    umask(old);
    struct stat st;
    int got = stat(file, &st);
    unlink(file);
    rmdir(dir);
    ck_assert_msg(status == 0 || (status >= 3 && status <= 5), "exit %d: %s", status, r.err);
    run_free(&r);
    ck_assert(got == 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
}
END_TEST

/* A rename the file system refuses (the file made immutable): the
 * command fails naming the file and the step, the file keeps what it
 * held, no new file is left beside it. */
/* A user who may not enter a directory on the way is told to run as one
 * who may, not to check that it exists. */
START_TEST(output_directory_not_entered)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to run the scan as another user\n", __func__);
        return;
    }
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);    /* mode 0700, root's */
    snprintf(file, sizeof file, "%s/sub/arenafix.prom", dir);
    struct run r;
    int status = run(&r, NULL, ARGV("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", cli(),
                                    "inspect", "--all", "--prometheus", "--no-probe", "--output", file));
    rmdir(dir);
    ck_assert_msg(status != 0, "exit 0: %s", r.err);
    ck_assert_msg(strstr(r.err, "Permission denied; run as a user who may enter it") != NULL
                      && strstr(r.err, "check that it exists") == NULL, "%s", r.err);
    run_free(&r);
}
END_TEST

START_TEST(output_refused_rename)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to make a file immutable\n", __func__);
        return;
    }
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX], left[512];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    FILE *f = fopen(file, "w");
    ck_assert(f != NULL && fputs("old\n", f) >= 0 && fclose(f) == 0);
    struct run r, attr;
    if (run(&attr, NULL, ARGV("chattr", "+i", file)) != 0) {
        printf("SKIP %s: cannot make a file immutable here: %s\n", __func__, attr.err);
        run_free(&attr);
        unlink(file);
        rmdir(dir);
        return;
    }
    run_free(&attr);
    int status = run(&r, NULL, ARGV(cli(), "inspect", "--all", "--prometheus", "--no-probe", "--output", file));
    run(&attr, NULL, ARGV("chattr", "-i", file));
    run_free(&attr);
    char *now = contents(file);
    entries(dir, left, sizeof left);
    unlink(file);
    rmdir(dir);

    ck_assert_msg(status == 1, "exit %d: %s", status, r.err);
    char want[PATH_MAX + 100];
    snprintf(want, sizeof want, "arenafix: --output %s: cannot rename the new file arenafix.prom.", file);
    ck_assert_msg(strncmp(r.err, want, strlen(want)) == 0 && strstr(r.err, ": Operation not permitted; ") != NULL
                      && strchr(r.err, '\n') == r.err + strlen(r.err) - 1, "want %s...: %s", want, r.err);
    ck_assert_str_eq(now, "old\n");
    ck_assert_str_eq(left, "arenafix.prom\n");
    free(now);
    run_free(&r);
}
END_TEST

/* A full disk (a small tmpfs, in a mount namespace of the test's own):
 * the command fails naming the file, the file keeps what it held, no
 * new file is left beside it. */
START_TEST(output_full_disk)
{
    if (geteuid() != 0) {
        printf("SKIP %s: needs root to mount a file system\n", __func__);
        return;
    }
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    struct run r;
    run(&r, NULL, ARGV("unshare", "-m", "--propagation", "private", "sh", "-c",
                       "mount -t tmpfs -o size=256k afxfull \"$1\" || exit 99; printf 'old\\n' > \"$1/arenafix.prom\"; "
                       "dd if=/dev/zero of=\"$1/fill\" bs=4k 2>/dev/null; "
                       "\"$0\" inspect --all --prometheus --no-probe --output \"$1/arenafix.prom\"; "
                       "echo \"status $?\"; cat \"$1/arenafix.prom\"; echo --; ls -A \"$1\"",
                       cli(), dir));
    rmdir(dir);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 99) {
        printf("SKIP %s: cannot mount a tmpfs here: %s\n", __func__, r.err);
        run_free(&r);
        return;
    }
    ck_assert_str_eq(r.out, "status 1\nold\n--\narenafix.prom\nfill\n");
    char want[2 * PATH_MAX + 100];
    snprintf(want, sizeof want, "arenafix: --output %s: cannot write the new file: No space left on device; %s is left "
                                "as it was\n", file, file);
    ck_assert_str_eq(r.err, want);
    run_free(&r);
}
END_TEST

/* Traced: the new file is made unnamed (O_TMPFILE: a scan killed
 * half-way leaves nothing), written, synced, and only then named and
 * renamed over the file; no named file is made beside it before. */
START_TEST(output_synced_before_named)
{
    if (access("/usr/bin/strace", X_OK) != 0) {
        printf("SKIP %s: strace is not installed (apt-get install strace)\n", __func__);
        return;
    }
    if (skip_emulated(__func__, "strace is built for another machine"))
        return;
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX], log[PATH_MAX];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    snprintf(log, sizeof log, "%s.trace", dir);
    struct run r;
    int status = run(&r, NULL, ARGV("strace", "-qq", "-o", log, "-e",
                                    "trace=openat,open,creat,write,fsync,fdatasync,sync_file_range,linkat,renameat,"
                                    "renameat2,rename,unlinkat", cli(), "inspect", "--all", "--prometheus",
                                    "--no-probe", "--output", file));
    char *trace = contents(log);
    char left[512];
    entries(dir, left, sizeof left);
    unlink(file);
    rmdir(dir);
    unlink(log);
    ck_assert_msg(status == 0 || (status >= 3 && status <= 5), "exit %d: %s", status, r.err);
    run_free(&r);
    ck_assert(trace != NULL);
    ck_assert_str_eq(left, "arenafix.prom\n");

    /* openat(D, ".", O_WRONLY|O_CLOEXEC|O_TMPFILE, 0644) = N */
    int fd = -1;
    for (const char *line = trace; line != NULL && fd < 0; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        const char *end = strchr(line, '\n'), *result = strstr(line, ") = ");
        if (strncmp(line, "openat(", 7) == 0 && result != NULL && (end == NULL || result < end)
            && memmem(line, (size_t)(result - line), "O_TMPFILE", 9) != NULL)
            fd = atoi(result + 4);
    }
    ck_assert_msg(fd >= 0, "no O_TMPFILE file made:\n%.3000s", trace);
    ck_assert_msg(strstr(trace, "O_CREAT") == NULL, "a named file made:\n%.3000s", trace);
    char write_fd[32], sync_fd[32], link_fd[64];
    snprintf(write_fd, sizeof write_fd, "\nwrite(%d, ", fd);
    snprintf(sync_fd, sizeof sync_fd, "\nfsync(%d) ", fd);
    snprintf(link_fd, sizeof link_fd, "\nlinkat(AT_FDCWD, \"/proc/self/fd/%d\", ", fd);
    const char *last_write = NULL;
    for (const char *p = trace; (p = strstr(p, write_fd)) != NULL; p++)
        last_write = p;
    const char *sync = strstr(trace, sync_fd), *link = strstr(trace, link_fd);
    /* strace pads the result to a column. */
    if (sync != NULL && strncmp(sync + strlen(sync_fd) + strspn(sync + strlen(sync_fd), " "), "= 0\n", 4) != 0)
        sync = NULL;
    const char *rename = strstr(trace, "\nrenameat");
    if (rename == NULL)
        rename = strstr(trace, "\nrename(");
    ck_assert_msg(last_write != NULL && sync != NULL && link != NULL && rename != NULL && last_write < sync
                      && sync < link && link < rename && strstr(rename, "\"arenafix.prom\"") != NULL,
                  "want the writes, fsync, linkat, rename in this order:\n%.3000s", trace);
    free(trace);
}
END_TEST

/* Where the file system has no unnamed files: a named new file beside
 * it, made and replaced as well (mode 0644 whatever the umask), and
 * removed when the rename is refused. */
START_TEST(output_without_o_tmpfile)
{
    if (skip_emulated(__func__, "a seccomp filter of the host's system calls"))
        return;
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[PATH_MAX], left[512];
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    struct run r;
    mode_t old = umask(077);
    int status = run(&r, NULL, ARGV(test_prog("sysfail"), "--no-tmpfile", cli(), "inspect", "--all", "--prometheus", "--no-probe",
                                    "--output", file));
    umask(old);
    struct stat st;
    int got = lstat(file, &st);
    char *now = contents(file);
    entries(dir, left, sizeof left);
    ck_assert_msg(status == 0 || (status >= 3 && status <= 5), "exit %d: %s", status, r.err);
    run_free(&r);
    ck_assert(got == 0 && S_ISREG(st.st_mode));
    ck_assert_uint_eq(st.st_mode & 07777, 0644);
    ck_assert(now != NULL);
    well_formed(now);
    free(now);
    ck_assert_str_eq(left, "arenafix.prom\n");

    if (geteuid() != 0) {
        printf("SKIP %s (refused rename): needs root to make a file immutable\n", __func__);
    } else {
        struct run attr;
        bool immutable = run(&attr, NULL, ARGV("chattr", "+i", file)) == 0;
        run_free(&attr);
        if (immutable) {
            status = run(&r, NULL, ARGV(test_prog("sysfail"), "--no-tmpfile", cli(), "inspect", "--all", "--prometheus",
                                        "--no-probe", "--output", file));
            run(&attr, NULL, ARGV("chattr", "-i", file));
            run_free(&attr);
            entries(dir, left, sizeof left);
            ck_assert_msg(status == 1 && strstr(r.err, ": cannot rename the new file arenafix.prom.") != NULL,
                          "exit %d: %s", status, r.err);
            run_free(&r);
            ck_assert_str_eq(left, "arenafix.prom\n");
        }
    }
    unlink(file);
    ck_assert_msg(rmdir(dir) == 0, "something left beside the file: %s", strerror(errno));
}
END_TEST

/* Where the file system has no unnamed files, the named new file is
 * made beside FILE, in a directory that the collector's user may own
 * (/var/lib/prometheus): she can plant a link under any name the
 * command may pick.  With getrandom made to give the same name at every
 * try, a link to root's file is at each of them: the command writes
 * nothing through it, replaces nothing, and says it could not. */
START_TEST(output_fallback_follows_no_link)
{
    if (skip_emulated(__func__, "a seccomp filter of the host's system calls"))
        return;
    char dir[] = "/tmp/arenafix-prom-XXXXXX", file[64], victim[64], planted[80], left[512];
    static const char secret[] = "root:$y$j9T$secret:19000:0:99999:7:::\n";
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(file, sizeof file, "%s/arenafix.prom", dir);
    snprintf(victim, sizeof victim, "%s/shadow", dir);
    /* The name fixedrandom.so's zeros give: FILE.%02x%02x%02x%02x. */
    snprintf(planted, sizeof planted, "%s.00000000", file);
    FILE *f = fopen(victim, "w");
    ck_assert(f != NULL && fputs(secret, f) >= 0 && fclose(f) == 0);
    ck_assert(symlink(victim, planted) == 0);

    char preload[PATH_MAX + 16];
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", test_prog("fixedrandom.so"));
    struct run r;
    run(&r, ARGV(preload), ARGV(test_prog("sysfail"), "--no-tmpfile", cli(), "inspect", "--all", "--prometheus",
                                "--no-probe", "--output", file));
    char *now = contents(victim);
    struct stat st;
    int got = lstat(file, &st);
    entries(dir, left, sizeof left);
    ck_assert_msg(now != NULL && strcmp(now, secret) == 0, "written through the link: %.300s", now);
    free(now);
    ck_assert_msg(got != 0, "%s replaced (mode 0%o)", file, (unsigned)st.st_mode);
    ck_assert_str_eq(left, "arenafix.prom.00000000\nshadow\n");
    ck_assert_status(&r, 1);
    ck_assert_msg(strstr(r.err, ": cannot create a file beside it: File exists") != NULL, "%s", r.err);
    run_free(&r);
    unlink(planted);
    unlink(victim);
    ck_assert(rmdir(dir) == 0);
}
END_TEST

START_TEST(usage)
{
    const struct {
        const char *const *argv;
        const char *says;
    } cases[] = {
        { ARGV("inspect", "--all", "--json", "--prometheus"), "--json and --prometheus" },
        { ARGV("inspect", "--prometheus", "1"), "--prometheus reports the whole host" },
        { ARGV("inspect", "--all", "--output", "x.prom"), "--output is for --prometheus" },
        { ARGV("inspect", "--all", "--prometheus", "--output"), "missing value for --output" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *argv[8] = { cli() };
        for (int k = 0; cases[i].argv[k] != NULL; k++)
            argv[k + 1] = cases[i].argv[k];
        struct run r;
        run(&r, NULL, argv);
        ck_assert_status(&r, 2);
        ck_assert_msg(strstr(r.err, cases[i].says) != NULL && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
                      "want one line with %s: %s", cases[i].says, r.err);
        ck_assert_str_eq(r.out, "");
        run_free(&r);
    }
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--help"));
    ck_assert_msg(strstr(r.out, "\n       arenafix inspect --all --prometheus [--output FILE] [--no-probe]\n") != NULL
                      && strstr(r.out, "\n      --prometheus ") != NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

Suite *prometheus_suite(void)
{
    Suite *s = suite_create("prometheus");
    TCase *tc = tcase_create("prometheus");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hit_process_is_a_series);
    tcase_add_test(tc, hostile_comm_cannot_break_the_format);
    tcase_add_test(tc, output_replaces_the_file);
    tcase_add_test(tc, output_follows_no_link_on_the_way);
    tcase_add_test(tc, usage);
    suite_add_tcase(s, tc);
    TCase *writer = tcase_create("writer");
    tcase_add_test(writer, writer_gauges);
    tcase_add_test(writer, writer_series_by_verdict);
    tcase_add_test(writer, writer_bound_folds_into_one_other);
    tcase_add_test(writer, writer_ranks_what_an_operator_must_see);
    tcase_add_test(writer, writer_keeps_hit_before_at_risk);
    tcase_add_test(writer, writer_folds_container_ids);
    tcase_add_test(writer, writer_names_containers);
    tcase_add_test(writer, writer_label_escape);
    tcase_add_test(writer, fixed_by_the_library);
    suite_add_tcase(s, writer);
    TCase *host = tcase_create("host");
    /* 211 processes started and read: generous, for a loaded machine. */
    tcase_set_timeout(host, 300);
    tcase_add_test(host, other_users_cannot_push_roots_series_out);
    tcase_add_test(host, scan_timestamp_is_wall_clock);
    tcase_add_test(host, unreadable_processes_counted);
    tcase_add_test(host, output_mode_whatever_the_umask);
    tcase_add_test(host, output_refused_rename);
    tcase_add_test(host, output_directory_not_entered);
    tcase_add_test(host, output_full_disk);
    tcase_add_test(host, output_synced_before_named);
    tcase_add_test(host, output_without_o_tmpfile);
    tcase_add_test(host, output_fallback_follows_no_link);
    suite_add_tcase(s, host);
    return s;
}
