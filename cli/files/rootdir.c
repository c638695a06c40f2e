#include "rootdir.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

#define MAX_LINKS 40    /* as the kernel's MAXSYMLINKS */

/* ---- opening the root ------------------------------------------------- */

/* A directory only root (or owner) can change: rename nothing in it,
 * swap nothing under it.  Sticky counts (as /tmp): only an entry's owner
 * may then rename it. */
static const char *unsafe_dir(const struct stat *st, uid_t owner, bool sticky_ok)
{
    static char why[96];
    if (st->st_uid != 0 && st->st_uid != owner) {
        snprintf(why, sizeof why, "is owned by uid %u", (unsigned)st->st_uid);
        return why;
    }
    if ((st->st_mode & 022) != 0 && !(sticky_ok && (st->st_mode & S_ISVTX))) {
        snprintf(why, sizeof why, "may be written by its group or others (mode %04o)",
                 (unsigned)(st->st_mode & 07777));
        return why;
    }
    return NULL;
}

/* path resolved as the kernel resolves it, into canon (no symlinks).
 * Run as root (check), every symlink followed on the way, in path or in
 * a link's target, must be root's in a directory only root can change:
 * else whoever could change it could point the tree at another
 * directory (/) between two runs.  AFX_EXIT_OK, or after a message
 * AFX_EXIT_FAIL (refused) or AFX_EXIT_USAGE (no such directory). */
static int resolve_trusted(const char *path, char *canon, bool check, const char *what)
{
    char todo[2 * PATH_MAX + 2], next[2 * PATH_MAX + 2], cand[PATH_MAX + NAME_MAX + 2], target[PATH_MAX];
    int links = 0;
    if (path[0] == '/')
        strcpy(canon, "/");
    else if (getcwd(canon, PATH_MAX) == NULL)
        goto fail;
    snprintf(todo, sizeof todo, "%s", path);
    for (const char *p = todo;;) {
        p += strspn(p, "/");
        if (*p == '\0')
            return AFX_EXIT_OK;
        size_t n = strcspn(p, "/");
        if (n > NAME_MAX)
            goto fail;
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        p += n;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            char *slash = strrchr(canon, '/');
            slash[slash == canon] = '\0';  /* "/a" and "/" give "/" */
            continue;
        }
        snprintf(cand, sizeof cand, "%s%s%s", canon, strcmp(canon, "/") == 0 ? "" : "/", name);
        struct stat link, dir;
        if (strlen(cand) >= PATH_MAX || lstat(cand, &link) != 0)
            goto fail;
        if (!S_ISLNK(link.st_mode)) {
            strcpy(canon, cand);
            continue;
        }
        const char *why = stat(canon, &dir) != 0 ? strerror(errno) : unsafe_dir(&dir, 0, true);
        char owner[64];
        snprintf(owner, sizeof owner, "is owned by uid %u", (unsigned)link.st_uid);
        if (check && (why != NULL || link.st_uid != 0)) {
            afx_error("%s %s: the symlink %s on the way %s%s; whoever may change it could point the tree "
                      "elsewhere: give the tree's real path", what, path, cand, why != NULL ? "is in a directory that " : "",
                      why != NULL ? why : owner);
            return AFX_EXIT_FAIL;
        }
        ssize_t t = readlink(cand, target, sizeof target - 1);
        if (t < 0 || ++links > MAX_LINKS)
            goto fail;
        target[t] = '\0';
        if (snprintf(next, sizeof next, "%s/%s", target, p) >= (int)sizeof next)
            goto fail;
        strcpy(todo, next);
        p = todo;
        if (target[0] == '/')
            strcpy(canon, "/");
    }
fail:
    afx_error("%s %s: not a directory; give an existing directory", what, path);
    return AFX_EXIT_USAGE;
}

