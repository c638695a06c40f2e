#include "procreport.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "container.h"
#include "json.h"
#include "proc/mappedfile.h"
#include "proc/ownroot.h"
#include "proc/userfs.h"
#include "proc/procstatus.h"
#include "proctable.h"
#include "readfile.h"

/* The kernel keeps 16 bytes of a name; anything longer is not comm. */
#define COMM_MAX 4096
/* A stat line is a few hundred bytes, its name at most 64. */
#define STAT_MAX 4096

/* Versions already read, by the file they were read from: a host's
 * processes share a few libc files, and each banner may be 16 MiB in.
 * A file without a banner is remembered too (found false), or every
 * process mapping it would cost a full AFX_GLIBC_SCAN_MAX read.  A file
 * changed in place (its size or times) is read again. */
struct known_libc {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    bool found;
    char version[32];
};

/* Bounded, yet never closed to new files: when every slot is taken,
 * the oldest entry gives way.  A cache that stopped adding once full
 * was switched off for the rest of the scan by the first KNOWN_LIBC_MAX
 * files any user mapped, the host's own libc included.  Replacing the
 * oldest keeps the files seen last, so the cost is at most one read per
 * file among the last KNOWN_LIBC_MAX distinct ones.  An attacker that
 * cycles through more distinct files than that can still make each of
 * its processes cost one read, but one new file per process does that
 * under any cache (a file never seen must be read once), and each read
 * stops at AFX_GLIBC_SCAN_MAX.  256 files cover a host's libcs and its
 * containers' many times over, in 24 KiB. */
#define KNOWN_LIBC_MAX 256

static bool same_file(const struct known_libc *k, const struct stat *st)
{
    return k->dev == st->st_dev && k->ino == st->st_ino && k->size == st->st_size
           && k->mtime.tv_sec == st->st_mtim.tv_sec && k->mtime.tv_nsec == st->st_mtim.tv_nsec
           && k->ctime.tv_sec == st->st_ctim.tv_sec && k->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The version in the banner of the open libc fd, read once per file,
 * whether it has one or not. */
static bool cached_version(int fd, const struct stat *st, char *out, size_t size)
{
    static struct known_libc known[KNOWN_LIBC_MAX];
    static size_t count, oldest;
    for (size_t i = 0; i < count; i++)
        if (same_file(&known[i], st)) {
            if (known[i].found)
                snprintf(out, size, "%s", known[i].version);
            return known[i].found;
        }
    bool found = afx_glibc_version(fd, out, size);
    struct known_libc *k;
    if (count < KNOWN_LIBC_MAX) {
        k = &known[count++];
    } else {
        k = &known[oldest];
        oldest = (oldest + 1) % KNOWN_LIBC_MAX;
    }
    *k = (struct known_libc){ st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim, found, "" };
    if (found)
        snprintf(k->version, sizeof k->version, "%s", out);
    return found;
}

/* The glibc banner of the libc it has mapped: the mapped file itself,
 * never a file by the name maps shows. */
static void glibc_version(struct afx_report *r)
{
    struct stat st;
    snprintf(r->glibc, sizeof r->glibc, "unknown");
    r->libc_known = false;
    if (r->maps.libc.path[0] == '\0')
        return;
    int fd = afx_mapped_open(r->pid, &r->maps.libc);
    if (fd < 0) {
        /* Nothing of it is read, run or probed: judged from /proc. */
        const char *why = afx_user_fs_note(errno);
        if (why != NULL)
            snprintf(r->probe_note, sizeof r->probe_note, "not read: its libc is %s", why);
        return;
    }
    if (fstat(fd, &st) == 0) {
        r->libc_known = true;
        r->libc_dev = st.st_dev;
        r->libc_ino = st.st_ino;
        if (!cached_version(fd, &st, r->glibc, sizeof r->glibc))
            snprintf(r->glibc, sizeof r->glibc, "unknown");
    }
    close(fd);
}

/* Its executable holds glibc's malloc, linked in (static), read once
 * per file.  /proc/PID/exe is the very file it runs, whatever its name. */
static bool static_glibc(long pid, const char **unread)
{
    static struct known_libc known[KNOWN_LIBC_MAX];
    static size_t count, oldest;
    struct stat st;
    int fd = afx_exe_open(pid);
    if (fd < 0) {
        *unread = afx_user_fs_note(errno);
        return false;
    }
    bool found = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        size_t i = 0;
        while (i < count && !same_file(&known[i], &st))
            i++;
        if (i < count) {
            found = known[i].found;
        } else {
            found = afx_glibc_malloc_in(fd);
            struct known_libc *k = count < KNOWN_LIBC_MAX ? &known[count++] : &known[oldest];
            if (k == &known[oldest] && count == KNOWN_LIBC_MAX)
                oldest = (oldest + 1) % KNOWN_LIBC_MAX;
            *k = (struct known_libc){ st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim, found, "" };
        }
    }
    close(fd);
    return found;
}

