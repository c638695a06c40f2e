/* The tree enable and disable work on (/, or --root DIR), opened once,
 * so that whoever owns the tree cannot turn root's writes elsewhere.
 *
 * Writing and removing: every path under the root is walked one
 * directory at a time with O_NOFOLLOW, never through a symlink, and, run
 * as root, each directory on the way (the root's too) must be owned by
 * root or by the tree's owner and writable by no one else.  Reading (the
 * unit files): as systemd reads them, symlinks followed but kept inside
 * the root (openat2 RESOLVE_IN_ROOT, or the same walk done here where
 * the kernel lacks it), regular files only, never blocking, bounded. */
#ifndef AFX_ROOTDIR_H
#define AFX_ROOTDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct afx_root {
    int fd;                 /* O_PATH of the root directory */
    uid_t owner;            /* its owner: trusted with what is inside it */
    bool check;             /* run as root: owners and modes are checked */
    bool host;              /* it is this host's / */
    char shown[PATH_MAX];   /* "" for /, else its canonical path, for messages (raw) */
};

/* Open path (NULL: /).  Run as root, refuses a tree that someone other
 * than root and its owner could swap for another directory: a symlink on
 * the way that such a user may change, a parent directory such a user
 * may write to (unless sticky).  Returns AFX_EXIT_OK, or after one error
 * line AFX_EXIT_USAGE (no such directory) or AFX_EXIT_FAIL; what names
 * the option in messages ("--root"). */
int afx_root_open(struct afx_root *r, const char *path, const char *what);
void afx_root_close(struct afx_root *r);

/* "ROOT/rel" into out, as it is named, for messages: escaped where it
 * is printed (afx_error does; afx_printable for standard output). */
const char *afx_root_path(const struct afx_root *r, const char *rel, char *out, size_t size);

/* What the operator should do about a failed write or open (errno
 * err) in the tree r: "run as root, ..." for EACCES and EPERM,
 * "... read-only ..." for EROFS, and so on.  One clause, for the end
 * of an error line. */
const char *afx_next_step(const struct afx_root *r, int err);

/* The directory rel ("etc/systemd/system/x.d") for writing: see above.
 * create: make the last component (mode 0755 whatever the umask) when
 * missing, and set *created.  Returns an O_RDONLY directory fd; -1 with
 * errno ENOENT, silently, when something is missing and not created;
 * otherwise -1 after one error line. */
int afx_root_dir(const struct afx_root *r, const char *rel, bool create, bool *created);

/* The regular file rel (symlinks followed inside the root), at most max
 * bytes: 0 and *text (NUL-terminated, malloc'd), *len, *st; -ENOENT
 * when missing, -EINVAL when not a regular file, -EFBIG when larger,
 * another -errno otherwise. */
int afx_root_read(const struct afx_root *r, const char *rel, size_t max, char **text, size_t *len,
                  struct stat *st);

/* The directory rel (symlinks followed inside the root) for reading its
 * entries: an O_RDONLY directory fd, or -1 with errno. */
int afx_root_opendir(const struct afx_root *r, const char *rel);

/* The regular file rel (symlinks followed inside the root) for reading,
 * without opening anything else (a FIFO, a device): an O_RDONLY fd, or
 * -1 with errno (EINVAL: not a regular file). */
int afx_root_open_file(const struct afx_root *r, const char *rel);

/* stat() of rel, symlinks followed inside the root.  0 or -errno. */
int afx_root_stat(const struct afx_root *r, const char *rel, struct stat *st);

/* The target of rel if it is a symlink (its directory resolved inside
 * the root): its length, or -1 with errno (EINVAL: not a symlink). */
ssize_t afx_root_readlink(const struct afx_root *r, const char *rel, char *buf, size_t size);

/* The regular file name in the directory dir, for reading, opened
 * without following a symlink and without opening anything else (a
 * FIFO, a device): an fd, or -1 with errno (ELOOP: a symlink, EINVAL:
 * not a regular file). */
int afx_open_entry(int dir, const char *name);

#endif
