/* The system calls a probe run from another process's files may make. */
#ifndef AFX_PROBEFILTER_H
#define AFX_PROBEFILTER_H

#include <stdbool.h>

/* Install a seccomp filter that allows what glibc's loader, its start-up
 * and the probe child need and nothing else: files opened for reading
 * only, threads but no processes, no signals to others, no sockets,
 * ioctls, keyrings, mounts, namespaces or tracing; execveat of an open
 * file, for the exec that follows.  Any other call fails with ENOSYS.
 * Needs no_new_privs set.  False with errno set (ENOSYS where no filter
 * is written for this architecture). */
bool afx_probe_filter_install(void);

#endif