/* No libc.so.6 mapped: musl's, glibc linked in, or neither. */
static void no_libc_so(struct afx_report *r)
{
    const char *unread = NULL;
    if (r->maps.musl) {
        r->libc_kind = AFX_LIBC_MUSL;
        snprintf(r->probe_note, sizeof r->probe_note, "musl libc mapped, not glibc");
    } else if (static_glibc(r->pid, &unread)) {
        r->libc_kind = AFX_LIBC_STATIC_GLIBC;
        snprintf(r->probe_note, sizeof r->probe_note, "glibc linked into its executable (static), which names "
                 "no version: not probed, nothing of it is run");
    } else if (unread != NULL) {
        r->exe_unread = true;
        snprintf(r->probe_note, sizeof r->probe_note, "not read: its executable is %s", unread);
    } else if (r->maps.heaps == 0) {
        snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped (static, or a kernel thread)");
    }
}

/* Its comm as the kernel holds it (a newline inside is its own; the
 * last one is the file's). */
static int read_name(struct afx_report *r)
{
    char path[64];
    size_t len;
    afx_proc_path(path, sizeof path, r->pid, "/comm");
    char *comm = afx_slurp_max(path, COMM_MAX, &r->deadline, &len);
    if (comm == NULL)
        return errno;
    if (len > 0 && comm[len - 1] == '\n')
        comm[--len] = '\0';
    snprintf(r->name, sizeof r->name, "%s", comm);
    free(comm);
    return 0;
}

/* Its start time, 0 if unreadable. */
static unsigned long long read_start_time(long pid)
{
    char path[64];
    unsigned long long t;
    afx_proc_path(path, sizeof path, pid, "/stat");
    char *text = afx_slurp_max(path, STAT_MAX, NULL, NULL);
    bool ok = text != NULL && afx_stat_start_time(text, &t);
    free(text);
    return ok ? t : 0;
}

bool afx_report_same_process(const struct afx_report *r)
{
    if (r->pidfd >= 0)
        return syscall(SYS_pidfd_send_signal, r->pidfd, 0, NULL, 0) == 0;
    return r->start_time != 0 && read_start_time(r->pid) == r->start_time;
}

/* Its real uid, -1 if unreadable: who started it, which it cannot
 * change (/proc/PID is root's for any process that made itself
 * undumpable, and a set-user-ID program changes only the effective
 * uid).  Its status, read once a run (proctable.h). */
static long read_uid(long pid, const struct afx_deadline *by)
{
    struct afx_proc_entry *e = afx_proc_entry(pid, by);
    return e != NULL && e->err == 0 ? e->uid : -1;
}

/* The kernel's name for its executable: text, never followed. */
static void read_exe(struct afx_report *r, const char *dir)
{
    char path[160];
    afx_path_join(path, sizeof path, dir, "/exe");
    ssize_t n = readlink(path, r->exe, sizeof r->exe - 1);
    r->exe[n > 0 ? n : 0] = '\0';
}

/* What a report not read whole says of what was not read. */
static void unread(struct afx_report *r)
{
    snprintf(r->probe_note, sizeof r->probe_note, "not probed: not read whole");
    snprintf(r->glibc, sizeof r->glibc, "unknown");
    r->state = AFX_GLIBC_UNKNOWN;
    r->exact = -1;
    r->mem_err = 0;
}

/* The rest of it is not read: why in r->unread, which the verdict
 * rests on.  The unit is still read, if time is left, to name it. */
