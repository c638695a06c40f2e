#include "engines.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container.h"
#include "proc/enginestate.h"
#include "readfile.h"

/* A command line: dockerd's run to a few hundred bytes. */
#define CMDLINE_MAX (64 << 10)
/* Ancestors between a container's process and its shim: its own
 * processes, nested as they like, but not without bound. */
#define DEPTH_MAX 256
#define ROOTS_MAX 8
#define DOCKER_DEFAULT_ROOT "/var/lib/docker"
#define DOCKER_DEFAULT_CONFIG "/etc/docker/daemon.json"

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Process pid is in this command's mount namespace: its paths are ours. */
static bool in_our_mounts(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", pid);
    return same_file(path, "/proc/self/ns/mnt");
}

/* A field of /proc/PID/status, "Name:\tVALUE...", its value's text. */
static bool status_field(const char *status, const char *field, char *out, size_t size)
{
    size_t n = strlen(field);
    for (const char *line = status; line != NULL && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            const char *v = line + n + 1;
            size_t len = strcspn(v, "\n");
            if (len >= size)
                return false;
            memcpy(out, v, len);
            out[len] = '\0';
            return true;
        }
    return false;
}

/* Its parent, and whether every one of its uids is 0. */
static long parent_of(long pid, bool *root)
{
    char path[64], value[128], *end;
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    char *status = afx_slurp_max(path, 64 << 10, NULL, NULL);
    long ppid = -1;
    *root = false;
    if (status != NULL && status_field(status, "PPid", value, sizeof value)) {
        ppid = strtol(value, &end, 10);
        if (end == value)
            ppid = -1;
    }
    if (status != NULL && status_field(status, "Uid", value, sizeof value)) {
        unsigned long ids[4];
        *root = sscanf(value, "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) == 4
                && (ids[0] | ids[1] | ids[2] | ids[3]) == 0;
    }
    free(status);
    return ppid;
}

/* Process pid, root's alone, runs a root-only executable named base
 * (or, with prefix, one whose name begins with it): its command line,
 * malloc'd, its length in *len.  NULL if not. */
static char *root_program(long pid, const char *base, bool prefix, size_t *len)
{
    char path[64], exe[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    /* Its file replaced since it started (the engine upgraded, its
     * containers left running): the kernel says so after the name. */
    static const char deleted[] = " (deleted)";
    size_t d = sizeof deleted - 1;
    bool gone = (size_t)n > d && strcmp(exe + n - d, deleted) == 0;
    if (gone)
        exe[n - d] = '\0';
    const char *name = strrchr(exe, '/');
    name = name != NULL ? name + 1 : exe;
    if (exe[0] != '/' || (prefix ? strncmp(name, base, strlen(base)) != 0 : strcmp(name, base) != 0))
        return NULL;
    /* Then the very file it runs, by the kernel's link to it: root's,
     * and no one else may have written it. */
    struct stat st;
    int fd = gone ? open(path, O_RDONLY | O_CLOEXEC) : afx_open_root_program(exe);
    bool trusted = fd >= 0 && (!gone || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0
                                         && (st.st_mode & 022) == 0));
    if (fd >= 0)
        close(fd);
    if (!trusted)
        return NULL;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    return afx_slurp_max(path, CMDLINE_MAX, NULL, len);
}

bool afx_shim_container(long pid, struct afx_container *c)
{
    if (in_our_mounts(pid))
        return false;
    long at = pid, below = pid;
    bool root = false;
    for (int depth = 0; depth < DEPTH_MAX; depth++) {
        below = at;
        at = parent_of(at, &root);
        if (at <= 0)
            return false;
        if (in_our_mounts(at))
            break;
    }
    size_t len;
    char ns[sizeof c->ns], id[AFX_CONTAINER_ID_SIZE];
    /* The shim's own uids, not those of the container's process below
     * it: root's alone, as a user's process of the same name (a
     * rootless engine's, or the root-owned program run by a user) says
     * what its user wants. */
    parent_of(at, &root);
    char *argv = root ? root_program(at, "containerd-shim-", true, &len) : NULL;
    bool found = argv != NULL && afx_shim_task(argv, len, ns, sizeof ns, id, sizeof id);
    free(argv);
    /* Still its parent: the PID read was not another's since. */
    bool ignored;
    found = found && parent_of(below, &ignored) == at;
    if (!found)
        return false;
    *c = (struct afx_container){ 0 };
    snprintf(c->engine, sizeof c->engine, "%s", strcmp(ns, "moby") == 0 ? "docker" : "containerd");
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->ns, sizeof c->ns, "%s", ns);
    return true;
}

/* dockerd's data root by its command line (argv, len bytes). */
static bool data_root(const char *argv, size_t len, char *out, size_t size)
{
    char config[PATH_MAX];
    if (afx_argv_option(argv, len, "--data-root", out, size))
        return out[0] == '/';
    if (!afx_argv_option(argv, len, "--config-file", config, sizeof config))
        snprintf(config, sizeof config, "%s", DOCKER_DEFAULT_CONFIG);
    int fd = config[0] == '/' ? afx_open_root_only(config) : -1;
    size_t n = 0;
    char *json = fd >= 0 ? afx_read_root_only(fd, &n) : NULL;
    if (fd >= 0)
        close(fd);
    bool got = json != NULL && afx_json_top_string(json, n, "data-root", out, size);
    free(json);
    if (!got)
        snprintf(out, size, "%s", DOCKER_DEFAULT_ROOT);
    return out[0] == '/';
}

/* The data roots of the dockerds running, found once a run. */
static size_t docker_roots(char roots[ROOTS_MAX][PATH_MAX])
{
    static char found[ROOTS_MAX][PATH_MAX];
    static size_t count;
    static bool looked;
    if (!looked) {
        looked = true;
        DIR *proc = opendir("/proc");
        struct dirent *e;
        while (proc != NULL && count < ROOTS_MAX && (e = readdir(proc)) != NULL) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            bool root;
            size_t len;
            if (*end != '\0' || pid <= 0 || !in_our_mounts(pid) || (parent_of(pid, &root), !root))
                continue;
            char *argv = root_program(pid, "dockerd", false, &len);
            if (argv != NULL && data_root(argv, len, found[count], sizeof found[count]))
                count++;
            free(argv);
        }
        if (proc != NULL)
            closedir(proc);
        if (count == 0)
            snprintf(found[count++], sizeof found[0], "%s", DOCKER_DEFAULT_ROOT);
    }
    memcpy(roots, found, sizeof found);
    return count;
}

void afx_docker_name_of(struct afx_container *c)
{
    static char roots[ROOTS_MAX][PATH_MAX];
    char path[PATH_MAX + 128];
    c->name[0] = '\0';
    size_t count = docker_roots(roots);
    for (size_t i = 0; i < count && c->name[0] == '\0'; i++) {
        if (snprintf(path, sizeof path, "%s/containers/%s/config.v2.json", roots[i], c->id) >= (int)sizeof path)
            continue;
        int fd = afx_open_root_only(path);
        if (fd < 0)
            continue;
        size_t len = 0;
        char *json = afx_read_root_only(fd, &len);
        close(fd);
        if (json != NULL && !afx_docker_name(json, len, c->id, c->name, sizeof c->name))
            c->name[0] = '\0';
        free(json);
    }
}