int afx_root_open(struct afx_root *r, const char *path, const char *what)
{
    char canon[PATH_MAX];
    struct stat top;
    int rc;
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->check = geteuid() == 0;
    if (path == NULL) {
        strcpy(canon, "/");
    } else if ((rc = resolve_trusted(path, canon, r->check, what)) != AFX_EXIT_OK) {
        return rc;
    } else if (stat(canon, &top) != 0 || !S_ISDIR(top.st_mode)) {
        afx_error("%s %s: not a directory; give an existing directory", what, path);
        return AFX_EXIT_USAGE;
    }

    /* Walk the canonical path without following anything, noting who may
     * change each directory; the last one's owner is the tree's. */
    size_t depth = 0, cap = 16;
    struct stat *st = malloc(cap * sizeof *st);
    int fd = st != NULL ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    for (const char *p = canon; fd >= 0 && fstat(fd, &st[depth]) == 0;) {
        p += strspn(p, "/");
        if (*p == '\0') {
            r->fd = fd;
            break;
        }
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        p += n;
        struct stat *more = ++depth < cap ? st : realloc(st, (cap *= 2) * sizeof *st);
        if (more == NULL && fd >= 0) {
            close(fd);
            fd = -1;
        }
        st = more != NULL ? more : st;
    }
    if (r->fd < 0) {
        afx_error("%s %s: it changed while being opened (%s); give a directory no one else is changing",
                  what, path != NULL ? path : "/", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(st);
        return AFX_EXIT_FAIL;
    }
    r->owner = st[depth].st_uid;
    r->host = strcmp(canon, "/") == 0;
    snprintf(r->shown, sizeof r->shown, "%s", r->host ? "" : canon);
    for (size_t i = 0; r->check && i < depth; i++) {
        const char *why = unsafe_dir(&st[i], r->owner, true);
        if (why != NULL) {
            char *cut = canon;
            for (size_t k = 0; k < i; k++)
                cut = strchr(cut + 1, '/');
            afx_error("%s %s: %.*s %s, who could swap the tree for another directory; give a tree "
                      "whose parent directories only root or the tree's owner may change", what, path,
                      i == 0 ? 1 : (int)(cut - canon), canon, why);
            afx_root_close(r);
            free(st);
            return AFX_EXIT_FAIL;
        }
    }
    free(st);
    return AFX_EXIT_OK;
}

void afx_root_close(struct afx_root *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

const char *afx_root_path(const struct afx_root *r, const char *rel, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", r->shown, rel);
    return out;
}

/* ---- writing: no symlinks, trusted directories ------------------------ */

const char *afx_next_step(const struct afx_root *r, int err)
{
    switch (err) {
    case EACCES:
    case EPERM:
        /* Root refused: not a missing privilege. */
        if (geteuid() == 0)
            return "refused even to root: look for an immutable attribute (lsattr -d) or a security "
                   "module's denial (journalctl -k)";
        return r->host ? "run as root, or use --root DIR to write under an image"
                       : "run as root or as the tree's owner";
    case EROFS:
        return "the file system is mounted read-only: remount it read-write, or use --root DIR on a "
               "writable copy";
    case ENOSPC:
    case EDQUOT:
    case EIO:
        return "check the disk and retry";
    default:
        return "fix that and retry";
    }
}

static bool dir_trusted(const struct afx_root *r, int fd, const char *rel)
{
    struct stat st;
    char where[2 * PATH_MAX];
    if (!r->check)
        return true;
    const char *why = fstat(fd, &st) != 0 ? strerror(errno) : unsafe_dir(&st, r->owner, false);
    if (why == NULL)
        return true;
    afx_error("%s %s; arenafix writes only through directories that only root%s may change: "
              "chown or chmod go-w it", afx_root_path(r, rel, where, sizeof where), why,
              r->owner != 0 ? " and the tree's owner" : "");
    return false;
}

int afx_root_dir(const struct afx_root *r, const char *rel, bool create, bool *created)
{
    char done[PATH_MAX] = "", where[2 * PATH_MAX];
    if (created != NULL)
        *created = false;
    int fd = openat(r->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !dir_trusted(r, fd, "")) {
        if (fd < 0)
            afx_error("cannot open %s: %s; %s", afx_root_path(r, "", where, sizeof where), strerror(errno),
                      afx_next_step(r, errno));
        else
            close(fd);
        return -1;
    }
    for (const char *p = rel; *(p += strspn(p, "/")) != '\0';) {
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        snprintf(done + strlen(done), sizeof done - strlen(done), "%s%s", *done ? "/" : "", name);
        p += n;
        bool last = p[strspn(p, "/")] == '\0';
        int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT && create && last) {
            /* Its own error, not the ENOENT of opening what it did not
             * make: a user without the right to write there must hear so. */
            int made = mkdirat(fd, name, 0755);
            if (made != 0 && errno != EEXIST) {
                afx_error("cannot create %s: %s; %s", afx_root_path(r, done, where, sizeof where),
                          strerror(errno), afx_next_step(r, errno));
                close(fd);
                return -1;
            }
            if (made == 0 && created != NULL)
                *created = true;
            next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next >= 0 && created != NULL && *created)
                fchmod(next, 0755);
        }
        int err = errno;
        struct stat st;
        if (next < 0 && err == ENOENT) {
            close(fd);
            errno = ENOENT;
            return -1;
        }
        if (next < 0 && err != ENOTDIR && err != ELOOP) {
            afx_error("cannot open %s: %s; %s", afx_root_path(r, done, where, sizeof where), strerror(err),
                      afx_next_step(r, err));
            close(fd);
            return -1;
        }
        if (next < 0) {
            bool link = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            afx_error("%s: %s; arenafix does not follow symlinks, nor go through anything but "
                      "directories, where it writes", afx_root_path(r, done, where, sizeof where),
                      link ? "a symlink" : "not a directory");
            close(fd);
            return -1;
        }
        close(fd);
        fd = next;
        if (!dir_trusted(r, fd, done)) {
            close(fd);
            return -1;
        }
    }
    return fd;
}

