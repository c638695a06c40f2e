#include "hostglibc.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glibcprobe/glibctrust.h"
#include "probeglibc.h"
#include "glibcprobe/probe.h"
#include "proc/mappedfile.h"
#include "proc/procstatus.h"
#include "proctable.h"
#include "proc/userfs.h"
#include "readfile.h"
#include "selfexe.h"

/* Copies compared already, by file: a host's containers share a few
 * images, each with many processes.  A file changed in place is
 * compared again. */
struct compared {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    bool same;
};
#define COMPARED_MAX 64

/* Not on the stack: the report is large (its maps). */
static struct afx_report self, init;

static bool other_root(const struct stat *mine, long pid)
{
    char path[64];
    struct stat st;
    afx_proc_path(path, sizeof path, pid, "/root/");
    return stat(path, &st) == 0 && (st.st_dev != mine->st_dev || st.st_ino != mine->st_ino);
}

/* Its parent, 0 if unreadable: its status, read once a run
 * (proctable.h). */
static long parent_of(long pid)
{
    struct afx_proc_entry *e = afx_proc_entry(pid, NULL);
    return e != NULL && e->err == 0 && e->ppid > 0 ? e->ppid : 0;
}

/* The process whose glibc is the host's, where this command's root is
 * not the host's (a container's, or a chroot's, that sees the host's
 * PIDs): PID 1, or where PID 1's root may not be read, the nearest of
 * this command's ancestors outside its root (the engine's monitor,
 * conmon or a containerd shim, runs in the host's root).  0 if none:
 * as far as it can tell, this command runs in the host's root.  Its
 * ancestors' parentage is the kernel's, not a tenant's to forge. */
static long host_process(void)
{
    struct stat mine, first;
    if (stat("/", &mine) != 0)
        return 0;
    if (stat("/proc/1/root/", &first) == 0)
        return first.st_dev != mine.st_dev || first.st_ino != mine.st_ino ? 1 : 0;
    long pid = (long)getppid();
    for (int hops = 0; pid > 1 && hops < 64; hops++, pid = parent_of(pid))
        if (other_root(&mine, pid))
            return pid;
    return 0;
}

/* The host's glibc as process pid (host_process) maps it, run as that
 * process where that may be, else judged by its version. */
static void probe_init(struct afx_host_glibc *h, const struct afx_host *host, long pid)
{
    const char *what;
    const char *own = gnu_get_libc_version();
    char whose[64];
    snprintf(whose, sizeof whose, pid == 1 ? "PID 1's" : "PID %ld's, above this container", pid);
    h->contained = true;
    init = (struct afx_report){ .pid = pid, .pidfd = -1, .host = *host, .host_init = true };
    int failed = afx_report_read(&init, &what);
    if (failed != 0 || init.unread[0] != '\0' || !init.libc_known || init.maps.loader.path[0] == '\0') {
        afx_report_close(&init);
        snprintf(h->note, sizeof h->note, "not probed: this command runs in a container (its root is not the "
                 "host's; its own glibc, %s, is its image's), and the host's glibc (%s) %s", own, whose,
                 failed != 0 ? "cannot be read" : init.unread[0] ? "was not read whole" : "is not mapped");
        return;
    }
    if (init.container.engine[0] != '\0') {
        /* Never so on a host: its PID 1 is in no container.  Judged
         * below by its version, as a container's files are. */
        snprintf(init.probe_note, sizeof init.probe_note, "PID %ld is in a %s container", pid, init.container.engine);
    } else {
        afx_probe_its_glibc(&init, afx_judge_glibc_by_host);
    }
    afx_report_close(&init);
    if (!init.probed) {
        char why[sizeof init.probe_note];
        struct afx_host_glibc none = { .fd = -1 };
        snprintf(why, sizeof why, "%s", init.probe_note);
        init.probe_note[0] = '\0';
        afx_judge_glibc_unrun(&init, &none);
        snprintf(h->note, sizeof h->note, "the host's glibc (%s; this command runs in a container, on its "
                 "image's glibc %s), judged without running it: %.250s (%.250s)", whose, own, init.probe_note, why);
        h->state = init.state;
        snprintf(h->version, sizeof h->version, "%s", init.glibc);
        return;
    }
    h->probed = true;
    h->dev = init.libc_dev;
    h->ino = init.libc_ino;
    h->state = init.state;
    snprintf(h->version, sizeof h->version, "%s", init.glibc);
    snprintf(h->note, sizeof h->note, "the host's glibc (%s; this command runs in a container, on its image's "
             "glibc %s), probed once as that process: %.450s", whose, own, init.probe_note);
    struct stat st;
    h->fd = afx_mapped_open(pid, &init.maps.libc);
    if (h->fd >= 0 && (fstat(h->fd, &st) != 0 || st.st_dev != h->dev || st.st_ino != h->ino)) {
        close(h->fd);
        h->fd = -1;
    }
}

