#include "proccgroup.h"

#include <stdio.h>
#include <string.h>

/* A component that names a unit of these types, "x.service"; the suffix
 * alone is no unit. */
static bool unit_component(const char *c, size_t len)
{
    static const char *const suffixes[] = { ".service", ".scope" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t n = strlen(suffixes[i]);
        if (len > n && memcmp(c + len - n, suffixes[i], n) == 0)
            return true;
    }
    return false;
}

static bool is_user_manager(const char *c, size_t len)
{
    static const char prefix[] = "user@", suffix[] = ".service";
    size_t p = sizeof prefix - 1, s = sizeof suffix - 1;
    if (len <= p + s || memcmp(c, prefix, p) != 0 || memcmp(c + len - s, suffix, s) != 0)
        return false;
    for (size_t i = p; i < len - s; i++)
        if (c[i] < '0' || c[i] > '9')
            return false;
    return true;
}

/* The component of path at *at, past any "/"; its length in *n, 0 at
 * the end. */
static const char *component(const char *path, size_t len, size_t *at, size_t *n)
{
    while (*at < len && path[*at] == '/')
        (*at)++;
    const char *c = path + *at;
    for (*n = 0; *at < len && path[*at] != '/'; (*at)++)
        (*n)++;
    return c;
}

/* The first component after the slices ("system.slice/",
 * "user.slice/user-1000.slice/"), as systemd's cg_path_get_unit()
 * takes it: it lies where systemd put the unit, above any subtree the
 * unit was delegated (Delegate=yes, a container's own systemd), whose
 * names its processes choose.  NULL if it names no service or scope. */
static const char *unit_after_slices(const char *path, size_t len, size_t *at, size_t *n)
{
    static const char slice[] = ".slice";
    const char *c;
    do
        c = component(path, len, at, n);
    while (*n > sizeof slice - 1 && memcmp(c + *n - (sizeof slice - 1), slice, sizeof slice - 1) == 0);
    return *n > 0 && unit_component(c, *n) ? c : NULL;
}

/* The unit in a cgroup path ("/system.slice/nginx.service"); inside a
 * user's manager (user@UID.service), the manager's unit found the same
 * way below it, as cg_path_get_user_unit() does. */
static void unit_of_path(const char *path, size_t len, struct afx_unit *u)
{
    size_t at = 0, n = 0;
    const char *unit = unit_after_slices(path, len, &at, &n);
    *u = (struct afx_unit){ 0 };
    if (unit != NULL && is_user_manager(unit, n)) {
        size_t inner_n = 0;
        const char *inner = unit_after_slices(path, len, &at, &inner_n);
        if (inner != NULL) {
            unit = inner, n = inner_n;
            u->user = true;
        }
    }
    if (unit != NULL && n < sizeof u->name)
        memcpy(u->name, unit, n);
    else
        u->user = false;
}

/* The name=systemd path (v1) and the 0:: path (v2) of the text of
 * /proc/PID/cgroup, NULL where absent.  False if the text is not what
 * the kernel writes (afx_cgroup_unit). */
static bool cgroup_paths(const char *text, size_t len, const char **v1, size_t *v1_len, const char **v2,
                         size_t *v2_len)
{
    unsigned long last = (unsigned long)-1;
    bool after_v2 = false;
    *v1 = *v2 = NULL;
    *v1_len = *v2_len = 0;
    for (size_t at = 0; at < len;) {
        const char *line = text + at;
        size_t n = 0;
        while (at + n < len && line[n] != '\n')
            n++;
        at += n + 1;
        /* "ID:controllers:/path": the ID in digits, falling line by line. */
        size_t d = 0;
        unsigned long id = 0;
        while (d < n && d < 10 && line[d] >= '0' && line[d] <= '9')
            id = id * 10 + (unsigned long)(line[d++] - '0');
        const char *c1 = d > 0 && d < n && line[d] == ':' ? line + d + 1 : NULL;
        const char *c2 = c1 != NULL ? memchr(c1, ':', (size_t)(line + n - c1)) : NULL;
        if (c2 == NULL || c2 + 1 >= line + n || c2[1] != '/' || after_v2 || id >= last
            || memchr(line, '\0', n) != NULL)
            return false;
        last = id;
        const char *path = c2 + 1;
        size_t path_len = (size_t)(line + n - path);
        /* Read from a cgroup namespace of our own (a DaemonSet's pod),
         * the kernel writes a cgroup outside it from the ancestor both
         * share: "/../../kubepods.slice/...".  No cgroup is named "..":
         * what follows is the path below an ancestor of this command's
         * own cgroup, whose children no container names. */
        while (path_len >= 3 && memcmp(path, "/..", 3) == 0 && (path_len == 3 || path[3] == '/'))
            path += 3, path_len -= 3;
        static const char named[] = "name=systemd";
        if (id == 0 && c2 == c1) {
            *v2 = path, *v2_len = path_len;
            after_v2 = true;
        } else if ((size_t)(c2 - c1) == sizeof named - 1 && memcmp(c1, named, sizeof named - 1) == 0) {
            *v1 = path, *v1_len = path_len;
        }
    }
    return true;
}

