/* A Kubernetes pod's container named by pod: its namespace, the pod's
 * name and the container's, from the CRI annotations its engine wrote in
 * the container's bundle on the host (proc/podstate.h), never from
 * anything the container holds. */
#ifndef AFX_PODS_H
#define AFX_PODS_H

#include "proc/proccgroup.h"

/* Where containerd's runc v2 shims keep the bundles of the containers of
 * its CRI plugin (containerd's namespace k8s.io), one directory an ID,
 * under containerd's default state; under another (k3s's, a --state of
 * its own), the one the shim above the process runs in. */
#define AFX_CONTAINERD_K8S_BUNDLES "/run/containerd/io.containerd.runtime.v2.task/k8s.io"
/* Where CRI-O keeps each container's bundle: ID/userdata/config.json. */
#define AFX_CRIO_BUNDLES "/run/containers/storage/overlay-containers"

/* The pod of container c (c->engine "containerd" in no containerd
 * namespace or k8s.io, or "cri-o"; c->id its 64 hexadecimal digits, as
 * its cgroup names it, checked again here before it becomes a path),
 * into c->pod_ns, c->pod_name and c->pod_container, from its bundle's
 * config.json, read only if that file and every directory on its way are
 * root's and no one else may write them, no link followed, at most
 * 4 MiB; for containerd, in its default state's bundles, else in those
 * of the shim above process pid.  A containerd container found there gets c->ns "k8s.io".  The
 * three stay "" if not.  The last pod found is kept: a scan reads each
 * bundle once for all its processes in a row. */
void afx_pod_name_of(long pid, struct afx_container *c);

#endif
