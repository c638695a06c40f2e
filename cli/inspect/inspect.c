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
#include "denied.h"
#include "escape.h"
#include "fixes.h"
#include "target/hostglibc.h"
#include "target/probeglibc.h"
#include "glibcprobe/glibctrust.h"
#include "hostinfo.h"
#include "glibcprobe/jail.h"
#include "proc/mappedfile.h"
#include "proc/userns.h"
#include "glibcprobe/probe.h"
#include "target/procreport.h"
#include "scan.h"
#include "target/verdict.h"

static const char usage_line[] = "usage: arenafix inspect [--json] [--no-probe] PID | --all [--json | --prometheus [--output FILE]] [--no-probe]";

static const char help[] =
    "Usage: arenafix inspect [--json] [--no-probe] PID\n"
    "       arenafix inspect --all [--json] [--no-probe]\n"
    "       arenafix inspect --all --prometheus [--output FILE] [--no-probe]\n"
    "Is a running process hit by glibc bug 30945 (too few malloc arenas), and how\n"
    "is it fixed?  Reads /proc without stopping it; names its systemd unit or its\n"
    "container and the commands that fix it.\n"
    "\n"
    "Options:\n"
    "  -a, --all          every process on the host, one line each, then the fixes\n"
    "      --json         one JSON object (with --all: every process, and a summary)\n"
    "      --prometheus   with --all: metrics for Prometheus (node_exporter's\n"
    "                     textfile collector), counted by unit and command name\n"
    "      --output FILE  with --prometheus: replace FILE whole, never half-written\n"
    "      --no-probe     judge its glibc by its version, without running it\n"
    "  -h, --help         print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix inspect 1234                is process 1234 hit by the bug?\n"
    "  sudo arenafix inspect --all          every process, and how to fix them\n"
    "  arenafix inspect --all --json        every process, for a script\n"
    "  arenafix inspect --all --prometheus  the host, for node_exporter\n"
    "\n"
    "Exit status: 0 fine, 1 could not read the process, 2 usage error, 3 hit,\n"
    "4 at risk, 5 cannot tell; with --all, the worst of its processes (3, then 4,\n"
    "then 5, else 0).\n"
    "See arenafix-inspect(1).\n";

