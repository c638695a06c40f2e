/* Fields of /proc/PID/status.  Pure. */
#ifndef AFX_PROCSTATUS_H
#define AFX_PROCSTATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The value of field "Name:" in a /proc status text, without leading
 * blanks, into out (cut to fit).  False if absent. */
bool afx_status_field(const char *text, const char *name, char *out, size_t size);

/* The flags field of a /proc/PID/stat text (the ninth; counted after
 * the last ')', since the name in parentheses may hold anything).
 * False if the text is not a stat line. */
bool afx_stat_flags(const char *text, unsigned long *flags);

/* The start time of a /proc/PID/stat text (the 22nd field, in clock
 * ticks after boot): with the PID, the process's identity for a kernel
 * that gives no pidfd.  False if the text is not a stat line. */
bool afx_stat_start_time(const char *text, unsigned long long *ticks);

/* The kernel's PF_KTHREAD in those flags: a kernel thread. */
#define AFX_PF_KTHREAD 0x00200000UL

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