static int read_no_further(struct afx_report *r, const char *dir, const char *file, int err)
{
    if (err == EFBIG)
        snprintf(r->unread, sizeof r->unread, "its memory map (%.40s/%.16s) is larger than %ld MiB, more than inspect "
                 "reads of a process: not judged on a part of it", dir, file, AFX_MAPS_READ_MAX >> 20);
    else
        snprintf(r->unread, sizeof r->unread, "reading %.40s/%.16s took longer than %d s, more than inspect spends "
                 "on a process: not judged on a part of it", dir, file, AFX_READ_SECONDS);
    unread(r);
    afx_read_cgroup(r->pid, &r->deadline, &r->unit, &r->container);
    r->own_root = !r->host_init && afx_own_root(r->pid);
    return 0;
}

void afx_report_skip(struct afx_report *r, const char *why)
{
    char dir[64];
    r->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r->pid, 0);
    afx_deadline_in(&r->deadline, AFX_READ_SECONDS);
    afx_proc_path(dir, sizeof dir, r->pid, "");
    if (read_name(r) != 0)
        r->name[0] = '\0';
    read_exe(r, dir);
    snprintf(r->unread, sizeof r->unread, "%s", why);
    unread(r);
}

void afx_report_reset(struct afx_report *r, long pid, const struct afx_host *host)
{
    /* Not "*r = (struct afx_report){ ... }": that zeroes the maps'
     * buffers too, 290 KiB a process, two thirds of a scan's
     * instructions.  afx_maps_begin resets the maps as their reader
     * needs them; the rest is zeroed. */
    size_t at = offsetof(struct afx_report, maps), after = at + sizeof r->maps;
    memset(r, 0, at);
    memset((char *)r + after, 0, sizeof *r - after);
    afx_maps_begin(&r->maps);
    r->pid = pid;
    r->pidfd = -1;
    r->host = *host;
}

static bool cut_short(int err)
{
    return err == EFBIG || err == ETIME;
}

int afx_report_read(struct afx_report *r, const char **what)
{
    /* Held while we read: the PID cannot be reused for another process
     * without our noticing (jail.c checks it before it runs anything). */
    r->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r->pid, 0);
    if (r->pidfd < 0 && errno == ESRCH) {
        *what = "comm";
        return ESRCH;
    }
    /* From the start: every read after this one counts. */
    afx_deadline_in(&r->deadline, AFX_READ_SECONDS);
    r->unread[0] = '\0';
    r->start_time = read_start_time(r->pid);
    r->probe_note[0] = '\0';
    r->untested = false;
    r->probed = false;
    r->state = AFX_GLIBC_UNKNOWN;
    char top[32], dir[128];
    afx_proc_path(top, sizeof top, r->pid, "");
    snprintf(dir, sizeof dir, "%s", top);
    int err = read_name(r);
    if (err == ETIME)
        return read_no_further(r, top, "comm", err);
    if (err != 0) {
        *what = "comm";
        return err;
    }
    /* Before anything that may cut the read short: the metrics rank a
     * process by its real uid, and one not read whole must not pass for
     * root's. */
    r->uid = read_uid(r->pid, &r->deadline);
    if (!afx_read_maps(dir, &r->deadline, &r->maps)
        || (r->maps.lines == 0 && afx_live_thread_dir(r->pid, &r->deadline, dir, sizeof dir)
            && !afx_read_maps(dir, &r->deadline, &r->maps))) {
        err = errno;
        *what = "maps";
        if (!cut_short(err))
            return err;
        read_exe(r, dir);
        return read_no_further(r, dir, "maps", err);
    }
    read_exe(r, dir);
    r->libc_kind = AFX_LIBC_GLIBC;
    if (r->maps.libc.path[0] == '\0' && r->maps.loader.path[0] == '\0')
        no_libc_so(r);

    if (!afx_read_threads(r->pid, r->host.online, &r->deadline, &r->threads))
        return read_no_further(r, top, "task/*/status", ETIME);
    r->exact = afx_count_target_arenas(dir, &r->maps, &r->deadline, &r->mem_err);
    if (r->mem_err == ETIME)
        return read_no_further(r, dir, "mem", ETIME);
    afx_read_cgroup(r->pid, &r->deadline, &r->unit, &r->container);
    /* The host's own process (hostglibc.h) is compared with none. */
    r->own_root = !r->host_init && afx_own_root(r->pid);
    /* Defaults stand for an environment it ran out of time to read. */
    if (!afx_read_env(dir, &r->deadline, &r->env) || afx_deadline_passed(&r->deadline))
        return read_no_further(r, dir, "environ", ETIME);
    glibc_version(r);
    return 0;
}

