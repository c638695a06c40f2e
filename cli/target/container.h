/* The container a process runs in, read from the host: the engine and
 * ID from its cgroup (proccgroup.h), the name from the engine's own
 * files on the host.  Nothing of the container's is executed, nor read
 * through its root: its tenant owns what is in there. */
#ifndef AFX_CONTAINER_H
#define AFX_CONTAINER_H

#include "proc/proccgroup.h"
#include "readfile.h"

/* Where rootful podman's storage (the default graphroot) records its
 * containers, their IDs and names. */
#define AFX_PODMAN_CONTAINERS "/var/lib/containers/storage/overlay-containers/containers.json"
/* Where it keeps what runs: each container's userdata/pidfile, its first
 * process's PID as the runtime wrote it. */
#define AFX_PODMAN_RUN "/run/containers/storage/overlay-containers"

/* The container of process PID, from the text of its /proc/PID/cgroup
 * (TEXT may be NULL: not read); c->engine "" if in none.  A
 * podman container's name is taken from AFX_PODMAN_CONTAINERS only
 * when that file and every directory on its way are root's and no one
 * else may write them (a link is not followed); else c->name is "".
 * One found below a service's cgroup (c->below_unit), where the
 * service's processes could have named their own, counts only if it
 * shares the mount namespace of the container's first process, as
 * podman's pidfile (root's alone, as above) gives its PID; else it is
 * in no container.  One its cgroup names none of is looked up by the
 * containerd shim it runs under (engines.h), and a docker container's
 * name read from its config.v2.json; a Kubernetes pod's (containerd's or
 * CRI-O's) is named by pod from its bundle's annotations (pods.h).  One
 * in no engine's cgroup nor under a shim, but in a user namespace below ours that a user other
 * than root made, is that user's (c->userns, its owner and mount
 * namespace from the kernel, userns.h): a rootless container's or a
 * sandbox's, no engine named, nothing of the user's read.  One root made
 * (a service's PrivateUsers=yes) is not: the process is judged as it
 * would be without it. */
void afx_container_of(long pid, const char *text, size_t len, struct afx_container *c);

#endif
