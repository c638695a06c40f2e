/* arenafix inspect [--json] [--no-probe] PID: diagnose a running process
 * from /proc, without stopping it.  Everything read here is the
 * process's to choose (its name, its maps, the files it mapped, its
 * memory): read in bounded memory and time, escaped before it reaches
 * a terminal, and never executed with more privilege than it has. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "heaps.h"
#include "hostinfo.h"
#include "inspectread.h"
#include "jail.h"
#include "json.h"
#include "mappedfile.h"
#include "probe.h"
#include "procenv.h"
#include "procmaps.h"
#include "procstatus.h"
#include "readfile.h"
#include "verdict.h"

struct report {
    long pid;
    int pidfd;                  /* -1 where the kernel has none */
    char name[64];
    struct afx_threads threads;
    struct afx_maps maps;
    long exact;                 /* arenas from the heap headers, -1 unread */
    char glibc[32];
    enum afx_glibc_state state;
    char probe_note[400];
    struct afx_env_facts env;
    struct afx_host host;
    struct afx_process_facts facts;
    enum afx_health health;
    char why[512];
};

static const char usage_line[] = "usage: arenafix inspect [--json] [--no-probe] PID";

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

/* The glibc banner of the libc it has mapped: the mapped file itself,
 * never a file by the name maps shows. */
static void glibc_version(struct report *r)
{
    snprintf(r->glibc, sizeof r->glibc, "unknown");
    if (r->maps.libc.path[0] == '\0')
        return;
    int fd = afx_mapped_open(r->pid, &r->maps.libc);
    if (fd < 0)
        return;
    if (!afx_glibc_version(fd, r->glibc, sizeof r->glibc))
        snprintf(r->glibc, sizeof r->glibc, "unknown");
    close(fd);
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

/* Run the probe under its own ld.so and libc, as it would run them:
 * its credentials, its namespaces and root, nothing more (jail.h). */
static void probe_its_glibc(struct report *r)
{
    static struct afx_jail jail;
    char libdir[PATH_MAX + 64], err[512];
    if (r->maps.libc.path[0] == '\0' || r->maps.loader.path[0] == '\0') {
        snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped");
        return;
    }
    /* The loader first: opening the jail checks that the PID still
     * names the process all this was read from. */
    int loader = afx_mapped_open(r->pid, &r->maps.loader);
    if (loader < 0) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: cannot open its ld.so: %s", strerror(errno));
        return;
    }
    if (!afx_jail_open(&jail, r->pid, r->pidfd, err, sizeof err)) {
        close(loader);
        afx_jail_close(&jail);
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: %.200s", err);
        return;
    }
    libc_dir(&r->maps.libc, libdir, sizeof libdir);
    if (!jail.enter)
        afx_in_root(r->pid, libdir, sizeof libdir);
    struct afx_glibc g = { .libdir = libdir, .jail = &jail, .loader_fd = loader };
    struct afx_probe p;
    bool ok = afx_probe_glibc(&g, r->host.online, NULL, &p, err, sizeof err);
    close(loader);
    afx_jail_close(&jail);
    if (!ok) {
        snprintf(r->probe_note, sizeof r->probe_note, "probe failed: %.300s", err);
        return;
    }
    r->state = p.verdict == AFX_AFFECTED ? AFX_GLIBC_AFFECTED
               : p.verdict == AFX_NOT_AFFECTED ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    snprintf(r->probe_note, sizeof r->probe_note, "probed as the process: %s", p.reason);
}

static const char *glibc_state_name(enum afx_glibc_state s)
{
    return s == AFX_GLIBC_AFFECTED ? "affected" : s == AFX_GLIBC_FIXED ? "not affected" : "unknown";
}

/* s escaped for the terminal; four buffers in turn, for one printf. */
static const char *esc(const char *s)
{
    static char buf[4][AFX_ESCAPED_SIZE(PATH_MAX)];
    static int next;
    return afx_escape(s, buf[next++ % 4], sizeof buf[0]);
}

static void print_text(const struct report *r)
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
    printf("\n  glibc:              %s, %s (%s)\n", esc(r->glibc), glibc_state_name(r->state), esc(r->probe_note));
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

