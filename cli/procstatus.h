/* Fields of /proc/PID/status.  Pure. */
#ifndef AFX_PROCSTATUS_H
#define AFX_PROCSTATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The value of field "Name:" in a /proc status text, without leading
 * blanks, into out (cut to fit).  False if absent. */
bool afx_status_field(const char *text, const char *name, char *out, size_t size);

#define AFX_MAX_GROUPS 65536    /* the kernel's NGROUPS_MAX */

struct afx_creds {
    uid_t uid[4];               /* real, effective, saved, filesystem */
    gid_t gid[4];
    size_t ngroups;
    gid_t groups[AFX_MAX_GROUPS];
};

/* The Uid:, Gid: and Groups: lines.  False unless all three are there
 * and well-formed (four IDs, then a list of supplementary groups). */
bool afx_status_creds(const char *text, struct afx_creds *c);

#endif
