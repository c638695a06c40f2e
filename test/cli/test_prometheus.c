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
#include <unistd.h>

#include "harness.h"

/* Each metric the monitoring documents (docs/rollout.md) name. */
static const char *const metrics[] = {
    "arenafix_glibc_affected", "arenafix_library_installed", "arenafix_processes", "arenafix_processes_fixed",
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
    ck_assert_msg(strstr(r.out, "\narenafix_library_installed{version=\"" AFX_VERSION "\",path=\"/") != NULL
                      && strstr(r.out, "libarenafix.so\"} 1\n") != NULL, "%s", r.out);
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
    return s;
}