static void print_json(const struct report *r, int status)
{
    struct afx_json j;
    afx_json_begin(&j, stdout);
    afx_json_str(&j, "verdict", afx_health_names[r->health]);
    afx_json_long(&j, "exit_status", status);
    afx_json_str(&j, "reason", r->why);
    afx_json_long(&j, "pid", r->pid);
    afx_json_str(&j, "name", r->name);
    afx_json_long(&j, "threads", r->threads.count);
    afx_json_long(&j, "threads_narrowed", r->threads.narrowed);
    afx_json_long(&j, "online_cpus", r->host.online);
    afx_json_str(&j, "online_list", r->host.online_list);
    afx_json_str(&j, "isolated_list", r->host.isolated_list);
    afx_json_str(&j, "nohz_full_list", r->host.nohz_full_list);
    afx_json_str(&j, "glibc", r->glibc);
    afx_json_str(&j, "glibc_state", glibc_state_name(r->state));
    afx_json_str(&j, "glibc_note", r->probe_note);
    afx_json_bool(&j, "libarenafix", r->maps.arenafix);
    afx_json_str(&j, "libarenafix_mode", r->maps.arenafix ? afx_mode_name(r->env.arenafix.mode) : NULL);
    afx_json_str(&j, "foreign_malloc", r->maps.foreign[0] ? r->maps.foreign : NULL);
    afx_json_bool(&j, "arena_limit_set", r->env.user_limit);
    afx_json_long(&j, "arenas_estimated", r->maps.heaps + 1);
    afx_json_long(&j, "arenas_counted", r->exact);
    afx_json_end(&j);
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
static int read_process(struct report *r, bool probe)
{
    char path[64];
    /* Held while we read: the PID cannot be reused for another process
     * without our noticing (jail.c checks it before it runs anything). */
    r->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r->pid, 0);
    if (r->pidfd < 0 && errno == ESRCH)
        return proc_error(r->pid, "status", errno);
    snprintf(path, sizeof path, "/proc/%ld/status", r->pid);
    char *status = afx_slurp_max(path, 1L << 20, NULL);
    if (status == NULL)
        return proc_error(r->pid, "status", errno);
    if (!afx_status_field(status, "Name", r->name, sizeof r->name))
        snprintf(r->name, sizeof r->name, "?");
    free(status);

    if (!afx_read_maps(r->pid, &r->maps))
        return proc_error(r->pid, "maps", errno);
    if (r->maps.libc.path[0] == '\0' && r->maps.loader.path[0] == '\0' && r->maps.heaps == 0)
        snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped (static, or a kernel thread)");

    afx_read_threads(r->pid, r->host.online, &r->threads);
    r->exact = afx_count_arenas(r->pid, &r->maps);
    afx_read_env(r->pid, &r->env);
    glibc_version(r);
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
        { 0 },
    };
    bool json = false, probe = true;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+", options, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'n')
            probe = false;
        else
            afx_usage_error("inspect: unknown option %s; %s", argv[optind - 1], usage_line);
    }
    if (optind != argc - 1)
        afx_usage_error("inspect: %s; %s", optind >= argc ? "no PID given" : "one PID only", usage_line);

    static struct report r;
    r.pid = parse_pid(argv[optind]);
    afx_host_read(&r.host);
    int failed = read_process(&r, probe);
    if (failed >= 0)
        return failed;

    r.facts = (struct afx_process_facts){
        .threads = r.threads.count, .online = r.host.online, .narrowed = r.threads.narrowed,
        .arenas = r.exact > 0 ? r.exact : r.maps.heaps + 1, .arenafix = r.maps.arenafix,
        .mode = r.env.arenafix.mode, .arenafix_max = r.env.arenafix.arena_max,
        .user_limit = r.env.user_limit, .foreign = r.maps.foreign[0] ? r.maps.foreign : NULL,
        .glibc = r.state,
    };
    r.health = afx_judge_process(&r.facts, r.why, sizeof r.why);
    int code = r.health == AFX_HIT ? AFX_EXIT_AFFECTED : r.health == AFX_AT_RISK ? AFX_EXIT_AT_RISK : AFX_EXIT_OK;
    if (json)
        print_json(&r, code);
    else
        print_text(&r);
    return fflush(stdout) == 0 ? code : AFX_EXIT_FAIL;
}
