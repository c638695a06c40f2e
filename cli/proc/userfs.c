#include "userfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

/* A host with thousands of mounts lists a few hundred KiB; past this a
 * file system is not looked for (unseen: left unread). */
#define MOUNTINFO_MAX (4L << 20)

static bool is_fuse(const char *type, size_t n)
{
    return (n == 4 && memcmp(type, "fuse", 4) == 0) || (n > 5 && memcmp(type, "fuse.", 5) == 0)
           || (n == 7 && memcmp(type, "fuseblk", 7) == 0);
}

/* Field i (from 0) of a mountinfo line, and its length. */
static const char *field(const char *line, const char *end, int i, size_t *n)
{
    const char *p = line;
    for (; i > 0; i--) {
        p = memchr(p, ' ', (size_t)(end - p));
        if (p == NULL)
            return NULL;
        p++;
    }
    const char *stop = memchr(p, ' ', (size_t)(end - p));
    *n = (size_t)((stop != NULL ? stop : end) - p);
    return p;
}

/* The file system type of a line: the first field after " - ". */
static const char *fs_type(const char *line, const char *end, size_t *n)
{
    const char *sep = line;
    while ((sep = memchr(sep, '-', (size_t)(end - sep))) != NULL) {
        if (sep > line && sep[-1] == ' ' && sep + 1 < end && sep[1] == ' ')
            return field(sep + 2, end, 0, n);
        sep++;
    }
    return NULL;
}

/* Each line of a mountinfo, until fn returns true. */
static bool each_mount(const char *path, bool (*fn)(void *ctx, const char *line, const char *end), void *ctx,
                       bool *read)
{
    size_t len;
    char *text = afx_slurp_max(path, MOUNTINFO_MAX, NULL, &len);
    *read = text != NULL;
    bool hit = false;
    for (const char *line = text, *stop = text + (text != NULL ? len : 0); line != NULL && line < stop && !hit;) {
        const char *end = memchr(line, '\n', (size_t)(stop - line));
        if (end == NULL)
            end = stop;
        hit = fn(ctx, line, end);
        line = end + 1;
    }
    free(text);
    return hit;
}

struct mount_lookup {
    int key;            /* the field matched: 0, the mount ID; 2, major:minor */
    char want[32];
    size_t want_len;
    enum afx_fs_server found;
    unsigned major, minor;      /* the device the line found lists */
};

static bool match_mount(void *ctx, const char *line, const char *end)
{
    struct mount_lookup *d = ctx;
    size_t n = 0, dn = 0, tn = 0;
    const char *key = field(line, end, d->key, &n);
    const char *dev = field(line, end, 2, &dn);
    const char *type = fs_type(line, end, &tn);
    if (key == NULL || dev == NULL || type == NULL || n != d->want_len || memcmp(key, d->want, n) != 0)
        return false;
    char text[32];
    if (dn >= sizeof text)
        return false;
    memcpy(text, dev, dn);
    text[dn] = '\0';
    if (sscanf(text, "%u:%u", &d->major, &d->minor) != 2)
        return false;
    d->found = is_fuse(type, tn) ? AFX_FS_USER : AFX_FS_KERNEL;
    return true;
}

/* The line of pid's mountinfo, else of ours, whose field d->key is
 * d->want. */
static void find_mount(long pid, struct mount_lookup *d)
{
    char path[64];
    bool read;
    d->found = AFX_FS_UNSEEN;
    snprintf(path, sizeof path, "/proc/%ld/mountinfo", pid);
    if (!each_mount(path, match_mount, d, &read))
        each_mount("/proc/self/mountinfo", match_mount, d, &read);
}

enum afx_fs_server afx_fs_server(long pid, unsigned major, unsigned minor)
{
    if (major != 0)
        return AFX_FS_KERNEL;
    struct mount_lookup d = { .key = 2 };
    d.want_len = (size_t)snprintf(d.want, sizeof d.want, "%u:%u", major, minor);
    find_mount(pid, &d);
    return d.found;
}

enum afx_fs_server afx_file_fs_server(long pid, const struct statx *sx, unsigned *major, unsigned *minor)
{
    *major = sx->stx_dev_major;
    *minor = sx->stx_dev_minor;
    if (sx->stx_dev_major != 0)
        return AFX_FS_KERNEL;
    if ((sx->stx_mask & STATX_MNT_ID) == 0)
        return afx_fs_server(pid, sx->stx_dev_major, sx->stx_dev_minor);
    struct mount_lookup d = { .key = 0 };
    d.want_len = (size_t)snprintf(d.want, sizeof d.want, "%llu", (unsigned long long)sx->stx_mnt_id);
    find_mount(pid, &d);
    if (d.found != AFX_FS_UNSEEN) {
        *major = d.major;
        *minor = d.minor;
    }
    return d.found;
}

struct path_lookup {
    const char *path;
    bool crosses;
};

/* mountinfo's mount point, its \ooo escapes undone, is path or a
 * directory above it. */
static bool point_above(const char *point, size_t n, const char *path)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        char c = point[i];
        if (c == '\\' && i + 3 < n) {
            c = (char)(((point[i + 1] - '0') << 6) | ((point[i + 2] - '0') << 3) | (point[i + 3] - '0'));
            i += 3;
        }
        if (path[at] != c)
            return false;
        at++;
    }
    return at == 1 || path[at] == '/' || path[at] == '\0';
}

static bool match_path(void *ctx, const char *line, const char *end)
{
    struct path_lookup *p = ctx;
    size_t n, tn;
    const char *point = field(line, end, 4, &n);
    const char *type = fs_type(line, end, &tn);
    if (point == NULL || type == NULL || !is_fuse(type, tn) || !point_above(point, n, p->path))
        return false;
    p->crosses = true;
    return true;
}

bool afx_path_crosses_user_fs(long pid, const char *path)
{
    struct path_lookup p = { .path = path };
    char file[64];
    bool read;
    snprintf(file, sizeof file, "/proc/%ld/mountinfo", pid);
    each_mount(file, match_path, &p, &read);
    /* Not known, not walked. */
    return p.crosses || !read;
}

const char *afx_user_fs_note(int err)
{
    return err == AFX_ERR_USER_FS    ? "served by a user's FUSE file system, which may never answer"
           : err == AFX_ERR_UNSEEN_FS ? "on a file system mounted nowhere inspect sees (detached), which may be "
                                        "a user's FUSE"
                                      : NULL;
}
