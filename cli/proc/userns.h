/* The user namespace a process runs in, as the kernel keeps it: whether
 * it lies below this command's own, and who made it.  Neither can the
 * process choose: a user namespace's owner is the effective uid of the
 * process that made it, and a user may make one only as itself.  So a
 * rootless container (podman's, docker's) is known to be a user's
 * without reading anything of the user's: not its engine's state files
 * nor the cgroups it was delegated, which it writes and names itself. */
#ifndef AFX_USERNS_H
#define AFX_USERNS_H

#include <stdbool.h>
#include <sys/types.h>

struct afx_userns {
    uid_t owner;                /* owner of the outermost one below ours, a uid of ours */
    unsigned long long mnt;     /* the process's mount namespace's inode */
};

/* True if process pid runs in a user namespace below this command's
 * (nested to any depth), with u filled; false if in ours, in one above
 * or beside it (this command itself runs in a container), or if its
 * namespaces cannot be read. */
bool afx_userns_of(long pid, struct afx_userns *u);

/* True if text (a /proc/PID/uid_map) maps every uid to itself: the
 * initial user namespace's "0 0 4294967295".  Pure. */
bool afx_uid_map_identity(const char *text);

/* This command runs in the initial user namespace (its uid_map is the
 * identity; true too if it cannot be read: a kernel without user
 * namespaces has only that one). */
bool afx_userns_initial(void);

/* The name of uid in the host's user database, copied into out; "" if
 * it has none or it does not fit.  Returns out. */
char *afx_user_name(uid_t uid, char *out, size_t size);

#endif
