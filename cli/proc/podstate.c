#include "podstate.h"

#include <string.h>

#include "proc/ocijson.h"

/* The string annotation key of the bundle's "annotations", named once,
 * into out; false if absent, not a string, or too long for size. */
static bool annotation(const char *json, size_t len, const char *key, char *out, size_t size)
{
    const char *obj, *val;
    size_t olen, vlen;
    return afx_json_member(json, len, (const char *const[]){ "annotations" }, 1, &obj, &olen)
           && afx_json_count_members(obj, olen, key) == 1
           && afx_json_member(obj, olen, (const char *const[]){ key }, 1, &val, &vlen)
           && afx_json_string(val, vlen, out, size);
}

/* Kubernetes' names: lower case letters, digits and '-' (a subdomain
 * also '.'), beginning and ending with a letter or digit, at most max. */
static bool dns_name(const char *s, size_t max, bool subdomain)
{
    size_t n = strlen(s);
    if (n == 0 || n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && ((ch != '-' && !(subdomain && ch == '.')) || i == 0 || i == n - 1))
            return false;
    }
    return true;
}

/* The bundle's linux.cgroupsPath ends in id, after '/' (the cgroupfs
 * driver's ".../podUID/ID"), ':' (the systemd driver's
 * "SLICE:cri-containerd:ID") or '-' (CRI-O's ".../crio-ID"). */
static bool of_cgroup(const char *json, size_t len, const char *id)
{
    char path[512];
    const char *val;
    size_t vlen, n = strlen(id);
    if (!afx_json_member(json, len, (const char *const[]){ "linux", "cgroupsPath" }, 2, &val, &vlen)
        || !afx_json_string(val, vlen, path, sizeof path))
        return false;
    size_t p = strlen(path);
    return n > 0 && p > n && strcmp(path + p - n, id) == 0 && strchr("/:-", path[p - n - 1]) != NULL;
}

bool afx_pod_annotations(const char *json, size_t len, struct afx_container *c)
{
    char ns[sizeof c->pod_ns], pod[sizeof c->pod_name], container[sizeof c->pod_container], type[32];
    bool containerd = strcmp(c->engine, "containerd") == 0, crio = strcmp(c->engine, "cri-o") == 0;
    bool sandbox = false, got;
    c->pod_ns[0] = c->pod_name[0] = c->pod_container[0] = '\0';
    if (containerd) {
        /* The pause container is the pod's sandbox, and names no container. */
        got = annotation(json, len, "io.kubernetes.cri.container-type", type, sizeof type)
              && annotation(json, len, "io.kubernetes.cri.sandbox-namespace", ns, sizeof ns)
              && annotation(json, len, "io.kubernetes.cri.sandbox-name", pod, sizeof pod);
        sandbox = got && strcmp(type, "sandbox") == 0;
        got = got && (sandbox || (strcmp(type, "container") == 0
                                  && annotation(json, len, "io.kubernetes.cri.container-name", container,
                                                sizeof container)));
    } else if (crio) {
        /* CRI-O's sandbox is its infra container, "POD". */
        got = annotation(json, len, "io.kubernetes.pod.namespace", ns, sizeof ns)
              && annotation(json, len, "io.kubernetes.pod.name", pod, sizeof pod)
              && annotation(json, len, "io.kubernetes.container.name", container, sizeof container);
        sandbox = got && strcmp(container, "POD") == 0;
    } else {
        return false;
    }
    if (sandbox)
        container[0] = '\0';
    if (!got || !of_cgroup(json, len, c->id) || !dns_name(ns, 63, false) || !dns_name(pod, 253, true)
        || (!sandbox && !dns_name(container, 63, false)))
        return false;
    memcpy(c->pod_ns, ns, sizeof ns);
    memcpy(c->pod_name, pod, sizeof pod);
    memcpy(c->pod_container, container, sizeof container);
    return true;
}
