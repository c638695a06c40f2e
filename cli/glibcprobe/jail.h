/* Running code from another process's files with no more privilege than
 * that process has: inspect's probe of the glibc a process runs. */
#ifndef AFX_JAIL_H
#define AFX_JAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#include "glibctrust.h"
#include "proc/procstatus.h"

/* The user and group ID a probe of another process's glibc runs as, as
 * root: no user's, no group's (2^31 - 2, outside the ranges systems
 * give to users, system services and containers), so that no other
 * process shares it. */
#define AFX_PROBE_ID 2147483646U

enum { AFX_JAIL_NS = 6 };   /* cgroup, ipc, net, uts, pid, mnt */

struct afx_jail {
    bool enter;                 /* take its namespaces, root and credentials */
    int ns[AFX_JAIL_NS];        /* its namespaces (-1: none such) */
    int root;                   /* its root directory */
    struct afx_creds creds;
    struct rlimit limits[RLIM_NLIMITS];     /* the lower of its and ours */
};

/* Process pid's credentials from its status.  False if unreadable. */
bool afx_jail_creds(long pid, struct afx_creds *c);

/* In the caller: what it takes to become process pid.  Its credentials
 * are read again and must be `before`, read before anything of it was
 * opened: a process that ran another program in between (a setuid one)
 * is not probed.  Nor is one whose real, effective, saved and
 * filesystem IDs differ (a setuid program).  As root, its namespaces
 * (its mounts and root directory from pr, the ones the caller checked)
 * and the lower of its and our resource limits;
 * otherwise only a process with this command's own credentials in its
 * mount namespace can be probed.  The caller checks afterwards that
 * the PID still names the process (afx_report_same_process).  False
 * with the reason in err. */
bool afx_jail_open(struct afx_jail *j, long pid, const struct afx_proc_root *pr, const struct afx_creds *before,
                   char *err, size_t size);
void afx_jail_close(struct afx_jail *j);

/* In a child about to exec: take the process's namespaces, root and
 * limits (when j->enter) and AFX_PROBE_ID for its IDs, then give up
 * every capability, the right to gain privileges (no_new_privs), the
 * controlling terminal (a new session), the session keyring, every file
 * descriptor above 2 but the nkeep in keep (left open across the exec), and most system calls (probefilter.h): the
 * one exec left is execveat(exec_fd, exec_path, ..., AT_EMPTY_PATH)
 * with exec_path "" at that very address.  A parent-death signal ties
 * it to its parent.  Entering a PID namespace takes a fork: the calling
 * process then waits and exits with the new child's status, and only
 * the child returns.  False with errno set. */
bool afx_jail_enter(const struct afx_jail *j, const int *keep, int nkeep, int exec_fd, const char *exec_path);

#endif
