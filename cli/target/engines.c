#include "engines.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/rootonly.h"
#include "memreader.h"
#include "proc/procstatus.h"
#include "proctable.h"
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
static bool in_our_mounts_now(long pid)
{
    char path[64];
    afx_proc_path(path, sizeof path, pid, "/ns/mnt");
    return same_file(path, "/proc/self/ns/mnt");
}

/* The same, asked once a run of each process. */
static bool in_our_mounts(long pid)
{
    struct afx_proc_entry *e = afx_proc_entry(pid, NULL);
    if (e == NULL)
        return in_our_mounts_now(pid);
    if (e->ours < 0)
        e->ours = in_our_mounts_now(pid);
    return e->ours;
}

/* Its parent (-1 if unknown), and whether every one of its uids is 0:
 * its status, read once a run (proctable.h). */
static long parent_of(long pid, bool *root)
{
    struct afx_proc_entry *e = afx_proc_entry(pid, NULL);
    *root = e != NULL && e->err == 0 && e->root;
    return e != NULL && e->err == 0 ? e->ppid : -1;
}

/* The same read now, not as the run first read it: what decides that a
 * shim is root's, and still the parent of its container's process. */
static long parent_now(long pid, bool *root)
{
    char path[64], value[128], *end;
    afx_proc_path(path, sizeof path, pid, "/status");
    char *status = afx_slurp_max(path, 64 << 10, NULL, NULL);
    long ppid = -1;
    *root = false;
    if (status != NULL && afx_status_field(status, "PPid", value, sizeof value)) {
        ppid = strtol(value, &end, 10);
        if (end == value)
            ppid = -1;
    }
    if (status != NULL && afx_status_field(status, "Uid", value, sizeof value)) {
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
    afx_proc_path(path, sizeof path, pid, "/exe");
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
    /* By the helper, within its budget: the kernel takes the lock of
     * the process's memory map to write it (memreader.h). */
    afx_proc_path(path, sizeof path, pid, "/cmdline");
    return afx_mem_slurp(path, CMDLINE_MAX, NULL, len);
}

/* The first ancestor of pid in this command's mount namespace, and in
 * *below its child on the way; 0 if none (the chain ends outside it, or
 * goes on past DEPTH_MAX).  What each walk found is kept for every
 * process on its way (proctable.h): a container's processes share the
 * way up, walked once a run, however deep they nest. */
static long first_ours(long pid, long *below)
{
    long way[DEPTH_MAX], top = 0, child = 0, at = pid;
    int n = 0;
    for (;;) {
        struct afx_proc_entry *e = afx_proc_entry(at, NULL);
        if (e != NULL && e->top != 0) {
            top = e->top;
            child = e->below;
            break;
        }
        if (n == DEPTH_MAX)
            return 0;   /* not kept: from one nearer the top, the way may be shorter */
        way[n++] = at;
        bool root;
        long parent = parent_of(at, &root);
        if (parent <= 0) {
            top = -1;
            break;
        }
        if (in_our_mounts(parent)) {
            top = parent;
            child = at;
            break;
        }
        at = parent;
    }
    for (int i = 0; i < n; i++) {
        struct afx_proc_entry *e = afx_proc_entry(way[i], NULL);
        if (e != NULL) {
            e->top = top;
            e->below = child;
        }
    }
    *below = child;
    return top > 0 ? top : 0;
}

/* Shims looked at this run, by the index (+ 1) in their entry's shim. */
static struct shim {
    bool found;
    char ns[sizeof ((struct afx_container *)0)->ns];
    char id[AFX_CONTAINER_ID_SIZE];
    char bundles[PATH_MAX];     /* its namespace's bundles, "" if not known */
} *shims;
static size_t shim_count, shim_cap;

/* The directory of the bundles of shim sh's namespace: containerd starts
 * a runc v2 shim in the bundle of the task it was started for,
 * STATE/io.containerd.runtime.v2.task/NAMESPACE/ID, wherever its state
 * is (/run/containerd, k3s's /run/k3s/containerd, a --state of its own).
 * Taken only if the path ends in the namespace and ID its command line
 * gave; what is read below it is read as root's files alone. */
static void shim_bundles(long at, struct shim *sh)
{
    char path[64], cwd[PATH_MAX];
    sh->bundles[0] = '\0';
    afx_proc_path(path, sizeof path, at, "/cwd");
    ssize_t n = readlink(path, cwd, sizeof cwd - 1);
    if (n <= 0 || cwd[0] != '/')
        return;
    cwd[n] = '\0';
    char *id = strrchr(cwd, '/');
    if (id == cwd || strcmp(id + 1, sh->id) != 0)
        return;
    *id = '\0';
    char *ns = strrchr(cwd, '/');
    if (strcmp(ns + 1, sh->ns) != 0 || strlen(cwd) >= sizeof sh->bundles)
        return;
    memcpy(sh->bundles, cwd, strlen(cwd) + 1);
}

/* Whether process at, the parent of below, is a containerd shim of
 * root's, and its namespace and ID: read now, once a run for each. */
static struct shim *shim_at(long at, long below)
{
    struct afx_proc_entry *e = afx_proc_entry(at, NULL);
    if (e != NULL && e->shim > 0)
        return &shims[e->shim - 1];
    if (shim_count == shim_cap) {
        size_t cap = shim_cap == 0 ? 16 : shim_cap * 2;
        struct shim *more = realloc(shims, cap * sizeof *more);
        if (more == NULL)
            return NULL;
        shims = more;
        shim_cap = cap;
    }
    struct shim *sh = &shims[shim_count];
    *sh = (struct shim){ .found = false };
    size_t len;
    bool root = false;
    char *argv = root_program(at, "containerd-shim-", true, &len);
    /* The shim's own uids, not those of the container's process below
     * it: root's alone, as a user's process of the same name (a
     * rootless engine's, or the root-owned program run by a user) says
     * what its user wants.  Read now, once its command line is: only a
     * shim's status is read twice a run. */
    if (argv != NULL)
        parent_now(at, &root);
    sh->found = root && afx_shim_task(argv, len, sh->ns, sizeof sh->ns, sh->id, sizeof sh->id);
    free(argv);
    if (sh->found)
        shim_bundles(at, sh);
    /* Still its parent: the PID read was not another's since. */
    bool ignored;
    sh->found = sh->found && parent_now(below, &ignored) == at;
    if (e != NULL)
        e->shim = (int)++shim_count;
    return sh;
}

bool afx_shim_bundles(long pid, char *dir, size_t size)
{
    if (in_our_mounts(pid))
        return false;
    long below, at = first_ours(pid, &below);
    struct shim *sh = at > 0 ? shim_at(at, below) : NULL;
    /* The CRI plugin's namespace alone: a docker container given a
     * /kubepods parent runs under a shim of moby's, whose bundles hold
     * whatever annotations its docker run was given. */
    if (sh == NULL || !sh->found || sh->bundles[0] == '\0' || strcmp(sh->ns, "k8s.io") != 0)
        return false;
    return (size_t)snprintf(dir, size, "%s", sh->bundles) < size;
}

bool afx_shim_container(long pid, struct afx_container *c)
{
    if (in_our_mounts(pid))
        return false;
    long below, at = first_ours(pid, &below);
    struct shim *sh = at > 0 ? shim_at(at, below) : NULL;
    if (sh == NULL || !sh->found)
        return false;
    *c = (struct afx_container){ 0 };
    snprintf(c->engine, sizeof c->engine, "%s", strcmp(sh->ns, "moby") == 0 ? "docker" : "containerd");
    snprintf(c->id, sizeof c->id, "%s", sh->id);
    snprintf(c->ns, sizeof c->ns, "%s", sh->ns);
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
            /* Root's as the run first read it; and still, now that its
             * command line was read. */
            if (argv != NULL && (parent_now(pid, &root), !root)) {
                free(argv);
                argv = NULL;
            }
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
