/* arenafix inspect [--json] [--no-probe] PID: diagnose a running process
 * from /proc, without stopping it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "hostinfo.h"
#include "json.h"
#include "probe.h"
#include "procmaps.h"
#include "readfile.h"
#include "sysparse.h"
#include "usersettings.h"
#include "verdict.h"

struct report {
    long pid;
    char name[64];
    long threads, narrowed, min_cpus;
    char narrow_list[256];      /* the CPUs of the narrowest thread */
    struct afx_maps maps;
    long exact;                 /* arenas from the heap headers, -1 unread */
    char glibc[32];
    enum afx_glibc_state state;
    char probe_note[256];
    bool user_limit;
    struct afx_host host;
    struct afx_process_facts facts;
    enum afx_health health;
    char why[256];
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

static void read_threads(struct report *r)
{
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/task", r->pid);
    DIR *d = opendir(dir);
    r->min_cpus = -1;
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[400], list[256];
        snprintf(path, sizeof path, "%s/%s/status", dir, e->d_name);
        char *text = afx_slurp(path, NULL);
        if (text == NULL)
            continue;   /* the thread has just exited */
        if (afx_status_field(text, "Cpus_allowed_list", list, sizeof list)) {
            long n = afx_cpulist_count(list);
            r->threads++;
            if (n > 0 && n < r->host.online)
                r->narrowed++;
            if (n > 0 && (r->min_cpus < 0 || n < r->min_cpus)) {
                r->min_cpus = n;
                snprintf(r->narrow_list, sizeof r->narrow_list, "%s", list);
            }
        }
        free(text);
    }
    closedir(d);
}

/* Exact count: the first heap of each arena has no predecessor
 * (heap_info.prev, the second word).  Needs ptrace-level access to
 * /proc/PID/mem; -1 without it. */
static long count_first_heaps(const struct report *r)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/mem", r->pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long first = 0;
    for (long i = 0; i < r->maps.heaps; i++) {
        void *words[2];
        if (pread(fd, words, sizeof words, (off_t)r->maps.heap_at[i]) != sizeof words) {
            close(fd);
            return -1;
        }
        if (words[1] == NULL)
            first++;
    }
    close(fd);
    return first + 1;   /* and the main arena */
}

/* The process's own files, seen through its root (containers). */
static void in_root(const struct report *r, const char *path, char *out, size_t size)
{
    char link[64], root[PATH_MAX];
    snprintf(link, sizeof link, "/proc/%ld/root", r->pid);
    ssize_t n = readlink(link, root, sizeof root - 1);
    if (n == 1 && root[0] == '/')
        snprintf(out, size, "%s", path);
    else
        snprintf(out, size, "%s%s", link, path);
}

/* "GNU C Library (Debian GLIBC 2.36-9+deb12u8) stable release version 2.36." */
static void glibc_version(struct report *r)
{
    char path[PATH_MAX + 64];
    size_t len;
    snprintf(r->glibc, sizeof r->glibc, "unknown");
    if (r->maps.libc[0] == '\0')
        return;
    in_root(r, r->maps.libc, path, sizeof path);
    char *text = afx_slurp(path, &len);
    if (text == NULL)
        return;
    static const char marker[] = "release version ";
    char *hit = memmem(text, len, marker, sizeof marker - 1);
    if (hit != NULL) {
        hit += sizeof marker - 1;
        size_t n = 0;
        while (n < sizeof r->glibc - 1 && hit + n < text + len && (hit[n] == '.' || (hit[n] >= '0' && hit[n] <= '9')))
            n++;
        while (n > 0 && hit[n - 1] == '.')
            n--;
        memcpy(r->glibc, hit, n);
        r->glibc[n] = '\0';
    }
    free(text);
}

/* Run the probe under the process's own ld.so and libc. */
static void probe_its_glibc(struct report *r)
{
    char loader[PATH_MAX + 64], libdir[PATH_MAX + 64], err[512];
    if (r->maps.libc[0] == '\0' || r->maps.loader[0] == '\0') {
        snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped");
        return;
    }
    in_root(r, r->maps.loader, loader, sizeof loader);
    in_root(r, r->maps.libc, libdir, sizeof libdir);
    struct afx_glibc g = { .loader = loader, .libdir = dirname(libdir) };
    struct afx_probe p;
    if (!afx_probe_glibc(&g, r->host.online, NULL, &p, err, sizeof err)) {
        snprintf(r->probe_note, sizeof r->probe_note, "probe failed: %.200s", err);
        return;
    }
    r->state = p.verdict == AFX_AFFECTED ? AFX_GLIBC_AFFECTED
               : p.verdict == AFX_NOT_AFFECTED ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    snprintf(r->probe_note, sizeof r->probe_note, "probed: %s", p.reason);
}

