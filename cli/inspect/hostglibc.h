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
    char note[300];
};

/* Probe the glibc this command runs on (trusted code, with the caller's
 * privileges), as "arenafix probe" does; with probe false, only say
 * so in h->note. */
void afx_host_glibc_probe(struct afx_host_glibc *h, const struct afx_host *host, bool probe);

/* r's glibc state and r->probe_note, nothing of it run: the host's
 * probe if it maps the file probed or a copy of it, byte for byte (its
 * loader aside: the arena limit is libc.so.6's code); else what its
 * version says, if its libc is a file only root can have written
 * (glibctrust.h), else unknown and untested.  Left as it is if
 * r->probe_note is already set (no glibc mapped). */
void afx_judge_glibc_unrun(struct afx_report *r, const struct afx_host_glibc *h);

#endif
