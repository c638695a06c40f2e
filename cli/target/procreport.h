/* One process as inspect reports it: what /proc/PID shows, read
 * without running anything, the verdict on it, and its JSON object.
 * inspect PID adds a probe of the process's glibc; inspect --all does
 * not (scan.h). */
#ifndef AFX_PROCREPORT_H
#define AFX_PROCREPORT_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "hostinfo.h"
#include "inspectread.h"
#include "proc/procenv.h"
#include "proc/procmaps.h"
#include "proc/proccgroup.h"
#include "verdict.h"

struct afx_report {
    long pid;
    int pidfd;                  /* -1 where the kernel gave none */
    unsigned long long start_time;  /* from its stat; 0 if unread */
    char name[64];              /* its comm, raw: escape it to print it */
    char exe[PATH_MAX];         /* where /proc/PID/exe points, "" if unreadable */
    struct afx_threads threads;
    struct afx_maps maps;
    long exact;                 /* arenas from the heap headers, -1 unread */
    int mem_err;                /* why /proc/PID/mem would not open, 0 if it did (or was not tried) */
    struct afx_unit unit;       /* its systemd unit, from its cgroup */
    struct afx_container container;     /* the container it runs in (container.h); engine "" if none */
    long uid;                   /* its real uid, -1 if unread */
    enum afx_libc_kind libc_kind;   /* glibc mapped, linked in (static), or musl */
    bool exe_unread;            /* its executable, where a static glibc would be, not read (userfs.h) */
    char glibc[32];             /* the version in its libc's banner, or "unknown" */
    bool libc_known;            /* the libc it maps, as opened: which file */
    dev_t libc_dev;
    ino_t libc_ino;
    enum afx_glibc_state state;
    char probe_note[768];       /* how state was found; "" until someone says */
    bool probed;                /* state comes from running its glibc */
    bool untested;              /* its glibc could have been probed, but was not run (not root's) */
    bool own_root;              /* a mount namespace and root of its own (proc/ownroot.h), an engine named or not */
    bool host_init;             /* the host's own process, read for the host's glibc (hostglibc.h) */
    struct afx_env_facts env;
    struct afx_host host;
    enum afx_health health;
    char why[512];
    struct afx_deadline deadline;   /* for its reads, from afx_report_read */
    char unread[256];           /* why it was not read whole (too large, too slow); "" if it was */
};

/* r made ready for process pid on host, as if zeroed but for the maps'
 * buffers, which are read only as far as they are written: cheap
 * enough for every process of a scan. */
void afx_report_reset(struct afx_report *r, long pid, const struct afx_host *host);

/* Read process r->pid (r->host already read).  Holds a pidfd from the
 * start, so that afx_report_exited can tell a process that exited
 * while it was read.  0, or the errno of the read that failed with the
 * /proc file it was ("status", "maps") in *what.  A process whose maps
 * is larger than AFX_MAPS_READ_MAX, or that takes longer than
 * AFX_READ_SECONDS to read, is read no further: 0, with why in
 * r->unread (its verdict is then cannot tell). */
int afx_report_read(struct afx_report *r, const char **what);

/* Read only its name and executable, as one not read for why (in
 * r->unread, which then says it all). */
void afx_report_skip(struct afx_report *r, const char *why);

/* True if the process has exited (or is a zombie) since
 * afx_report_read opened it: what was read may be another's or none. */
bool afx_report_exited(const struct afx_report *r);

/* True if the PID still names the process afx_report_read opened:
 * through its pidfd, or where the kernel gave none (an old kernel, no
 * descriptor left), by the start time read then and now. */
bool afx_report_same_process(const struct afx_report *r);

void afx_report_close(struct afx_report *r);

/* Set r->health and r->why from what was read and r->state. */
void afx_report_judge(struct afx_report *r);

/* True if r (judged) is fine because libarenafix is loaded and on: the
 * summary's and the metrics' "fixed".  Pure. */
bool afx_report_fixed(const struct afx_report *r);

/* inspect's exit status for a verdict: 0 fine, 3 hit, 4 at risk, 5
 * cannot tell. */
int afx_health_status(enum afx_health h);

/* The report as one JSON object on a line of its own. */
/* fix_command: the whole command that runs its container again with the
 * fix (inspect/fixes.h), as words, NULL after the last; NULL for none. */
void afx_report_json(const struct afx_report *r, char *const *fix_command, FILE *out);

/* The same keys for a process none of which could be read (why): its
 * verdict "unreadable", null for what was not read. */
void afx_report_json_unreadable(const struct afx_report *r, const char *why, FILE *out);

#endif
