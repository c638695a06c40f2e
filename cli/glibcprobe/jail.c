#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probefilter.h"
#include "proclimits.h"
#include "readfile.h"

/* PID last: entering it takes effect at the next fork.  Mount last but
 * one: it changes what paths mean. */
static const char *const ns_names[AFX_JAIL_NS] = { "cgroup", "ipc", "net", "uts", "mnt", "pid" };

#define STATUS_MAX (1L << 20)
/* The kernel writes 16 lines of at most 80 bytes. */
#define LIMITS_MAX (16L << 10)

static bool read_creds(const char *path, struct afx_creds *c)
{
    char *text = afx_slurp_max(path, STATUS_MAX, NULL, NULL);
    bool ok = text != NULL && afx_status_creds(text, c);
    free(text);
    return ok;
}

static int cmp_gid(const void *a, const void *b)
{
    gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;
    return x < y ? -1 : x > y;
}

static bool same_creds(struct afx_creds *a, struct afx_creds *b)
{
    qsort(a->groups, a->ngroups, sizeof a->groups[0], cmp_gid);
    qsort(b->groups, b->ngroups, sizeof b->groups[0], cmp_gid);
    return memcmp(a->uid, b->uid, sizeof a->uid) == 0 && memcmp(a->gid, b->gid, sizeof a->gid) == 0
           && a->ngroups == b->ngroups && memcmp(a->groups, b->groups, a->ngroups * sizeof a->groups[0]) == 0;
}

static bool same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Without privilege: only a process that is this command already. */
static bool open_unprivileged(struct afx_jail *j, long pid, char *err, size_t size)
{
    static struct afx_creds mine;
    char path[64];
    if (!read_creds("/proc/self/status", &mine)) {
        snprintf(err, size, "cannot read this command's own credentials");
        return false;
    }
    if (!same_creds(&j->creds, &mine)) {
        snprintf(err, size, "it runs with other credentials than this command; run inspect as root");
        return false;
    }
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", pid);
    if (!same_file(path, "/proc/self/ns/mnt")) {
        snprintf(err, size, "it runs in another mount namespace; run inspect as root");
        return false;
    }
    return true;
}

static bool open_privileged(struct afx_jail *j, long pid, const struct afx_proc_root *pr, char *err, size_t size)
{
    char path[64];
    for (int i = 0; i < AFX_JAIL_NS; i++) {
        /* Its mounts and root: those the caller checked, not the ones
         * it may have now. */
        if (strcmp(ns_names[i], "mnt") == 0) {
            j->ns[i] = fcntl(pr->mnt, F_DUPFD_CLOEXEC, 0);
        } else {
            snprintf(path, sizeof path, "/proc/%ld/ns/%s", pid, ns_names[i]);
            j->ns[i] = open(path, O_RDONLY | O_CLOEXEC);
        }
        if (j->ns[i] < 0 && errno != ENOENT) {
            snprintf(err, size, "cannot open its %s namespace: %s", ns_names[i], strerror(errno));
            return false;
        }
    }
    j->root = fcntl(pr->root, F_DUPFD_CLOEXEC, 0);
    if (j->root < 0) {
        snprintf(err, size, "cannot open its root directory: %s", strerror(errno));
        return false;
    }
    /* Its limits through prlimit, or where that is refused (a root
     * without CAP_SYS_RESOURCE, in a container) from /proc: a probe
     * with more than it has is no probe of it. */
    static struct rlimit listed[RLIM_NLIMITS];
    bool found[RLIM_NLIMITS] = { false };
    snprintf(path, sizeof path, "/proc/%ld/limits", pid);
    char *text = afx_slurp_max(path, LIMITS_MAX, NULL, NULL);
    bool parsed = text != NULL && afx_limits_parse(text, listed, found);
    free(text);
    for (int r = 0; r < RLIM_NLIMITS; r++) {
        struct rlimit theirs;
        if (getrlimit(r, &j->limits[r]) != 0)
            continue;
        if (prlimit((pid_t)pid, r, NULL, &theirs) != 0) {
            if (!parsed || !found[r]) {
                snprintf(err, size, "cannot read its resource limits: %s", strerror(errno));
                return false;
            }
            theirs = listed[r];
        }
        if (theirs.rlim_cur < j->limits[r].rlim_cur)
            j->limits[r].rlim_cur = theirs.rlim_cur;
        if (theirs.rlim_max < j->limits[r].rlim_max)
            j->limits[r].rlim_max = theirs.rlim_max;
        if (j->limits[r].rlim_cur > j->limits[r].rlim_max)
            j->limits[r].rlim_cur = j->limits[r].rlim_max;
    }
    j->enter = true;
    return true;
}

bool afx_jail_creds(long pid, struct afx_creds *c)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    return read_creds(path, c);
}

/* One identity throughout: a setuid or setgid program (real and
 * effective differ) runs code its real user chose with its owner's
 * rights, and its code must not run so here either. */
