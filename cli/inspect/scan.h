/* arenafix inspect --all: which processes on this host the bug hits or
 * may hit, judged from what /proc shows, running nothing per process. */
#ifndef AFX_SCAN_H
#define AFX_SCAN_H

#include <stdbool.h>

enum afx_scan_format { AFX_SCAN_TEXT, AFX_SCAN_JSON, AFX_SCAN_PROMETHEUS };

/* Walk /proc: one line (or JSON object) per process that matters, then
 * a summary; or the metrics alone (prometheus.h).  probe_host: probe
 * the host's own glibc once, as "arenafix probe" does, for the
 * processes that map that very file.  output: NULL for stdout, or the
 * file the metrics replace whole (outfile.h).  Returns the exit status
 * of the worst verdict (hit, at risk, fine), or a failure status if
 * /proc cannot be walked or the output not written. */
int afx_inspect_all(enum afx_scan_format format, bool probe_host, const char *output);

#endif