bool afx_report_exited(const struct afx_report *r)
{
    if (r->pidfd < 0)
        return kill((pid_t)r->pid, 0) != 0 && errno == ESRCH;
    /* A pidfd polls readable once the process has exited. */
    struct pollfd p = { .fd = r->pidfd, .events = POLLIN };
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP)) != 0;
}

void afx_report_close(struct afx_report *r)
{
    if (r->pidfd >= 0)
        close(r->pidfd);
    r->pidfd = -1;
}

void afx_report_judge(struct afx_report *r)
{
    struct afx_process_facts facts = {
        .threads = r->threads.count, .online = r->host.online, .narrowed = r->threads.narrowed,
        .arenas = r->exact > 0 ? r->exact : r->maps.heaps + 1, .arenafix = r->maps.arenafix,
        .mode = r->env.arenafix.mode, .arenafix_max = r->env.arenafix.arena_max,
        .user_limit = r->env.user_limit, .foreign = r->maps.foreign[0] ? r->maps.foreign : NULL,
        .glibc = r->state, .glibc_untested = r->untested, .unread = r->unread[0] ? r->unread : NULL,
        .container = afx_in_container(&r->container) || r->own_root, .libc = r->libc_kind,
        /* CRI-O's, or containerd's in its CRI plugin's namespace (a
         * container ctr runs has its own, its shim says). */
        .pod = strcmp(r->container.engine, "cri-o") == 0
               || (strcmp(r->container.engine, "containerd") == 0
                   && (r->container.ns[0] == '\0' || strcmp(r->container.ns, "k8s.io") == 0)),
    };
    r->health = afx_judge_process(&facts, r->why, sizeof r->why);
}

bool afx_report_fixed(const struct afx_report *r)
{
    return r->health == AFX_FINE && r->maps.arenafix && r->env.arenafix.mode != AFX_MODE_OFF;
}

int afx_health_status(enum afx_health h)
{
    return h == AFX_HIT       ? AFX_EXIT_AFFECTED
           : h == AFX_AT_RISK ? AFX_EXIT_AT_RISK
           : h == AFX_UNDETERMINED ? AFX_EXIT_UNKNOWN
                              : AFX_EXIT_OK;
}

/* The whole command that runs root's podman container again with the
 * fix's options, as podman recorded it: an array of words, or null. */
static void json_command(struct afx_json *j, char *const *cmd)
{
    char *array = NULL;
    size_t size = 0;
    FILE *words = cmd != NULL ? open_memstream(&array, &size) : NULL;
    if (words != NULL) {
        fputc('[', words);
        for (char *const *w = cmd; *w != NULL; w++) {
            if (w != cmd)
                fputs(", ", words);
            afx_json_quote(words, *w);
        }
        fputc(']', words);
    }
    if (words != NULL && fclose(words) == 0 && array != NULL)
        afx_json_raw(j, "fix_command", array);
    else
        afx_json_raw(j, "fix_command", "null");
    free(array);
}

/* The object's keys are the same for every process, null where unknown:
 * a reader (Ansible's selectattr) may take any of them from any
 * record.  unreadable: why none of it could be read, or NULL. */
