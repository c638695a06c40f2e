/* arenafix probe --root DIR: what an image's libc says of bug 30945 and
 * of libarenafix, read from DIR (an unpacked image, or a running
 * container's /proc/PID/root) with nothing of it run. */
#ifndef AFX_ROOTPROBE_H
#define AFX_ROOTPROBE_H

#include <stdbool.h>

/* Report on DIR, as text or one JSON object; returns probe's exit
 * status (AFX_EXIT_OK not affected, AFX_EXIT_AFFECTED, AFX_EXIT_UNKNOWN
 * cannot tell, AFX_EXIT_FAIL), or exits with a usage error when DIR is
 * not a directory. */
int afx_probe_root(const char *dir, bool json);

#endif
