#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Why the directory fd is not one only root and this user may change,
 * or NULL.  FILE's own directory must be writable by
 * no one else; one on the way may be sticky (/tmp): no one else may
 * then rename what is in it. */
static const char *unsafe_dir(int fd, bool last, char *why, size_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, size, "cannot be examined: %s", strerror(errno));
        return why;
    }
    if (st.st_uid != 0 && st.st_uid != geteuid())
        snprintf(why, size, "is owned by uid %u", (unsigned)st.st_uid);
    else if ((st.st_mode & 022) != 0 && (last || !(st.st_mode & S_ISVTX)))
        snprintf(why, size, "may be written by its group or others (mode %04o)", (unsigned)(st.st_mode & 07777));
    else
        return NULL;
    return why;
}

/* dir opened one component at a time, none of them a symbolic link;
 * with AFX_OUTFILE_TRUSTED, from / and each checked (unsafe_dir); with
 * AFX_OUTFILE_MAKE_DIR, its last component made when missing. */
static int open_dir(const char *dir, const char *path, unsigned flags)
{
    char copy[PATH_MAX], shown[PATH_MAX] = "", why[96], *save = NULL;
    bool trusted = flags & AFX_OUTFILE_TRUSTED;
    /* Trusted: the directories above the working one count too. */
    if (trusted && dir[0] != '/') {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd) == NULL || snprintf(copy, sizeof copy, "%s/%s", cwd, dir) >= (int)sizeof copy) {
            afx_error("--output %s: cannot tell the working directory's path: %s; name FILE by its absolute path",
                      path, strerror(errno));
            return -1;
        }
    } else {
        snprintf(copy, sizeof copy, "%s", dir);
    }
    int fd = open(copy[0] == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        afx_error("--output %s: cannot open %s: %s", path, copy[0] == '/' ? "/" : ".", strerror(errno));
        return -1;
    }
    snprintf(shown, sizeof shown, "%s", copy[0] == '/' ? "/" : ".");
    char *c = strtok_r(copy, "/", &save);
    for (;;) {
        char *next_c = c == NULL ? NULL : strtok_r(NULL, "/", &save);
        if (trusted && unsafe_dir(fd, c == NULL, why, sizeof why) != NULL) {
            afx_error("--output %s: the directory %s %s; root's programs trust what is written there, so no "
                      "one else may change it: chown root and chmod go-w it, or name another", path, shown, why);
            close(fd);
            return -1;
        }
        if (c == NULL)
            return fd;
        size_t used = strlen(shown);
        snprintf(shown + used, sizeof shown - used, "%s%s", used > 0 && shown[used - 1] == '/' ? "" : "/", c);
        int next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int err = errno;
        const char *verb = "open";
        /* FILE's own directory (/etc/cdi on a fresh host), in one that
         * is there: mode 0755 whatever the umask. */
        if (next < 0 && err == ENOENT && next_c == NULL && (flags & AFX_OUTFILE_MAKE_DIR)) {
            bool made = mkdirat(fd, c, 0755) == 0;
            verb = made ? "set up" : errno == EEXIST ? "open" : "make";
            if (made || errno == EEXIST) {
                next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next >= 0 && made && fchmod(next, 0755) != 0) {
                    close(next);
                    next = -1;
                }
            }
            err = errno;
        }
        close(fd);
        fd = next;
        if (fd < 0) {
            if (err == ELOOP || err == ENOTDIR)
                afx_error("--output %s: %s on its way is a symbolic link or not a directory; --output "
                          "follows none: name the directory by its real path", path, c);
            else if (err == EACCES || err == EPERM)
                afx_error("--output %s: cannot %s the directory %s on its way: %s; run as a user "
                          "who may enter it (root, or the collector's user)", path, verb, c, strerror(err));
            else
                afx_error("--output %s: cannot %s the directory %s on its way: %s; check that %s", path, verb, c,
                          strerror(err), strcmp(verb, "open") == 0 ? "it exists" : "its file system is writable");
            return -1;
        }
        c = next_c;
    }
}

FILE *afx_outfile_open(struct afx_outfile *o, const char *path, unsigned flags)
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
    if ((o->dir = open_dir(dir, path, flags)) < 0)
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