static bool one_identity(const struct afx_creds *c)
{
    for (int i = 1; i < 4; i++)
        if (c->uid[i] != c->uid[0] || c->gid[i] != c->gid[0])
            return false;
    return true;
}

bool afx_jail_open(struct afx_jail *j, long pid, const struct afx_proc_root *pr, const struct afx_creds *before,
                   char *err, size_t size)
{
    static struct afx_creds first;
    j->enter = false;
    j->root = -1;
    for (int i = 0; i < AFX_JAIL_NS; i++)
        j->ns[i] = -1;
    for (int r = 0; r < RLIM_NLIMITS; r++)
        getrlimit(r, &j->limits[r]);
    if (!afx_jail_creds(pid, &j->creds)) {
        snprintf(err, size, "cannot read its credentials");
        return false;
    }
    first = *before;
    if (!same_creds(&first, &j->creds)) {
        snprintf(err, size, "its credentials changed while it was read (it ran another program)");
        return false;
    }
    if (!one_identity(&j->creds)) {
        snprintf(err, size, "it runs with mixed user or group IDs (uid %lu, euid %lu: a setuid or setgid program)",
                 (unsigned long)j->creds.uid[0], (unsigned long)j->creds.uid[1]);
        return false;
    }
    return geteuid() == 0 ? open_privileged(j, pid, pr, err, size) : open_unprivileged(j, pid, err, size);
}

void afx_jail_close(struct afx_jail *j)
{
    for (int i = 0; i < AFX_JAIL_NS; i++)
        if (j->ns[i] >= 0)
            close(j->ns[i]);
    if (j->root >= 0)
        close(j->root);
    j->root = -1;
}

/* ---- in the child ------------------------------------------------------ */

/* Every descriptor above 2 closes at the exec. */
static void close_on_exec(void)
{
    if (syscall(SYS_close_range, 3U, ~0U, 4U /* CLOSE_RANGE_CLOEXEC */) == 0)
        return;
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < (1L << 20) ? max : 1L << 20); fd++)
        fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

/* The caller waits for the child that is in the PID namespace; told to
 * stop (SIGTERM), it kills and reaps it first, so that no zombie is
 * left to the namespace's init. */
static _Noreturn void wait_and_exit(pid_t child)
{
    close(STDOUT_FILENO);
    close(STDERR_FILENO);
    syscall(SYS_close_range, 3U, ~0U, 0U);
    int status;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR)
            _exit(127);
        if (stop)
            kill(child, SIGKILL);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

static bool enter_namespaces(const struct afx_jail *j)
{
    for (int i = 0; i < AFX_JAIL_NS; i++) {
        if (j->ns[i] < 0)
            continue;
        if (setns(j->ns[i], 0) != 0)
            return false;
        if (strcmp(ns_names[i], "mnt") == 0 && (fchdir(j->root) != 0 || chroot(".") != 0))
            return false;
    }
    struct sigaction term = { .sa_handler = on_term }, dfl = { .sa_handler = SIG_DFL };
    sigaction(SIGTERM, &term, NULL);
    pid_t child = fork();
    if (child < 0)
        return false;
    if (child > 0)
        wait_and_exit(child);
    sigaction(SIGTERM, &dfl, NULL);
    return true;
}

/* No capability, now or after the exec, even as uid 0: the bounding set
 * emptied, root's automatic ones locked out; and AFX_PROBE_ID for every
 * user and group ID, no supplementary group.  Not the process's own
 * IDs: after the exec the child is an ordinary (dumpable) process, and
 * every other process of that user could write into its memory
 * (/proc/PID/mem, ptrace) and take what the process has beyond its uid
 * (its groups, its root). */
static bool become(const struct afx_jail *j)
{
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED
                                     | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)
        != 0)
        return false;
    for (int cap = 0; cap <= CAP_LAST_CAP || prctl(PR_CAPBSET_READ, cap) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, cap) != 0 && errno != EINVAL)
            return false;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    for (int r = 0; r < RLIM_NLIMITS; r++)
        setrlimit(r, &j->limits[r]);
    const uid_t id = AFX_PROBE_ID;
    if (setgroups(0, NULL) != 0 || setresgid(id, id, id) != 0 || setresuid(id, id, id) != 0)
        return false;
    struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { 0 };
    return syscall(SYS_capset, &header, none) == 0;
}

bool afx_jail_enter(const struct afx_jail *j, const int *keep, int nkeep, int exec_fd, const char *exec_path)
{
    close_on_exec();
    if (j->enter && (!enter_namespaces(j) || !become(j)))
        return false;
    /* A new session has no controlling terminal: nothing reaches the
     * caller's (TIOCSTI, escapes).  A new keyring holds none of the
     * caller's keys. */
    pid_t parent = getppid();
    if (setsid() < 0)
        return false;
    if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0 && errno != ENOSYS)
        return false;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        return false;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return false;
    for (int i = 0; i < nkeep; i++)
        if (fcntl(keep[i], F_SETFD, 0) != 0)
            return false;
    return afx_probe_filter_install(exec_fd, exec_path);
}