bool afx_cgroup_unit(const char *text, size_t len, struct afx_unit *u)
{
    const char *v1, *v2;
    size_t v1_len, v2_len;
    *u = (struct afx_unit){ 0 };
    if (!cgroup_paths(text, len, &v1, &v1_len, &v2, &v2_len))
        return false;
    if (v1 != NULL)
        unit_of_path(v1, v1_len, u);
    if (u->name[0] == '\0' && v2 != NULL)
        unit_of_path(v2, v2_len, u);
    return true;
}

const char *afx_unit_container_engine(const char *name, char *out, size_t size)
{
    static const struct {
        const char *prefix, *engine;
    } engines[] = {
        { "libpod", "podman" },
        { "libpod-conmon", "podman" },
        { "docker", "docker" },
        { "cri-containerd", "containerd" },
        { "crio", "cri-o" },
        { "crio-conmon", "cri-o" },
    };
    enum { ID_LEN = 64 };
    static const char scope[] = ".scope";
    size_t len = strlen(name), s = sizeof scope - 1;
    if (len < 1 + ID_LEN + s + 1 || strcmp(name + len - s, scope) != 0)
        return NULL;
    const char *id = name + len - s - ID_LEN;
    if (id[-1] != '-' || strspn(id, "0123456789abcdef") != ID_LEN)
        return NULL;
    size_t prefix = (size_t)(id - 1 - name);
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++)
        if (strlen(engines[i].prefix) == prefix && memcmp(name, engines[i].prefix, prefix) == 0)
            return engines[i].engine;
    if (size == 0)
        return NULL;
    if (prefix >= size)
        prefix = size - 1;
    memcpy(out, name, prefix);
    out[prefix] = '\0';
    return out;
}

bool afx_unit_commandable(const char *name)
{
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@";
    static const char suffix[] = ".service";
    size_t len = strlen(name), s = sizeof suffix - 1;
    if (len <= s || len >= AFX_UNIT_MAX || name[strspn(name, allowed)] != '\0' || strchr("-.@", name[0]) != NULL
        || strcmp(name + len - s, suffix) != 0)
        return false;
    const char *at = strchr(name, '@');
    return at == NULL || (strchr(at + 1, '@') == NULL && at + 1 != name + len - s);
}

char *afx_unit_shell_word(const char *name, char *out, size_t size)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.@";
    if (name[strspn(name, plain)] == '\0') {
        /* Cut short, it would name another unit: dropped as well. */
        if (snprintf(out, size, "%s", name) >= (int)size && size > 0)
            out[0] = '\0';
        return out;
    }
    /* In single quotes, each ' as '\'': one word whatever name holds;
     * cut short, the word is dropped rather than left open. */
    size_t n = 0;
    bool fits = size > 2;
    if (fits)
        out[n++] = '\'';
    for (const char *c = name; fits && *c; c++) {
        const char *piece = *c == '\'' ? "'\\''" : (char[2]){ *c, '\0' };
        size_t len = strlen(piece);
        fits = n + len + 2 <= size;
        if (fits) {
            memcpy(out + n, piece, len);
            n += len;
        }
    }
    if (fits) {
        out[n++] = '\'';
        out[n] = '\0';
    } else if (size > 0) {
        out[0] = '\0';
    }
    return out;
}

/* "PREFIX-ID" (with SUFFIX after it) where ID is 64 hexadecimal digits:
 * ID copied into id. */
static bool prefixed_id(const char *c, size_t n, const char *prefix, const char *suffix, char id[AFX_CONTAINER_ID_SIZE])
{
    enum { ID_LEN = AFX_CONTAINER_HEX_ID_LEN };
    size_t p = strlen(prefix), s = strlen(suffix);
    if (n != p + ID_LEN + s || memcmp(c, prefix, p) != 0 || memcmp(c + p + ID_LEN, suffix, s) != 0)
        return false;
    for (size_t i = 0; i < ID_LEN; i++)
        if (strchr("0123456789abcdef", c[p + i]) == NULL || c[p + i] == '\0')
            return false;
    memcpy(id, c + p, ID_LEN);
    id[ID_LEN] = '\0';
    return true;
}

static bool named(const char *c, size_t n, const char *name)
{
    return n == strlen(name) && memcmp(c, name, n) == 0;
}

