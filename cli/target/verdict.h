/* inspect's verdict on a running process, and the advice that goes with
 * it.  Pure. */
#ifndef AFX_VERDICT_H
#define AFX_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "libc/glibcversion.h"

/* The libc a process runs on, as its maps and executable say. */
enum afx_libc_kind {
    AFX_LIBC_GLIBC,         /* glibc's libc.so.6 mapped (or nothing known of it) */
    AFX_LIBC_STATIC_GLIBC,  /* glibc's malloc linked into its executable: no preload reaches it */
    AFX_LIBC_MUSL,          /* musl: no arenas, and libarenafix would stop it */
};
enum afx_health { AFX_FINE, AFX_AT_RISK, AFX_HIT, AFX_UNDETERMINED, AFX_HEALTHS };

struct afx_process_facts {
    long threads;
    long online;
    long narrowed;              /* threads allowed fewer CPUs than are online */
    long arenas;                /* best count we have, -1 unknown */
    bool arenafix;              /* libarenafix mapped */
    enum afx_mode mode;         /* the mode it read from the environment */
    long arenafix_max;          /* its ARENAFIX_ARENA_MAX, 0 if none */
    bool user_limit;            /* MALLOC_ARENA_MAX or the tunable is set */
    const char *foreign;        /* another malloc, or NULL */
    enum afx_glibc_state glibc;
    bool glibc_untested;        /* its glibc was there to test, and was not run (not root's) */
    const char *unread;         /* why it was not read whole, the reason whole; NULL if it was */
    bool container;             /* it runs in a container: the fix is to run the container again */
    bool pod;                   /* that container is a Kubernetes pod's: the fix is in the pod's spec */
    enum afx_libc_kind libc;
};

/* Decide, and explain in why (one sentence, no newline): what was seen
 * and what would help this process, given what it already runs with.
 * A process whose glibc went untested is never called fine on its
 * glibc's account: cannot tell, unless it is hit or at risk whatever
 * its glibc, or the limit does not apply (another malloc, a limit set).
 * One not read whole is cannot tell, on that account alone: what was
 * read of it may be the part that says nothing. */
enum afx_health afx_judge_process(const struct afx_process_facts *f, char *why, size_t size);

extern const char *const afx_health_names[];

#endif
