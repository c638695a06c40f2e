/* The processes a system service runs in a root of their own: a
 * container's (systemd-nspawn@NAME.service's payload, a podman run
 * under the unit, a RootDirectory=), which the unit's drop-in never
 * reaches.  Found by their cgroup (proc/proccgroup.h), judged by the
 * kernel's word on their mount namespace and root (proc/ownroot.h). */
#ifndef AFX_UNITPROCS_H
#define AFX_UNITPROCS_H

#include <stddef.h>

/* Up to max of them into pids (lowest first, as /proc lists them), and
 * how many there are, for unit (a system service's name).  A process's
 * cgroup names its unit as systemd put it; below the unit, a
 * container's own cgroups never rename it. */
size_t afx_unit_own_roots(const char *unit, long *pids, size_t max);

#endif
