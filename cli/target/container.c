#include "container.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engines.h"
#include "pods.h"
#include "files/rootonly.h"
#include "proc/podmanstate.h"
#include "proc/userns.h"
#include "readfile.h"


/* The file as last read, kept while it is unchanged: a scan reads it
 * once, not once per process of each container. */
static struct {
    char *json;
    size_t len;
    struct stat st;
} state;

static bool unchanged(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size
           && a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec
           && a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void podman_name(struct afx_container *c)
{
    struct stat st;
    int fd = afx_open_root_only(AFX_PODMAN_CONTAINERS);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || state.json == NULL || !unchanged(&st, &state.st)) {
        free(state.json);
        state.json = afx_read_root_only(fd, &state.len);
        state.st = st;
    }
    close(fd);
    if (state.json == NULL || !afx_podman_name(state.json, state.len, c->id, c->name, sizeof c->name))
        c->name[0] = '\0';
}

/* Its mount namespace is that of the container's first process, whose
 * PID the runtime wrote in podman's run directory: it is in that
 * container, whatever cgroup it was put in. */
static bool podman_member(long pid, const struct afx_container *c)
{
    char path[PATH_MAX], text[32], *end;
    struct stat mine, init;
    snprintf(path, sizeof path, "%s/%s/userdata/pidfile", AFX_PODMAN_RUN, c->id);
    int fd = afx_open_root_only(path);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    errno = 0;
    long first = strtol(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\0' && *end != '\n') || first < 1)
        return false;
    afx_proc_path(path, sizeof path, first, "/ns/mnt");
    bool got = stat(path, &init) == 0;
    afx_proc_path(path, sizeof path, pid, "/ns/mnt");
    return got && stat(path, &mine) == 0 && mine.st_dev == init.st_dev && mine.st_ino == init.st_ino;
}

void afx_container_of(long pid, const char *text, size_t len, struct afx_container *c)
{
    if (text == NULL || !afx_cgroup_container(text, len, c))
        *c = (struct afx_container){ 0 };
    if (c->below_unit && !podman_member(pid, c)) {
        char id[sizeof c->id];
        snprintf(id, sizeof id, "%s", c->id);
        *c = (struct afx_container){ 0 };
        snprintf(c->unconfirmed, sizeof c->unconfirmed, "%s", id);
    }
    /* Where its cgroup names none (docker's --cgroup-parent, a
     * container ctr runs), the shim it runs under may. */
    if (c->engine[0] == '\0')
        afx_shim_container(pid, c);
    if (strcmp(c->engine, "podman") == 0)
        podman_name(c);
    else if (strcmp(c->engine, "docker") == 0)
        afx_docker_name_of(c);
    else
        afx_pod_name_of(pid, c);
    /* A rootless one: in no cgroup of root's engine (cgroup v1 gives a
     * user's none), but in a namespace the kernel says is a user's.  One
     * root made is root's sandbox (a service's PrivateUsers=yes): its
     * unit's fix holds. */
    struct afx_userns u;
    if (c->engine[0] == '\0' && afx_userns_of(pid, &u) && u.owner != 0) {
        c->userns = true;
        c->owner = (unsigned)u.owner;
        c->mntns = u.mnt;
    }
}
