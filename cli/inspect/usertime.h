/* What inspect --all has spent reading each user's processes, so that
 * one user's cannot take the time of everyone else's: each process's
 * reads end at a deadline (inspectread.h), but a user may run thousands
 * of processes each made to cost that much.  Pure. */
#ifndef AFX_USERTIME_H
#define AFX_USERTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The reading one user's processes may cost a scan, by their real user
 * ID (which a process cannot change without privilege, unlike the owner
 * /proc shows, root's once it is not dumpable): some 10,000 ordinary
 * processes at a millisecond each.  Past it, that user's other
 * processes are not read, and the scan of the rest stays within the
 * minutes a timer gives it. */
#define AFX_USER_SECONDS 15

struct afx_user_spent;

struct afx_user_time {
    struct afx_user_spent *list;
    size_t count, cap;
};

/* Add seconds to uid's account (not kept if memory runs out). */
void afx_user_time_add(struct afx_user_time *t, uid_t uid, double seconds);

/* True once uid's processes have cost AFX_USER_SECONDS. */
bool afx_user_time_spent(const struct afx_user_time *t, uid_t uid);

void afx_user_time_free(struct afx_user_time *t);

#endif
