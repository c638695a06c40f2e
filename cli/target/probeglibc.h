/* inspect PID's probe of the glibc a process runs: run as the process
 * (jail.h), only when root alone can have written it (glibctrust.h);
 * a container's judged without running it, by the caller's judge
 * (hostglibc.h's afx_judge_glibc_by_host). */
#ifndef AFX_PROBEGLIBC_H
#define AFX_PROBEGLIBC_H

#include "procreport.h"

/* r read (afx_report_read, its pidfd still held): its glibc state and
 * r->probe_note; marked untested where its glibc was there to run and
 * was not.  A glibc that may not be run (a container's) is judged by
 * judge_unrun. */
void afx_probe_its_glibc(struct afx_report *r, void (*judge_unrun)(struct afx_report *r));

#endif
