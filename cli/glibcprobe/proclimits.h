/* /proc/PID/limits: a process's resource limits, where prlimit(2) may
 * not read them (a root without CAP_SYS_RESOURCE, as in a container).
 * Pure. */
#ifndef AFX_PROCLIMITS_H
#define AFX_PROCLIMITS_H

#include <stdbool.h>
#include <sys/resource.h>

/* The soft and hard limit of each resource the text names, into
 * limits[RLIMIT_...]; found[r] says which were there.  Lines it does
 * not know are passed over; a known line that does not read as the
 * kernel writes it makes the whole text false. */
bool afx_limits_parse(const char *text, struct rlimit limits[RLIM_NLIMITS], bool found[RLIM_NLIMITS]);

#endif
