/* arenafix inspect [--json] [--no-probe] PID: diagnose a running process
 * from /proc, without stopping it (--all: every process, scan.c).
 * Everything read here is the process's to choose (its name, its maps,
 * the files it mapped, its memory): read in bounded memory and time,
 * escaped before it reaches a terminal, and never executed with more
 * privilege than it has. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "glibctrust.h"
#include "hostinfo.h"
#include "jail.h"
#include "mappedfile.h"
#include "probe.h"
#include "procreport.h"
#include "scan.h"
#include "verdict.h"

static const char usage_line[] = "usage: arenafix inspect [--json] [--no-probe] PID | --all";

/* One line naming the problem and the fix, for a /proc read that failed. */
static int proc_error(long pid, const char *what, int err)
{
    if (err == ENOENT || err == ESRCH)
        afx_error("no process %ld; check the PID (ps -e)", pid);
    else if (err == EACCES || err == EPERM)
        afx_error("no permission to read /proc/%ld/%s; run as the process's user or as root", pid, what);
    else
        afx_error("cannot read /proc/%ld/%s: %s", pid, what, strerror(err));
    return AFX_EXIT_FAIL;
}

/* The directory of its libc, as a path inside its root. */
static void libc_dir(const struct afx_mapping *libc, char *out, size_t size)
{
    static const char deleted[] = " (deleted)";
    size_t n = strlen(libc->path);
    if (n >= sizeof deleted - 1 && strcmp(libc->path + n - (sizeof deleted - 1), deleted) == 0)
        n -= sizeof deleted - 1;
    while (n > 1 && libc->path[n - 1] != '/')
        n--;
    if (n > 1)
        n--;    /* not the slash, unless it is the root */
    snprintf(out, size, "%.*s", (int)n, libc->path);
}

/* Open the file of mapping m (its "ld.so" or "libc.so.6") and keep it
 * only if root alone can have written it (glibctrust.h); else say why
 * in the report.  -1 if it may not run. */
static int open_trusted(struct afx_report *r, const struct afx_mapping *m, const char *what)
{
    char why[PATH_MAX + 160];
    int fd = afx_mapped_open(r->pid, m);
    if (fd < 0) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: cannot open its %s: %s", what, strerror(errno));
        return -1;
    }
    if (afx_glibc_trusted(r->pid, m, fd, why, sizeof why))
        return fd;
    close(fd);
    r->untested = true;
    snprintf(r->probe_note, sizeof r->probe_note,
             "not executed: its %s %.120s: %.160s; inspect runs only a glibc that root alone can change "
             "(test this one as its owner: arenafix probe --glibc DIR)", what, m->path, why);
    return -1;
}

/* The process still maps, where it did, the file fd is. */
static bool still_mapped(const struct afx_report *r, const struct afx_mapping *m, int fd)
{
    struct stat then, now;
    int again = afx_mapped_open(r->pid, m);
    bool same = again >= 0 && fstat(fd, &then) == 0 && fstat(again, &now) == 0 && then.st_dev == now.st_dev
                && then.st_ino == now.st_ino;
    if (again >= 0)
        close(again);
    return same;
}

/* Run the probe under its own ld.so and libc, as it would run them:
 * its credentials, its namespaces and root, nothing more (jail.h), and
 * only when those files are root's alone (glibctrust.h).  Its
 * credentials are read before anything is opened and must be the same
 * after; its maps must still show the files opened; the PID must still
 * name the process read. */
static void probe_its_glibc(struct afx_report *r)
{
    static struct afx_jail jail;
    static struct afx_creds before;
    char libdir[PATH_MAX + 64], err[512];
    if (r->maps.libc.path[0] == '\0' || r->maps.loader.path[0] == '\0') {
        snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped");
        return;
    }
    if (!afx_jail_creds(r->pid, &before)) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: cannot read its credentials");
        return;
    }
    int loader = open_trusted(r, &r->maps.loader, "ld.so");
    int libc = loader < 0 ? -1 : open_trusted(r, &r->maps.libc, "libc.so.6");
    if (libc < 0) {
        if (loader >= 0)
            close(loader);
        return;
    }
    bool ok = afx_preload_list_trusted(r->pid, err, sizeof err), tried = false;
    if (!ok) {
        r->untested = true;
        snprintf(r->probe_note, sizeof r->probe_note, "not executed: the loader would read its /etc/ld.so.preload, "
                 "and %.300s", err);
    } else if ((tried = true) && !afx_jail_open(&jail, r->pid, &before, err, sizeof err)) {
        r->untested = strstr(err, "credentials changed") != NULL || strstr(err, "mixed") != NULL;
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: %.300s", err);
        ok = false;
    } else if (!still_mapped(r, &r->maps.loader, loader) || !still_mapped(r, &r->maps.libc, libc)
               || !afx_report_same_process(r)) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: it exited or ran another program while it was read");
        ok = false;
    }
    close(libc);
    if (!ok) {
        close(loader);
        if (tried)
            afx_jail_close(&jail);
        return;
    }
    libc_dir(&r->maps.libc, libdir, sizeof libdir);
    if (!jail.enter)
        afx_in_root(r->pid, libdir, sizeof libdir);
    struct afx_glibc g = { .libdir = libdir, .jail = &jail, .loader_fd = loader };
    struct afx_probe p;
    ok = afx_probe_glibc(&g, r->host.online, NULL, &p, err, sizeof err);
    close(loader);
    afx_jail_close(&jail);
    if (!ok) {
        snprintf(r->probe_note, sizeof r->probe_note, "probe failed: %.300s", err);
        return;
    }
    r->probed = true;
    r->state = p.verdict == AFX_AFFECTED ? AFX_GLIBC_AFFECTED
               : p.verdict == AFX_NOT_AFFECTED ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    snprintf(r->probe_note, sizeof r->probe_note, "probed as the process: %s", p.reason);
}

