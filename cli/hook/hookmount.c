#include "hookmount.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int afx_hook_clone(int fd, char *why, size_t size)
{
    int tree = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
    if (tree < 0) {
        snprintf(why, size, "open_tree: %s", strerror(errno));
        return -1;
    }
    struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
        snprintf(why, size, "mount_setattr (read-only): %s", strerror(errno));
        close(tree);
        return -1;
    }
    return tree;
}

/* name in dir, O_PATH, not followed if a link; with its type in *st. */
static int open_here(int dir, const char *name, struct stat *st)
{
    int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, st) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int afx_hook_target(int dir, const char *name, char *why, size_t size)
{
    struct stat st;
    int fd = open_here(dir, name, &st);
    if (fd < 0 && errno == ENOENT) {
        /* mknodat makes a file without opening it: nothing of the
         * tenant's is opened for writing, whatever appears there. */
        if (mknodat(dir, name, S_IFREG | 0644, 0) != 0 && errno != EEXIST) {
            snprintf(why, size, "cannot make %s: %s", name, strerror(errno));
            return -1;
        }
        fd = open_here(dir, name, &st);
    }
    if (fd < 0) {
        snprintf(why, size, "cannot open %s: %s", name, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, size, "%s is %s, not a regular file", name, S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
        close(fd);
        return -1;
    }
    return fd;
}

int afx_hook_target_dir(int dir, const char *name, char *why, size_t size)
{
    struct stat st;
    if (mkdirat(dir, name, 0755) != 0 && errno != EEXIST) {
        snprintf(why, size, "cannot make %s: %s", name, strerror(errno));
        return -1;
    }
    int fd = open_here(dir, name, &st);
    if (fd < 0) {
        snprintf(why, size, "cannot open %s: %s", name, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, size, "%s is %s, not a directory", name, S_ISLNK(st.st_mode) ? "a symbolic link" : "another kind of file");
        close(fd);
        return -1;
    }
    return fd;
}

bool afx_hook_enter(long pid, char *why, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/ns/mnt", pid);
    int ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNS) != 0) {
        snprintf(why, size, "cannot enter the mount namespace of process %ld: %s", pid, strerror(errno));
        if (ns >= 0)
            close(ns);
        return false;
    }
    close(ns);
    return true;
}

bool afx_hook_attach(int tree, int target, char *why, size_t size)
{
    if (syscall(SYS_move_mount, tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0) {
        snprintf(why, size, "move_mount: %s", strerror(errno));
        return false;
    }
    return true;
}