/* "podUID" as the kubelet names a pod's cgroup under the cgroupfs
 * driver: the API server's UID (a UUID) or a static pod's hash, lower
 * case hexadecimal digits and '-'. */
static bool pod_component(const char *c, size_t n)
{
    if (n <= 3 || n > 3 + 64 || memcmp(c, "pod", 3) != 0)
        return false;
    for (size_t i = 3; i < n; i++)
        if (!((c[i] >= '0' && c[i] <= '9') || (c[i] >= 'a' && c[i] <= 'f') || c[i] == '-'))
            return false;
    return true;
}

/* Kubernetes' cgroupfs driver: "/kubepods/QOS/podUID/ID", or a
 * Guaranteed pod's "/kubepods/podUID/ID"; ID containerd's 64 digits or
 * CRI-O's "crio-ID".  Only there: the pod's own cgroup holds its
 * containers, and below a container's its processes may name cgroups
 * as they like, another container's ID among them. */
static bool kubepods_container(const char *path, size_t len, struct afx_container *c)
{
    size_t at = 0, n = 0;
    const char *part = component(path, len, &at, &n);
    if (!named(part, n, "kubepods"))
        return false;
    part = component(path, len, &at, &n);
    if (named(part, n, "besteffort") || named(part, n, "burstable"))
        part = component(path, len, &at, &n);
    if (!pod_component(part, n))
        return false;
    part = component(path, len, &at, &n);
    if (prefixed_id(part, n, "", "", c->id))
        snprintf(c->engine, sizeof c->engine, "containerd");
    else if (prefixed_id(part, n, "crio-", "", c->id))
        snprintf(c->engine, sizeof c->engine, "cri-o");
    else
        return false;
    return true;
}

/* The container of one cgroup path, read from where the engine put it:
 * the unit systemd sees (its scope, under the systemd driver) or the
 * first two components (under the cgroupfs driver; a Kubernetes pod's
 * container, the fourth of kubepods_container's), never below, where
 * the container may make cgroups of its own. */
static bool container_of_path(const char *path, size_t len, struct afx_container *c)
{
    static const struct {
        const char *prefix, *engine;
    } scopes[] = {
        { "libpod-", "podman" },
        { "docker-", "docker" },
        { "cri-containerd-", "containerd" },
        { "crio-", "cri-o" },
    };
    struct afx_unit u;
    unit_of_path(path, len, &u);
    if (u.user)
        return false;
    /* A service whose podman runs its container in its own cgroup
     * (--cgroups=split, as quadlet units do): the component right below
     * the unit, which the unit's own processes could have named too. */
    size_t at = 0, n = 0;
    const char *unit = unit_after_slices(path, len, &at, &n);
    static const char service[] = ".service";
    if (unit != NULL && !u.user && !is_user_manager(unit, n) && n > sizeof service - 1
        && memcmp(unit + n - (sizeof service - 1), service, sizeof service - 1) == 0) {
        const char *below = component(path, len, &at, &n);
        if (prefixed_id(below, n, "libpod-payload-", "", c->id)) {
            snprintf(c->engine, sizeof c->engine, "podman");
            c->below_unit = true;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
        if (prefixed_id(u.name, strlen(u.name), scopes[i].prefix, ".scope", c->id)) {
            snprintf(c->engine, sizeof c->engine, "%s", scopes[i].engine);
            return true;
        }
    size_t n1 = 0, n2 = 0;
    at = 0;
    const char *first = component(path, len, &at, &n1);
    const char *second = component(path, len, &at, &n2);
    static const char libpod[] = "libpod_parent", docker[] = "docker";
    if (n1 == sizeof libpod - 1 && memcmp(first, libpod, n1) == 0 && prefixed_id(second, n2, "libpod-", "", c->id))
        snprintf(c->engine, sizeof c->engine, "podman");
    else if (n1 == sizeof docker - 1 && memcmp(first, docker, n1) == 0 && prefixed_id(second, n2, "", "", c->id))
        snprintf(c->engine, sizeof c->engine, "docker");
    else
        return kubepods_container(path, len, c);
    return true;
}

bool afx_cgroup_container(const char *text, size_t len, struct afx_container *c)
{
    const char *v1, *v2;
    size_t v1_len, v2_len;
    *c = (struct afx_container){ 0 };
    if (!cgroup_paths(text, len, &v1, &v1_len, &v2, &v2_len))
        return false;
    bool found = (v1 != NULL && container_of_path(v1, v1_len, c)) || (v2 != NULL && container_of_path(v2, v2_len, c));
    if (!found)
        *c = (struct afx_container){ 0 };
    return found;
}
