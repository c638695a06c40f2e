/* A process in a mount namespace and a root directory of its own: a
 * container's (an engine's, systemd-nspawn's, runc run's, lxc's) or a
 * service's RootDirectory=, whatever cgroup or unit it runs in.  The
 * kernel says so, not the process: its namespace and root are compared,
 * by device and inode, with the host's (PID 1's), and its executable
 * with the host's file of that name. */
#ifndef AFX_OWNROOT_H
#define AFX_OWNROOT_H

#include <stdbool.h>

/* True if process pid has a mount namespace and a root directory other
 * than the host's (PID 1's where this command sees the host's PIDs
 * from a container, else its own) and was started in that root.  False
 * if its own cannot be read.  A service's PrivateTmp= or ProtectSystem=
 * gives it a mount namespace of its own but the host's root: not its
 * own root; nor is the root such a service's daemon chroots itself into
 * (HAProxy's chroot, postfix, named -t): its executable lies outside
 * that root and is the host's file of that name, and it loaded what
 * its unit preloads before it went in there.  What the unit
 * above such a process sets in its environment (arenafix enable's
 * LD_PRELOAD) reaches the unit's own processes (podman, nspawn), never
 * a process in there: a library path of the host's means nothing in
 * its root, and its engine starts it with an environment of its own. */
bool afx_own_root(long pid);

/* The same for the process whose /proc/PID directory dir is (opened
 * once, so that a PID used again is never read as another process). */
bool afx_own_root_at(int dir);

#endif
