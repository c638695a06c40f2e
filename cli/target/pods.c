#include "pods.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files/rootonly.h"
#include "engines.h"
#include "proc/podstate.h"
#include "readfile.h"

/* A bundle's config.json: tens of KiB (a pod's environment, its mounts). */
#define BUNDLE_MAX (4 << 20)

/* The ID as the cgroup parser gives it: 64 hexadecimal digits, nothing
 * that could step out of the directory it is joined to. */
static bool hex_id(const char *id)
{
    return strlen(id) == AFX_CONTAINER_HEX_ID_LEN && strspn(id, "0123456789abcdef") == AFX_CONTAINER_HEX_ID_LEN;
}

/* Its pod from bundle file path, if that is root's alone. */
static bool read_pod(const char *path, struct afx_container *c)
{
    int fd = afx_open_root_only(path);
    size_t len = 0;
    char *json = fd >= 0 ? afx_read_fd_max(fd, BUNDLE_MAX, &len) : NULL;
    if (fd >= 0)
        close(fd);
    bool got = json != NULL && afx_pod_annotations(json, len, c);
    if (!got)
        c->pod_ns[0] = c->pod_name[0] = c->pod_container[0] = '\0';
    free(json);
    return got;
}

void afx_pod_name_of(long pid, struct afx_container *c)
{
    static struct afx_container last;
    char path[PATH_MAX];
    bool containerd = strcmp(c->engine, "containerd") == 0 && (c->ns[0] == '\0' || strcmp(c->ns, "k8s.io") == 0);
    c->pod_ns[0] = c->pod_name[0] = c->pod_container[0] = '\0';
    if ((!containerd && strcmp(c->engine, "cri-o") != 0) || !hex_id(c->id))
        return;
    if (strcmp(last.engine, c->engine) == 0 && strcmp(last.id, c->id) == 0) {
        memcpy(c->pod_ns, last.pod_ns, sizeof c->pod_ns);
        memcpy(c->pod_name, last.pod_name, sizeof c->pod_name);
        memcpy(c->pod_container, last.pod_container, sizeof c->pod_container);
    } else {
        char bundles[PATH_MAX];
        if (containerd) {
            snprintf(path, sizeof path, "%s/%s/config.json", AFX_CONTAINERD_K8S_BUNDLES, c->id);
            if (!read_pod(path, c) && afx_shim_bundles(pid, bundles, sizeof bundles)
                && strcmp(bundles, AFX_CONTAINERD_K8S_BUNDLES) != 0
                && snprintf(path, sizeof path, "%s/%s/config.json", bundles, c->id) < (int)sizeof path)
                read_pod(path, c);
        } else {
            snprintf(path, sizeof path, "%s/%s/userdata/config.json", AFX_CRIO_BUNDLES, c->id);
            read_pod(path, c);
        }
        /* Kept once found: one not (yet) there is looked for again. */
        if (c->pod_name[0] != '\0')
            last = *c;
    }
    if (containerd && c->pod_name[0] != '\0')
        snprintf(c->ns, sizeof c->ns, "k8s.io");
}
