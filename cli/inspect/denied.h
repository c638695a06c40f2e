/* Why a /proc/PID file may not be read.  A user is told to run as the
 * process's user or as root; root, for whom that is no help, is told
 * what stops it, from what this command can read about itself and the
 * host: its capabilities, its user namespace, the /proc mount's
 * hidepid, the security modules, Yama. */
#ifndef AFX_DENIED_H
#define AFX_DENIED_H

#include <stdbool.h>
#include <stddef.h>

struct afx_access_facts {
    bool root;                  /* effective UID 0 */
    bool caps_known;            /* CapEff was read */
    bool cap_ptrace;            /* CAP_SYS_PTRACE: another's process, one with more capabilities */
    bool cap_dac;               /* CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH: its owner-only files */
    bool userns;                /* root of a user namespace, not the host's */
    char hidepid[24];           /* the /proc mount's hidepid=, "" if none */
    bool lsm_known;             /* /sys/kernel/security/lsm was read */
    char lsms[128];             /* of those, the ones that may refuse a read: "apparmor,landlock" */
    long yama;                  /* kernel.yama.ptrace_scope, -1 if none */
};

/* This command's facts (read once; nothing of the target's). */
void afx_access_facts_read(struct afx_access_facts *f);

/* What follows "no permission to read /proc/PID/WHAT" (what: "maps",
 * "comm", "mem"), one clause without a newline.  hidden: the process
 * exists but /proc shows no directory for it.  Pure. */
void afx_denied_reason(const struct afx_access_facts *f, const char *what, bool hidden, char *out, size_t size);

/* Pure parsers of the facts, for the tests. */

/* Bit bit of a CapEff hex mask ("000001fffeffffff"). */
bool afx_capmask_has(const char *hex, unsigned bit);

/* The hidepid= of the last mount at /proc in a mountinfo text, into
 * out; "" if none or "0"/"off". */
void afx_mountinfo_hidepid(const char *text, char *out, size_t size);

/* True if a uid_map text is the host's own: "0 0 4294967295". */
bool afx_uid_map_is_host(const char *text);

/* The modules of an lsm list ("lockdown,capability,apparmor") that can
 * refuse a read of /proc/PID, comma-separated, into out. */
void afx_lsm_refusers(const char *list, char *out, size_t size);

#endif
