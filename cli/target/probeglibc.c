#include "probeglibc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "glibcprobe/glibctrust.h"
#include "glibcprobe/jail.h"
#include "glibcprobe/probe.h"
#include "proc/mappedfile.h"
#include "proc/userfs.h"
#include "readfile.h"

/* Open the file of mapping m (its "ld.so" or "libc.so.6") and keep it
 * only if root alone can have written it (glibctrust.h); else say why
 * in the report.  -1 if it may not run. */
static int open_trusted(struct afx_report *r, const struct afx_proc_root *pr, const struct afx_mapping *m,
                        const char *what)
{
    char why[PATH_MAX + 160];
    int fd = afx_mapped_open(r->pid, m);
    if (fd < 0) {
        const char *served = afx_user_fs_note(errno);
        if (served != NULL)
            snprintf(r->probe_note, sizeof r->probe_note, "not read: its %s is %s", what, served);
        else
            snprintf(r->probe_note, sizeof r->probe_note, "not probed: cannot open its %s: %s", what, strerror(errno));
        return -1;
    }
    if (afx_glibc_trusted(pr, m, fd, why, sizeof why))
        return fd;
    close(fd);
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

/* Run the probe under its own ld.so and libc, in its namespaces and
 * root (jail.h), only when those files and what the loader reads are
 * root's alone (glibctrust.h).  Its credentials, read before anything
 * was opened (before), must be the same now; its maps must still
 * show the files opened; the PID must still name the process read.
 * False, with the reason in the report, if its glibc was not run. */
static bool run_its_glibc(struct afx_report *r, const struct afx_proc_root *pr, const struct afx_creds *before,
                          int loader, int libc)
{
    static struct afx_jail jail;
    char err[512];
    bool ok = afx_jail_open(&jail, r->pid, pr, before, err, sizeof err);
    if (!ok)
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: %.300s", err);
    else if (!still_mapped(r, &r->maps.loader, loader) || !still_mapped(r, &r->maps.libc, libc)
             || !afx_report_same_process(r)) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: it exited or ran another program while it was read");
        ok = false;
    }
    struct afx_probe p;
    struct afx_glibc g = { .jail = &jail, .loader_fd = loader, .libc_fd = libc };
    if (ok && !afx_probe_glibc(&g, r->host.online, NULL, &p, err, sizeof err)) {
        snprintf(r->probe_note, sizeof r->probe_note, "probe failed: %.300s", err);
        ok = false;
    }
    afx_jail_close(&jail);
    if (!ok)
        return false;
    r->state = p.verdict == AFX_AFFECTED ? AFX_GLIBC_AFFECTED
               : p.verdict == AFX_NOT_AFFECTED ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    snprintf(r->probe_note, sizeof r->probe_note, "probed as the process: %s", p.reason);
    return true;
}

/* Its glibc, probed if it may be run; otherwise, with a glibc mapped,
 * marked untested: the verdict then never rests on it. */
void afx_probe_its_glibc(struct afx_report *r, void (*judge_unrun)(struct afx_report *r))
{
    static struct afx_proc_root pr;
    static struct afx_creds first;
    char why[512];
    if (r->maps.libc.path[0] == '\0' || r->maps.loader.path[0] == '\0') {
        /* musl's, or glibc linked in: the reader said which. */
        if (r->libc_kind == AFX_LIBC_GLIBC)
            snprintf(r->probe_note, sizeof r->probe_note, "no glibc mapped");
        return;
    }
    if (r->container.engine[0] != '\0') {
        /* A container's files are its tenant's, uid 0 in there or not:
         * never run as root, nor in root's cgroup. */
        judge_unrun(r);
        return;
    }
    if (!r->container.userns && r->own_root) {
        /* The same for a container no engine names (afx_report_read
         * read r->own_root): uid 0 in there is its tenant, and its
         * files, root's by their owner, are the tenant's. */
        judge_unrun(r);
        return;
    }
    r->untested = true;
    /* Its credentials first: the jail compares them with what it reads
     * once the files are open. */
    if (!afx_jail_creds(r->pid, &first)) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: cannot read its credentials");
        return;
    }
    if (!afx_proc_root_open(r->pid, &pr, why, sizeof why)) {
        snprintf(r->probe_note, sizeof r->probe_note, "not probed: %.300s", why);
        return;
    }
    int loader = -1, libc = -1;
    if (!afx_root_trusted(&pr, why, sizeof why))
        snprintf(r->probe_note, sizeof r->probe_note, "not executed: %.300s; inspect runs only a glibc that root "
                 "alone can change", why);
    else if ((loader = open_trusted(r, &pr, &r->maps.loader, "ld.so")) >= 0
             && (libc = open_trusted(r, &pr, &r->maps.libc, "libc.so.6")) >= 0)
        r->probed = run_its_glibc(r, &pr, &first, loader, libc);
    r->untested = !r->probed;
    if (libc >= 0)
        close(libc);
    if (loader >= 0)
        close(loader);
    afx_proc_root_close(&pr);
    /* A rootless container's: its files and mounts are its user's, so
     * not run (above); judged then as a rootful one's is. */
    if (!r->probed && r->container.userns) {
        static char refused[sizeof r->probe_note];
        snprintf(refused, sizeof refused, "%s", r->probe_note);
        r->probe_note[0] = '\0';
        r->untested = false;
        judge_unrun(r);
        size_t n = strlen(r->probe_note);
        snprintf(r->probe_note + n, sizeof r->probe_note - n, "; %s", refused);
    }
}

