/* Docker's and containerd's containers as the host's own processes and
 * files tell them: the containerd shim a container runs under (its
 * command line names its namespace and ID) and docker's config.v2.json
 * (its name), never anything the container holds. */
#ifndef AFX_ENGINES_H
#define AFX_ENGINES_H

#include "proc/proccgroup.h"

/* The container of process pid by the containerd shim it runs under:
 * its first ancestor in this command's own mount namespace, if that is
 * a process of root's alone (every uid 0) running a root-only
 * "containerd-shim-*" (or, where the file was replaced since it
 * started, one whose very file is root's and writable by no one else)
 * with "-namespace NS -id ID" (containerd's own names).  Only a process in another mount namespace than this
 * command's is looked at: a container's.  Its tenant chooses neither
 * its ancestors outside nor their command lines.  Sets c (engine
 * "docker" for NS "moby", the namespace docker keeps its containers
 * in, else "containerd"; c->ns NS) and returns true; false, c untouched,
 * if none.  The way up is walked once a run for all the processes on it,
 * and each shim judged once a run (proctable.h). */
bool afx_shim_container(long pid, struct afx_container *c);

/* The directory holding the bundles of containerd's CRI namespace
 * (k8s.io) where process pid runs under a runc v2 shim of root's in it
 * (the parent of the bundle the shim was started in, its ID and
 * namespace checked against its command line), into dir; false if not. */
bool afx_shim_bundles(long pid, char *dir, size_t size);

/* A docker container's name, into c->name, from config.v2.json in the
 * directory of its ID under a data root of dockerd: each running dockerd
 * (a root-only executable named dockerd, run by root alone in this
 * command's mount namespace) by its --data-root, else the "data-root"
 * of its configuration file (--config-file, else /etc/docker/daemon.json,
 * if root's alone), else /var/lib/docker.  Every file and directory on
 * the way must be root's alone (no link followed); else c->name stays
 * "". */
void afx_docker_name_of(struct afx_container *c);

#endif