/* One line naming the problem and the fix, for a /proc read that failed. */
static int proc_error(const struct afx_report *r, const char *what, int err)
{
    struct afx_access_facts facts;
    char why[512];
    /* A process that is there (its pidfd) but has no /proc directory:
     * hidden from us (hidepid), or in another PID namespace's /proc. */
    bool hidden = err == ENOENT && r->pidfd >= 0 && !afx_report_exited(r);
    if ((err == ENOENT || err == ESRCH) && !hidden) {
        afx_error("no process %ld; check the PID (ps -e)", r->pid);
    } else if (err == EACCES || err == EPERM || hidden) {
        afx_access_facts_read(&facts);
        afx_denied_reason(&facts, what, hidden, why, sizeof why);
        if (hidden)
            afx_error("process %ld is running but /proc shows it no directory: %s", r->pid, why);
        else
            afx_error("no permission to read /proc/%ld/%s; %s", r->pid, what, why);
    } else {
        afx_error("cannot read /proc/%ld/%s: %s", r->pid, what, strerror(err));
    }
    return AFX_EXIT_FAIL;
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
    char user[64];
    printf("process %ld (%s): %s\n", r->pid, esc(r->name), afx_health_names[r->health]);
    if (r->unread[0] != '\0') {
        /* What was read of it is a part: only the verdict says anything. */
        if (r->unit.name[0] != '\0')
            printf("  systemd unit:       %s%s\n", esc(r->unit.name), r->unit.user ? " (a user's unit)" : "");
        printf("verdict: %s: %s\n", afx_health_names[r->health], esc(r->why));
        return;
    }
    printf("  threads:            %ld, %ld pinned narrower than the %ld online CPUs", r->threads.count,
           r->threads.narrowed, r->host.online);
    if (r->threads.narrowed > 0)
        printf(" (the narrowest on CPU list %s)", esc(r->threads.narrowest));
    printf("\n  CPUs:               online %s", esc(r->host.online_list));
    if (r->host.isolated_list[0])
        printf(", isolated %s", esc(r->host.isolated_list));
    if (r->host.nohz_full_list[0])
        printf(", nohz_full %s", esc(r->host.nohz_full_list));
    printf("\n  glibc:              %s, %s (%s)\n", esc(r->glibc), afx_glibc_state_name(r->state), esc(r->probe_note));
    if (r->unit.name[0] != '\0')
        printf("  systemd unit:       %s%s\n", esc(r->unit.name), r->unit.user ? " (a user's unit)" : "");
    else
        printf("  systemd unit:       none\n");
    if (r->container.engine[0] != '\0' && r->container.pod_name[0] != '\0')
        printf("  container:          %s %s of pod %s/%s, id %s\n", r->container.engine,
               r->container.pod_container[0] ? r->container.pod_container : "(its sandbox)", r->container.pod_ns,
               r->container.pod_name, r->container.id);
    else if (r->container.engine[0] != '\0')
        printf("  container:          %s %s, id %s\n", r->container.engine,
               r->container.name[0] ? r->container.name : "(name unknown)", r->container.id);
    else if (r->container.userns)
        printf("  container:          rootless: in a user namespace of %s (uid %u), its engine not known to root\n",
               esc(afx_user_name(r->container.owner, user, sizeof user)[0] ? user : "no user name"), r->container.owner);
    else if (r->own_root && r->unit.name[0] != '\0')
        printf("  container:          in a root of its own under %s (its mount namespace and root are not the "
               "host's; no engine's files name it): arenafix enable of that unit does not reach it\n",
               esc(r->unit.name));
    else if (r->own_root)
        printf("  container:          in a root of its own (its mount namespace and root are not the host's; no "
               "engine's files name it)\n");
    if (r->maps.arenafix)
        printf("  libarenafix:        loaded, mode %s\n", afx_mode_name(r->env.arenafix.mode));
    else
        printf("  libarenafix:        not loaded\n");
    if (r->maps.foreign[0])
        printf("  malloc:             %s\n", esc(r->maps.foreign));
    printf("  user's arena limit: %s\n",
           r->env.user_limit ? "set in its environment (MALLOC_ARENA_MAX or GLIBC_TUNABLES)"
                             : "none in its environment (glibc's own rule decides)");
    printf("  arenas, estimated:  %ld (main + %ld heaps in /proc/%ld/maps; an upper bound)\n",
           r->maps.heaps + 1, r->maps.heaps, r->pid);
    if (r->exact > 0) {
        printf("  arenas, counted:    %ld (heap headers read from /proc/%ld/mem)\n", r->exact, r->pid);
    } else if (r->mem_err == EACCES || r->mem_err == EPERM) {
        struct afx_access_facts facts;
        char why[512];
        afx_access_facts_read(&facts);
        afx_denied_reason(&facts, "mem", false, why, sizeof why);
        printf("  arenas, counted:    not available (no permission to read /proc/%ld/mem; %s)\n", r->pid, why);
    } else {
        printf("  arenas, counted:    not available (no access to /proc/%ld/mem)\n", r->pid);
    }
    printf("verdict: %s: %s\n", afx_health_names[r->health], esc(r->why));
    static struct afx_fixes fixes;
    afx_fixes_add(&fixes, r);
    afx_fixes_print(&fixes, stdout);
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
        return proc_error(r, what, err);
    if (probe && r->probe_note[0] == '\0')
        afx_probe_its_glibc(r, afx_judge_glibc_by_host);
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
        { "prometheus", no_argument, NULL, 'P' },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    bool json = false, probe = true, all = false, prometheus = false;
    const char *output = NULL;
    int c;
    /* Help wins wherever it is among the options, before any error. */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(help, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        }
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:ah", options, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'n')
            probe = false;
        else if (c == 'a')
            all = true;
        else if (c == 'P')
            prometheus = true;
        else if (c == 'o')
            output = optarg;
        else
            afx_usage_error("inspect: %s %s; %s", c == ':' ? "missing value for" : "unknown option",
                            argv[optind - 1], usage_line);
    }
    if (json && prometheus)
        afx_usage_error("inspect: --json and --prometheus are two formats, give one; %s", usage_line);
    if (prometheus && !all)
        afx_usage_error("inspect: --prometheus reports the whole host, with --all; %s", usage_line);
    if (output != NULL && !prometheus)
        afx_usage_error("inspect: --output is for --prometheus (a file node_exporter reads); %s", usage_line);
    if (output != NULL && output[0] == '\0')
        afx_usage_error("inspect: --output needs a file name; %s", usage_line);
    if (all && optind < argc)
        afx_usage_error("inspect: --all takes no PID; %s", usage_line);
    if (all)
        return afx_inspect_all(json ? AFX_SCAN_JSON : prometheus ? AFX_SCAN_PROMETHEUS : AFX_SCAN_TEXT, probe, output);
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
    if (json) {
        char **cmd = afx_fix_command(&r);
        afx_report_json(&r, cmd, stdout);
        free(cmd);
    }
    else
        print_text(&r);
    return fflush(stdout) == 0 ? code : AFX_EXIT_FAIL;
}
