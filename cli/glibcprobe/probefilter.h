/* The system calls a probe run from another process's files may make. */
#ifndef AFX_PROBEFILTER_H
#define AFX_PROBEFILTER_H

#include <stdbool.h>

/* Install a seccomp filter that allows what glibc's loader, its start-up
 * and the probe child need and nothing else: files opened for reading
 * only, threads but no processes, no signals to others, no sockets,
 * ioctls, keyrings, mounts, namespaces or tracing; one exec, for the
 * one that follows: execveat(exec_fd, exec_path, ..., AT_EMPTY_PATH)
 * with exec_path the caller's "" at that address.  Any other call fails
 * with ENOSYS (a refused exec or argument with EPERM or EACCES).  Needs
 * no_new_privs set.  False with errno set (ENOSYS where no filter is
 * written for this architecture). */
bool afx_probe_filter_install(int exec_fd, const char *exec_path);

#endif