static void report_json(const struct afx_report *r, const char *unreadable, char *const *cmd, FILE *out)
{
    struct afx_json j;
    bool known = unreadable == NULL;
    afx_json_begin(&j, out);
    afx_json_str(&j, "verdict", known ? afx_health_names[r->health] : "unreadable");
    if (known)
        afx_json_long(&j, "exit_status", afx_health_status(r->health));
    else
        afx_json_raw(&j, "exit_status", "null");
    afx_json_str(&j, "reason", known ? r->why : unreadable);
    afx_json_long(&j, "pid", r->pid);
    afx_json_str(&j, "name", known || r->name[0] ? r->name : NULL);
    afx_json_str(&j, "exe", r->exe[0] ? r->exe : NULL);
    /* Of one not read, what a part says is not shown (as in the text
     * report): its unit and container are unknown. */
    afx_json_str(&j, "unit", known && r->unit.name[0] ? r->unit.name : NULL);
    if (known)
        afx_json_bool(&j, "user_unit", r->unit.user);
    else
        afx_json_raw(&j, "user_unit", "null");
    bool boxed = known && r->container.engine[0] != '\0';
    afx_json_str(&j, "container_engine", boxed ? r->container.engine : NULL);
    afx_json_str(&j, "container_id", boxed ? r->container.id : NULL);
    afx_json_str(&j, "container_name", boxed && r->container.name[0] ? r->container.name : NULL);
    /* A Kubernetes pod's, by the CRI annotations of its bundle (root's). */
    bool pod = boxed && r->container.pod_name[0] != '\0';
    afx_json_str(&j, "pod_namespace", pod ? r->container.pod_ns : NULL);
    afx_json_str(&j, "pod_name", pod ? r->container.pod_name : NULL);
    afx_json_str(&j, "pod_container", pod && r->container.pod_container[0] ? r->container.pod_container : NULL);
    /* A rootless one's user, by the kernel's word; its engine unknown. */
    if (known && r->container.userns)
        afx_json_long(&j, "rootless_owner_uid", (long)r->container.owner);
    else
        afx_json_raw(&j, "rootless_owner_uid", "null");
    /* In a root of its own, an engine named or not: its unit's drop-in
     * never reaches it, nor does its unit's main process speak for it. */
    if (known)
        afx_json_bool(&j, "own_root", r->own_root);
    else
        afx_json_raw(&j, "own_root", "null");
    /* Counts of a process not read whole would be a part's. */
    bool whole = known && r->unread[0] == '\0';
    if (whole) {
        afx_json_long(&j, "threads", r->threads.count);
        afx_json_long(&j, "threads_narrowed", r->threads.narrowed);
    } else {
        afx_json_raw(&j, "threads", "null");
        afx_json_raw(&j, "threads_narrowed", "null");
    }
    afx_json_long(&j, "online_cpus", r->host.online);
    afx_json_str(&j, "online_list", r->host.online_list);
    afx_json_str(&j, "isolated_list", r->host.isolated_list);
    afx_json_str(&j, "nohz_full_list", r->host.nohz_full_list);
    afx_json_str(&j, "libc", !known                                 ? NULL
                             : r->libc_kind == AFX_LIBC_MUSL         ? "musl"
                             : r->libc_kind == AFX_LIBC_STATIC_GLIBC ? "glibc (static)"
                                                                     : "glibc");
    afx_json_str(&j, "glibc", known ? r->glibc : NULL);
    afx_json_str(&j, "glibc_state", known ? afx_glibc_state_name(r->state) : NULL);
    afx_json_str(&j, "glibc_note", known ? r->probe_note : NULL);
    afx_json_bool(&j, "glibc_executed", known && r->probed);
    if (known) {
        afx_json_bool(&j, "libarenafix", r->maps.arenafix);
        afx_json_str(&j, "libarenafix_mode", r->maps.arenafix ? afx_mode_name(r->env.arenafix.mode) : NULL);
        afx_json_str(&j, "foreign_malloc", r->maps.foreign[0] ? r->maps.foreign : NULL);
        afx_json_bool(&j, "arena_limit_set", r->env.user_limit);
    } else {
        afx_json_raw(&j, "libarenafix", "null");
        afx_json_raw(&j, "libarenafix_mode", "null");
        afx_json_raw(&j, "foreign_malloc", "null");
        afx_json_raw(&j, "arena_limit_set", "null");
    }
    if (whole)
        afx_json_long(&j, "arenas_estimated", r->maps.heaps + 1);
    else
        afx_json_raw(&j, "arenas_estimated", "null");
    if (known)
        afx_json_long(&j, "arenas_counted", r->exact);
    else
        afx_json_raw(&j, "arenas_counted", "null");
    json_command(&j, cmd);
    afx_json_end(&j);
}

void afx_report_json(const struct afx_report *r, char *const *fix_command, FILE *out)
{
    report_json(r, NULL, fix_command, out);
}

void afx_report_json_unreadable(const struct afx_report *r, const char *why, FILE *out)
{
    report_json(r, why, NULL, out);
}