static void read_user_limit(struct report *r)
{
    char path[64];
    size_t len;
    snprintf(path, sizeof path, "/proc/%ld/environ", r->pid);
    char *env = afx_slurp(path, &len);
    if (env == NULL)
        return;
    unsigned long v;
    for (char *p = env; p < env + len; p += strlen(p) + 1) {
        if (strncmp(p, "MALLOC_ARENA_MAX=", 17) == 0 && afx_env_arena_max(p + 17, &v))
            r->user_limit = true;
        if (strncmp(p, "GLIBC_TUNABLES=", 15) == 0 && afx_tunables_arena_max(p + 15, &v))
            r->user_limit = true;
    }
    free(env);
}

static const char *glibc_state_name(enum afx_glibc_state s)
{
    return s == AFX_GLIBC_AFFECTED ? "affected" : s == AFX_GLIBC_FIXED ? "not affected" : "unknown";
}

static void print_text(const struct report *r)
{
    printf("process %ld (%s): %s\n", r->pid, r->name, afx_health_names[r->health]);
    printf("  threads:            %ld, %ld pinned narrower than the %ld online CPUs", r->threads,
           r->narrowed, r->host.online);
    if (r->narrowed > 0)
        printf(" (narrowest: %s)", r->narrow_list);
    printf("\n  CPUs:               online %s", r->host.online_list);
    if (r->host.isolated_list[0])
        printf(", isolated %s", r->host.isolated_list);
    if (r->host.nohz_full_list[0])
        printf(", nohz_full %s", r->host.nohz_full_list);
    printf("\n  glibc:              %s, %s (%s)\n", r->glibc, glibc_state_name(r->state), r->probe_note);
    printf("  libarenafix:        %s\n", r->maps.arenafix ? "loaded" : "not loaded");
    if (r->maps.foreign[0])
        printf("  malloc:             %s\n", r->maps.foreign);
    printf("  arena limit set:    %s\n", r->user_limit ? "yes (environment)" : "no");
    printf("  arenas, estimated:  %ld (main + %ld heaps in /proc/%ld/maps; an upper bound)\n",
           r->maps.heaps + 1, r->maps.heaps, r->pid);
    if (r->exact > 0)
        printf("  arenas, counted:    %ld (heap headers read from /proc/%ld/mem)\n", r->exact, r->pid);
    else
        printf("  arenas, counted:    not available (no access to /proc/%ld/mem)\n", r->pid);
    printf("verdict: %s: %s\n", afx_health_names[r->health], r->why);
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
    afx_json_long(&j, "threads", r->threads);
    afx_json_long(&j, "threads_narrowed", r->narrowed);
    afx_json_long(&j, "online_cpus", r->host.online);
    afx_json_str(&j, "online_list", r->host.online_list);
    afx_json_str(&j, "isolated_list", r->host.isolated_list);
    afx_json_str(&j, "nohz_full_list", r->host.nohz_full_list);
    afx_json_str(&j, "glibc", r->glibc);
    afx_json_str(&j, "glibc_state", glibc_state_name(r->state));
    afx_json_bool(&j, "libarenafix", r->maps.arenafix);
    afx_json_str(&j, "foreign_malloc", r->maps.foreign[0] ? r->maps.foreign : NULL);
    afx_json_bool(&j, "arena_limit_set", r->user_limit);
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

    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", r.pid);
    char *status = afx_slurp(path, NULL);
    if (status == NULL)
        return proc_error(r.pid, "status", errno);
    if (!afx_status_field(status, "Name", r.name, sizeof r.name))
        snprintf(r.name, sizeof r.name, "?");
    free(status);

    snprintf(path, sizeof path, "/proc/%ld/maps", r.pid);
    char *maps = afx_slurp(path, NULL);
    if (maps == NULL)
        return proc_error(r.pid, "maps", errno);
    afx_maps_scan(maps, &r.maps);
    free(maps);
    if (r.maps.libc[0] == '\0' && r.maps.loader[0] == '\0' && r.maps.heaps == 0)
        snprintf(r.probe_note, sizeof r.probe_note, "no glibc mapped (static, or a kernel thread)");

    read_threads(&r);
    r.exact = count_first_heaps(&r);
    read_user_limit(&r);
    glibc_version(&r);
    if (probe && r.probe_note[0] == '\0')
        probe_its_glibc(&r);
    else if (!probe)
        snprintf(r.probe_note, sizeof r.probe_note, "not probed (--no-probe)");

    r.facts = (struct afx_process_facts){
        .threads = r.threads, .online = r.host.online, .narrowed = r.narrowed,
        .arenas = r.exact > 0 ? r.exact : r.maps.heaps + 1, .arenafix = r.maps.arenafix,
        .user_limit = r.user_limit, .foreign = r.maps.foreign[0] ? r.maps.foreign : NULL,
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
