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
#include "proc/podmanstate.h"
#include "proc/userns.h"
#include "readfile.h"

/* A few hundred bytes a container: room for tens of thousands. */
#define STATE_MAX (16L << 20)

static bool root_only(const struct stat *st)
{
    return st->st_uid == 0 && (st->st_mode & 022) == 0;
}

/* path (absolute), opened only if it and every directory on its way are
 * root's alone, no link followed: what it says, root wrote.  -1 if not,
 * or if larger than max. */
static int open_root_only_max(const char *path, off_t max)
{
    struct stat st;
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    const char *p = path;
    while (dir >= 0) {
        if (fstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !root_only(&st))
            break;
        p += strspn(p, "/");
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        if (n == 0 || n > NAME_MAX)
            break;
        memcpy(name, p, n);
        name[n] = '\0';
        p += n;
        bool last = *p == '\0';
        int next = openat(dir, name, last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                                          : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(dir);
        dir = next;
        if (last && dir >= 0) {
            if (fstat(dir, &st) == 0 && S_ISREG(st.st_mode) && root_only(&st) && st.st_size <= max)
                return dir;
            break;
        }
    }
    if (dir >= 0)
        close(dir);
    return -1;
}

static int open_root_only(const char *path)
{
    return open_root_only_max(path, STATE_MAX);
}

/* The whole of fd, at most STATE_MAX bytes; NULL if more or unreadable. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n == cap) {
            char *bigger = cap < (size_t)STATE_MAX ? realloc(buf, cap * 2) : NULL;
            if (bigger == NULL)
                break;
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        if (got == 0) {
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}

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
    int fd = open_root_only(AFX_PODMAN_CONTAINERS);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || state.json == NULL || !unchanged(&st, &state.st)) {
        free(state.json);
        state.json = read_all(fd, &state.len);
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
    int fd = open_root_only(path);
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

int afx_open_root_only(const char *path)
{
    return open_root_only(path);
}

int afx_open_root_program(const char *path)
{
    return open_root_only_max(path, INT64_MAX);
}

char *afx_read_root_only(int fd, size_t *len)
{
    return read_all(fd, len);
}
