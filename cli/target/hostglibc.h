/* The host's glibc, probed once, and a process's glibc judged without
 * running it: by the host's probe where it maps that very file or a copy
 * of it byte for byte (a container built from the host's packages),
 * else by the version its libc's banner gives, when only root can have
 * written that libc. */
#ifndef AFX_HOSTGLIBC_H
#define AFX_HOSTGLIBC_H

#include <stdbool.h>
#include <sys/types.h>

#include "hostinfo.h"
#include "procreport.h"
#include "verdict.h"

struct afx_host_glibc {
    bool probed;
    dev_t dev;                  /* its libc.so.6, as this command maps it */
    ino_t ino;
    int fd;                     /* that file, open; -1 if not */
    enum afx_glibc_state state;
    char version[32];           /* its banner's ("2.36"), "unknown" if none */
    bool contained;             /* this command's root is not PID 1's: PID 1's glibc is the host's */
    char note[700];
};

/* Probe the host's glibc; with probe false, only say so in h->note.
 * On the host, the glibc this command runs on (trusted code, with the
 * caller's privileges), as "arenafix probe" does.  In a container that
 * sees the host's PIDs (a DaemonSet's, --pid=host), where its own root
 * is not PID 1's, its own image's glibc says nothing of the host's: PID
 * 1's is the host's, probed as inspect PID probes a process (run as it,
 * only if root alone can have written it), else judged by its version. */
void afx_host_glibc_probe(struct afx_host_glibc *h, const struct afx_host *host, bool probe);

/* r's glibc state and r->probe_note, nothing of it run: the host's
 * probe if it maps the file probed or a copy of it, byte for byte (its
 * loader aside: the arena limit is libc.so.6's code); else what its
 * version says, if its libc is a file only root can have written
 * (glibctrust.h), else unknown and untested.  Left as it is if
 * r->probe_note is already set (no glibc mapped). */
void afx_judge_glibc_unrun(struct afx_report *r, const struct afx_host_glibc *h);

/* afx_judge_glibc_unrun by the host's glibc, probed once
 * (afx_host_glibc_probe): the judge afx_probe_its_glibc is given for a
 * glibc it may not run. */
void afx_judge_glibc_by_host(struct afx_report *r);

#endif