/* ---- reading: as systemd does, inside the root ------------------------- */

static int reopen_root(int root)
{
    return openat(root, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static bool same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The walk the kernel's RESOLVE_IN_ROOT does, for kernels without
 * openat2(): rel from root, symlinks followed with "/" and ".." kept at
 * root.  An O_PATH fd, or -1 with errno. */
static int walk_in_root(int root, const char *rel)
{
    char todo[2 * PATH_MAX + 2], next_todo[2 * PATH_MAX + 2];
    if (snprintf(todo, sizeof todo, "%s", rel) >= (int)sizeof todo) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int cur = reopen_root(root), links = 0;
    for (const char *p = todo; cur >= 0;) {
        p += strspn(p, "/");
        if (*p == '\0')
            return cur;
        size_t n = strcspn(p, "/");
        char name[NAME_MAX + 1];
        if (n > NAME_MAX) {
            close(cur);
            errno = ENAMETOOLONG;
            return -1;
        }
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        p += n;
        if (strcmp(name, ".") == 0)
            continue;
        int next;
        if (strcmp(name, "..") == 0) {
            next = same_file(cur, root) ? reopen_root(root) : openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        } else {
            next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            struct stat st;
            if (next >= 0 && fstat(next, &st) == 0 && S_ISLNK(st.st_mode)) {
                char target[PATH_MAX];
                ssize_t t = readlinkat(next, "", target, sizeof target - 1);
                close(next);
                if (t < 0 || ++links > MAX_LINKS) {
                    close(cur);
                    errno = t < 0 ? errno : ELOOP;
                    return -1;
                }
                target[t] = '\0';
                if (snprintf(next_todo, sizeof next_todo, "%s/%s", target, p) >= (int)sizeof next_todo) {
                    close(cur);
                    errno = ENAMETOOLONG;
                    return -1;
                }
                memcpy(todo, next_todo, sizeof todo);
                p = todo;
                if (target[0] == '/') {
                    close(cur);
                    cur = reopen_root(root);
                }
                continue;
            }
        }
        close(cur);
        cur = next;
    }
    return -1;
}

int afx_open_entry(int dir, const char *name)
{
    int path_fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (path_fd < 0)
        return -1;
    struct stat st;
    int fd = -1;
    if (fstat(path_fd, &st) != 0)
        fd = -1;
    else if (S_ISLNK(st.st_mode))
        errno = ELOOP;
    else if (!S_ISREG(st.st_mode))
        errno = EINVAL;
    else {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
        fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    }
    int err = errno;
    close(path_fd);
    errno = err;
    return fd;
}

/* rel as an O_PATH fd, symlinks followed inside the root. */
static int resolve(const struct afx_root *r, const char *rel)
{
    static bool no_openat2;
    struct open_how how = {
        .flags = O_PATH | O_CLOEXEC,
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    for (int tries = 0; !no_openat2 && tries < 8; tries++) {
        long fd = syscall(SYS_openat2, r->fd, rel, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
            no_openat2 = true;  /* an old kernel, or a seccomp filter */
        else if (errno != EAGAIN)
            return -1;          /* EAGAIN: a rename raced the lookup */
    }
    return walk_in_root(r->fd, rel);
}

int afx_root_stat(const struct afx_root *r, const char *rel, struct stat *st)
{
    int fd = resolve(r, rel);
    if (fd < 0)
        return -errno;
    int rc = fstat(fd, st) == 0 ? 0 : -errno;
    close(fd);
    return rc;
}

int afx_root_opendir(const struct afx_root *r, const char *rel)
{
    int fd = resolve(r, rel);
    if (fd < 0)
        return -1;
    int dir = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = errno;
    close(fd);
    errno = err;
    return dir;
}

ssize_t afx_root_readlink(const struct afx_root *r, const char *rel, char *buf, size_t size)
{
    char parent[PATH_MAX];
    const char *slash = strrchr(rel, '/');
    snprintf(parent, sizeof parent, "%.*s", slash != NULL ? (int)(slash - rel) : 0, rel);
    int fd = resolve(r, *parent ? parent : ".");
    if (fd < 0)
        return -1;
    ssize_t n = readlinkat(fd, slash != NULL ? slash + 1 : rel, buf, size - 1);
    int err = errno;
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    errno = err;
    return n;
}

/* An O_PATH fd of a regular file opened for reading without opening
 * anything else: through /proc, or, without /proc, again by name and
 * only if it is still the same file. */
static int reopen_file(const struct afx_root *r, const char *rel, int path_fd)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
    int fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    struct open_how how = {
        .flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    fd = (int)syscall(SYS_openat2, r->fd, rel, &how, sizeof how);
    if (fd >= 0 && !same_file(fd, path_fd)) {
        close(fd);
        errno = EAGAIN;
        return -1;
    }
    return fd;
}

int afx_root_open_file(const struct afx_root *r, const char *rel)
{
    int path_fd = resolve(r, rel);
    if (path_fd < 0)
        return -1;
    struct stat st;
    int fd = -1;
    if (fstat(path_fd, &st) != 0)
        fd = -1;
    else if (!S_ISREG(st.st_mode))
        errno = EINVAL;
    else
        fd = reopen_file(r, rel, path_fd);
    int err = errno;
    close(path_fd);
    errno = err;
    return fd;
}

int afx_root_read(const struct afx_root *r, const char *rel, size_t max, char **text, size_t *len,
                  struct stat *st)
{
    int path_fd = resolve(r, rel);
    if (path_fd < 0)
        return -errno;
    int rc = 0, fd = -1;
    if (fstat(path_fd, st) != 0)
        rc = -errno;
    else if (!S_ISREG(st->st_mode))
        rc = -EINVAL;
    else if ((size_t)st->st_size > max)
        rc = -EFBIG;
    else if ((fd = reopen_file(r, rel, path_fd)) < 0)
        rc = -errno;
    close(path_fd);
    char *buf = rc == 0 ? malloc(max + 1) : NULL;
    size_t n = 0;
    if (rc == 0 && buf == NULL)
        rc = -ENOMEM;
    while (rc == 0) {
        ssize_t got = read(fd, buf + n, max + 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = -errno;
        else if ((n += (size_t)got) > max)
            rc = -EFBIG;
        else if (got == 0)
            break;
    }
    if (fd >= 0)
        close(fd);
    if (rc != 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}