/* s escaped for the terminal; four buffers in turn, for one printf. */
static const char *esc(const char *s)
{
    static char buf[4][AFX_ESCAPED_SIZE(PATH_MAX)];
    static int next;
    return afx_escape(s, buf[next++ % 4], sizeof buf[0]);
}

static void print_text(const struct afx_report *r)
{
    printf("process %ld (%s): %s\n", r->pid, esc(r->name), afx_health_names[r->health]);
    printf("  threads:            %ld, %ld pinned narrower than the %ld online CPUs", r->threads.count,
           r->threads.narrowed, r->host.online);
    if (r->threads.narrowed > 0)
        printf(" (narrowest: %s)", esc(r->threads.narrowest));
    printf("\n  CPUs:               online %s", esc(r->host.online_list));
    if (r->host.isolated_list[0])
        printf(", isolated %s", esc(r->host.isolated_list));
    if (r->host.nohz_full_list[0])
        printf(", nohz_full %s", esc(r->host.nohz_full_list));
    printf("\n  glibc:              %s, %s (%s)\n", esc(r->glibc), afx_glibc_state_name(r->state), esc(r->probe_note));
    if (r->maps.arenafix)
        printf("  libarenafix:        loaded, mode %s\n", afx_mode_name(r->env.arenafix.mode));
    else
        printf("  libarenafix:        not loaded\n");
    if (r->maps.foreign[0])
        printf("  malloc:             %s\n", esc(r->maps.foreign));
    printf("  arena limit set:    %s\n", r->env.user_limit ? "yes (environment)" : "no");
    printf("  arenas, estimated:  %ld (main + %ld heaps in /proc/%ld/maps; an upper bound)\n",
           r->maps.heaps + 1, r->maps.heaps, r->pid);
    if (r->exact > 0)
        printf("  arenas, counted:    %ld (heap headers read from /proc/%ld/mem)\n", r->exact, r->pid);
    else
        printf("  arenas, counted:    not available (no access to /proc/%ld/mem)\n", r->pid);
    printf("verdict: %s: %s\n", afx_health_names[r->health], esc(r->why));
}

static long parse_pid(const char *s)
{
    char *end;
    errno = 0;
    long pid = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || pid < 1 || pid > 0x3fffffff)
        afx_usage_error("inspect: %s is not a process ID; %s", s, usage_line);
    return pid;
}

/* Read what the verdict rests on; an exit status if it cannot be. */
static int read_process(struct afx_report *r, bool probe)
{
    const char *what;
    int err = afx_report_read(r, &what);
    if (err != 0)
        return proc_error(r->pid, what, err);
    if (probe && r->probe_note[0] == '\0')
        probe_its_glibc(r);
    else if (!probe)
        snprintf(r->probe_note, sizeof r->probe_note, "not probed (--no-probe)");
    return -1;
}

int afx_cmd_inspect(int argc, char **argv)
{
    static const struct option options[] = {
        { "json", no_argument, NULL, 'j' },
        { "no-probe", no_argument, NULL, 'n' },
        { "all", no_argument, NULL, 'a' },
        { 0 },
    };
    bool json = false, probe = true, all = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'n')
            probe = false;
        else if (c == 'a')
            all = true;
        else
            afx_usage_error("inspect: unknown option %s; %s", argv[optind - 1], usage_line);
    }
    if (all && optind < argc)
        afx_usage_error("inspect: --all takes no PID; %s", usage_line);
    if (all)
        return afx_inspect_all(json, probe);
    if (optind != argc - 1)
        afx_usage_error("inspect: %s; %s", optind >= argc ? "no PID given" : "one PID only", usage_line);

    static struct afx_report r;
    r.pid = parse_pid(argv[optind]);
    afx_host_read(&r.host);
    int failed = read_process(&r, probe);
    if (failed >= 0)
        return failed;

    afx_report_judge(&r);
    int code = afx_health_status(r.health);
    if (json)
        afx_report_json(&r, stdout);
    else
        print_text(&r);
    return fflush(stdout) == 0 ? code : AFX_EXIT_FAIL;
}
