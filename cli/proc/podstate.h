/* A Kubernetes pod's container named by the CRI annotations its engine
 * wrote in the container's bundle (config.json): containerd's
 * io.kubernetes.cri.*, CRI-O's io.kubernetes.pod.* and
 * io.kubernetes.container.name.  Pure: the caller reads the file (root's
 * alone, target/pods.h). */
#ifndef AFX_PODSTATE_H
#define AFX_PODSTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "proccgroup.h"

/* From json (len bytes, the bundle's config.json of the container c
 * names: c->engine "containerd" or "cri-o", c->id its ID), the pod's
 * namespace and name and the container's name, into c->pod_ns,
 * c->pod_name and c->pod_container ("" for the pod's sandbox: its
 * pause container).  Taken only if the file is one JSON object whose
 * linux.cgroupsPath ends in c->id (after '/', ':' or '-', as each
 * engine and cgroup driver writes it: the bundle is of the cgroup the
 * process is in), each annotation named once, and each name one the
 * API server accepts (the namespace and the container a DNS label, the
 * pod a DNS subdomain): a pod's author chooses them, within those
 * rules.  False, the three "", if not. */
bool afx_pod_annotations(const char *json, size_t len, struct afx_container *c);

#endif
