/* A glibc version ("2.36", as its banner says it), and what it alone
 * says of bug 30945: the one parser of it and the one rule. */
#ifndef AFX_GLIBCVERSION_H
#define AFX_GLIBCVERSION_H

#include <stdbool.h>

enum afx_glibc_state { AFX_GLIBC_UNKNOWN, AFX_GLIBC_AFFECTED, AFX_GLIBC_FIXED };

/* The bug came with 2.34 (__get_nprocs_sched) and went with 2.39. */
#define AFX_GLIBC_FIRST_AFFECTED 34
#define AFX_GLIBC_LAST_AFFECTED 38

/* "2.36" (or "2.36.1") as its major and minor; false if it is no
 * version of that form (a space, a letter, a missing minor). */
bool afx_glibc_version_parse(const char *version, unsigned *major, unsigned *minor);

/* What a glibc version alone says: 2.33 and older and 2.39 and newer
 * count the online CPUs (fixed); 2.34 to 2.38 may carry the backported
 * fix or not, and anything unparsable says nothing (unknown).  For
 * judging without running its code. */
enum afx_glibc_state afx_glibc_state_by_version(const char *version);

/* "affected", "not affected", "unknown": as reports say it. */
const char *afx_glibc_state_name(enum afx_glibc_state s);

#endif