void afx_host_glibc_probe(struct afx_host_glibc *h, const struct afx_host *host, bool probe)
{
    char path[PATH_MAX], err[512];
    const char *what;
    struct afx_probe p;
    *h = (struct afx_host_glibc){ .state = AFX_GLIBC_UNKNOWN, .fd = -1 };
    snprintf(h->version, sizeof h->version, "%s", gnu_get_libc_version());
    if (!probe) {
        snprintf(h->note, sizeof h->note, "not probed (--no-probe)");
        return;
    }
    long outside = host_process();
    if (outside > 0) {
        probe_init(h, host, outside);
        return;
    }
    self = (struct afx_report){ .pid = getpid(), .host = *host };
    int failed = afx_report_read(&self, &what);
    afx_report_close(&self);
    if (failed != 0 || !self.libc_known || !afx_self_path(path, sizeof path) || strcmp(path, self.exe) != 0) {
        snprintf(h->note, sizeof h->note, "not probed: cannot tell which glibc this command runs on");
        return;
    }
    /* Not through an explicit loader: the children would not run on
     * the same libc then. */
    struct afx_glibc g = { .loader_fd = -1 };
    if (!afx_probe_glibc(&g, host->online, NULL, &p, err, sizeof err)) {
        snprintf(h->note, sizeof h->note, "the probe of the host's glibc failed: %.200s", err);
        return;
    }
    h->probed = true;
    h->dev = self.libc_dev;
    h->ino = self.libc_ino;
    h->state = p.verdict == AFX_AFFECTED ? AFX_GLIBC_AFFECTED
               : p.verdict == AFX_NOT_AFFECTED ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    snprintf(h->note, sizeof h->note, "the host's glibc, probed once: %s", p.reason);
    struct stat st;
    h->fd = afx_mapped_open(self.pid, &self.maps.libc);
    if (h->fd >= 0 && (fstat(h->fd, &st) != 0 || st.st_dev != h->dev || st.st_ino != h->ino)) {
        close(h->fd);
        h->fd = -1;
    }
}

/* r's libc is a copy of the host's probed libc.so.6, byte for byte. */
static bool copy_of_host(const struct afx_report *r, const struct afx_host_glibc *h)
{
    static struct compared seen[COMPARED_MAX];
    static size_t count, oldest;
    struct stat mine, host;
    if (h->fd < 0 || fstat(h->fd, &host) != 0)
        return false;
    int fd = afx_mapped_open(r->pid, &r->maps.libc);
    if (fd < 0)
        return false;
    bool same = false;
    if (fstat(fd, &mine) == 0 && S_ISREG(mine.st_mode) && mine.st_size == host.st_size) {
        for (size_t i = 0; i < count; i++)
            if (seen[i].dev == mine.st_dev && seen[i].ino == mine.st_ino && seen[i].size == mine.st_size
                && seen[i].mtime.tv_sec == mine.st_mtim.tv_sec && seen[i].mtime.tv_nsec == mine.st_mtim.tv_nsec
                && seen[i].ctime.tv_sec == mine.st_ctim.tv_sec && seen[i].ctime.tv_nsec == mine.st_ctim.tv_nsec) {
                close(fd);
                return seen[i].same;
            }
        same = afx_same_bytes(h->fd, fd, host.st_size);
        struct compared *c = count < COMPARED_MAX ? &seen[count++] : &seen[oldest];
        if (c == &seen[oldest] && count == COMPARED_MAX)
            oldest = (oldest + 1) % COMPARED_MAX;
        *c = (struct compared){ mine.st_dev, mine.st_ino, mine.st_size, mine.st_mtim, mine.st_ctim, same };
    }
    close(fd);
    return same;
}

/* Its libc is a file only root can have written (glibctrust.h): only
 * then does its banner say which glibc it is.  Why not in why. */
static bool banner_trusted(const struct afx_report *r, char *why, size_t size)
{
    static struct afx_proc_root pr;
    if (!afx_proc_root_open(r->pid, &pr, why, size))
        return false;
    int fd = afx_mapped_open(r->pid, &r->maps.libc);
    bool ok = fd >= 0 && afx_glibc_trusted(&pr, &r->maps.libc, fd, why, size);
    if (fd < 0 && afx_user_fs_note(errno) != NULL)
        snprintf(why, size, "not read: %s", afx_user_fs_note(errno));
    else if (fd < 0)
        snprintf(why, size, "cannot open it: %s", strerror(errno));
    else
        close(fd);
    afx_proc_root_close(&pr);
    return ok;
}

void afx_judge_glibc_unrun(struct afx_report *r, const struct afx_host_glibc *h)
{
    char why[PATH_MAX + 160];
    if (r->probe_note[0] != '\0')
        return;     /* no glibc mapped */
    if (h->probed && r->libc_known && r->libc_dev == h->dev && r->libc_ino == h->ino) {
        r->state = h->state;
        snprintf(r->probe_note, sizeof r->probe_note, "%.700s", h->note);
        return;
    }
    if (h->probed && copy_of_host(r, h)) {
        r->state = h->state;
        snprintf(r->probe_note, sizeof r->probe_note, "its libc.so.6 is the host's byte for byte (%.700s)", h->note);
        return;
    }
    if (!banner_trusted(r, why, sizeof why)) {
        r->state = AFX_GLIBC_UNKNOWN;
        r->untested = true;
        snprintf(r->probe_note, sizeof r->probe_note,
                 "not probed: its libc.so.6 %.120s: %.200s; what its banner says (%s) is not taken", r->maps.libc.path,
                 why, r->glibc);
        return;
    }
    r->state = afx_glibc_state_by_version(r->glibc);
    if (r->state == AFX_GLIBC_FIXED)
        snprintf(r->probe_note, sizeof r->probe_note,
                 "not probed: glibc %s counts the online CPUs (the bug is in 2.34 to 2.38)", r->glibc);
    else
        snprintf(r->probe_note, sizeof r->probe_note,
                 "not probed: a glibc %s may carry the fix or not; %s", r->glibc,
                 afx_in_container(&r->container) || r->own_root ? "its container's files are its own, never run as root"
                                        : "arenafix inspect PID probes it");
}

void afx_judge_glibc_by_host(struct afx_report *r)
{
    static struct afx_host_glibc host;
    afx_host_glibc_probe(&host, &r->host, true);
    afx_judge_glibc_unrun(r, &host);
    if (host.fd >= 0)
        close(host.fd);
}
