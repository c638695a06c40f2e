/* arenafix inspect --all: which processes on this host the bug hits or
 * may hit, judged from what /proc shows, running nothing per process. */
#ifndef AFX_SCAN_H
#define AFX_SCAN_H

#include <stdbool.h>

/* Walk /proc: one line (or JSON object) per process that matters, then
 * a summary.  probe_host: probe the host's own glibc once, as
 * "arenafix probe" does, for the processes that map that very file.
 * Returns the exit status of the worst verdict (hit, at risk, fine),
 * or a failure status if /proc cannot be walked. */
int afx_inspect_all(bool json, bool probe_host);

#endif
