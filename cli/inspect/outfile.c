#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* dir opened one component at a time, none of them a symbolic link. */
static int open_dir(const char *dir, const char *path)
{
    char copy[PATH_MAX], *save = NULL;
    snprintf(copy, sizeof copy, "%s", dir);
    int fd = open(dir[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (char *c = strtok_r(copy, "/", &save); fd >= 0 && c != NULL; c = strtok_r(NULL, "/", &save)) {
        int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        close(fd);
        fd = next;
        if (fd < 0) {
            if (err == ELOOP || err == ENOTDIR)
                afx_error("--output %s: %s on its way is a symbolic link or not a directory; --output "
                          "follows none: name the directory by its real path", path, c);
            else if (err == EACCES || err == EPERM)
                afx_error("--output %s: cannot open the directory %s on its way: %s; run as a user "
                          "who may enter it (root, or the collector's user)", path, c, strerror(err));
            else
                afx_error("--output %s: cannot open the directory %s on its way: %s; check that it "
                          "exists", path, c, strerror(err));
            return -1;
        }
    }
    if (fd < 0)
        afx_error("--output %s: cannot open %s: %s", path, dir[0] == '/' ? "/" : ".", strerror(errno));
    return fd;
}

FILE *afx_outfile_open(struct afx_outfile *o, const char *path)
{
    o->f = NULL;
    o->dir = -1;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (snprintf(o->path, sizeof o->path, "%s", path) >= (int)sizeof o->path || strlen(name) + 8 > NAME_MAX) {
        afx_error("--output: the path is longer than a path can be; name a shorter one");
        return NULL;
    }
    if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
        afx_error("--output %s: names a directory; name the file to write, such as DIR/arenafix.prom", path);
        return NULL;
    }
    snprintf(o->name, sizeof o->name, "%s", name);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 0, path);
    if ((o->dir = open_dir(dir, path)) < 0)
        return NULL;

    /* Unnamed until it is whole (O_TMPFILE): a scan killed at the
     * timer's timeout leaves nothing behind.  A file system without it
     * gets a named one. */
    int fd = openat(o->dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    o->unnamed = fd >= 0;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        unsigned char r[4];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            break;
        snprintf(o->tmp, sizeof o->tmp, "%s.%02x%02x%02x%02x", name, r[0], r[1], r[2], r[3]);
        /* O_EXCL: a file or link already under that name is not
         * opened, another name is tried. */
        fd = openat(o->dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        afx_error("--output %s: cannot create a file beside it: %s; check that its directory is writable", path,
                  strerror(errno));
        close(o->dir);
        return NULL;
    }
    /* The collector runs as another user, whatever the umask: it must
     * be able to read it. */
    if (fchmod(fd, 0644) != 0 || (o->f = fdopen(fd, "w")) == NULL) {
        afx_error("--output %s: cannot set up a new file beside it: %s", path, strerror(errno));
        close(fd);
        if (!o->unnamed)
            unlinkat(o->dir, o->tmp, 0);
        close(o->dir);
        return NULL;
    }
    return o->f;
}

/* The unnamed file given a name beside FILE, random as above.  Through
 * /proc/self/fd: linkat's AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH. */
static bool name_it(struct afx_outfile *o)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fileno(o->f));
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[4];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return false;
        snprintf(o->tmp, sizeof o->tmp, "%s.%02x%02x%02x%02x", o->name, r[0], r[1], r[2], r[3]);
        if (linkat(AT_FDCWD, self, o->dir, o->tmp, AT_SYMLINK_FOLLOW) == 0)
            return true;
        if (errno != EEXIST)
            return false;
    }
    return false;
}

void afx_outfile_abandon(struct afx_outfile *o)
{
    fclose(o->f);
    o->f = NULL;
    if (!o->unnamed)
        unlinkat(o->dir, o->tmp, 0);
    close(o->dir);
    o->dir = -1;
}

bool afx_outfile_commit(struct afx_outfile *o)
{
    const char *step = "write";
    bool ok = fflush(o->f) == 0 && !ferror(o->f);
    if (ok) {
        step = "sync";
        ok = fsync(fileno(o->f)) == 0;
    }
    bool named = !o->unnamed;
    if (ok && !named) {
        step = "name";
        ok = named = name_it(o);
    }
    int err = errno;
    if (fclose(o->f) != 0 && ok) {
        step = "close";
        err = errno;
        ok = false;
    }
    o->f = NULL;
    if (ok && renameat(o->dir, o->tmp, o->dir, o->name) != 0) {
        step = "rename";
        err = errno;
        ok = false;
    }
    if (!ok) {
        /* Its name, where it has one: should the removal fail too,
         * whoever finds it left behind knows what it is. */
        afx_error("--output %s: cannot %s %s%s: %s; %s is left as it was", o->path, step,
                  named ? "the new file " : "the new file", named ? o->tmp : "", strerror(err), o->path);
        if (named && unlinkat(o->dir, o->tmp, 0) != 0)
            afx_error("--output %s: cannot remove the new file %s either: %s", o->path, o->tmp, strerror(errno));
    }
    close(o->dir);
    o->dir = -1;
    return ok;
}
