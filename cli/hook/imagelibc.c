#include "imagelibc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libc/elfarch.h"
#include "libc/rootlibc.h"
#include "readfile.h"

static long openat2_in_root(int dir, const char *path, int flags)
{
    struct open_how how = {
        .flags = (unsigned long long)flags,
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
    };
    path += strspn(path, "/");
    return syscall(SYS_openat2, dir, *path ? path : ".", &how, sizeof how);
}

int afx_image_root_open(long pid, const char *rootfs, char *why, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/root", pid);
    int top = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (top < 0) {
        snprintf(why, size, "cannot open the root of its process %ld: %s", pid, strerror(errno));
        return -1;
    }
    /* rootfs is the runtime's path, not the tenant's: resolved from the
     * root its process has before pivot_root. */
    int root = (int)openat2_in_root(top, rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        snprintf(why, size, "cannot open its root file system %s: %s", rootfs, strerror(errno));
    close(top);
    return root;
}

int afx_image_path(int root, const char *path, int flags)
{
    return (int)openat2_in_root(root, path, O_PATH | O_CLOEXEC | flags);
}

int afx_image_reopen(int fd)
{
    struct stat before, after;
    char self[64];
    if (fstat(fd, &before) != 0)
        return -1;
    if (!S_ISREG(before.st_mode)) {
        errno = EINVAL;
        return -1;
    }
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    int rd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (rd < 0)
        return -1;
    if (fstat(rd, &after) != 0 || after.st_dev != before.st_dev || after.st_ino != before.st_ino) {
        close(rd);
        errno = EINVAL;
        return -1;
    }
    return rd;
}

/* The library's ELF header and its libc's compared, the version read
 * and the libc compared with the host's. */
static void judge_libc(const struct afx_root_libc *l, int fd, int lib, int host_libc, struct afx_image_facts *f)
{
    struct afx_elf_id mine;
    struct stat a, b;
    f->elf = l->elf && l->id.type == ET_DYN;
    if (!f->elf)
        return;
    if (!afx_elf_id_read(lib, &mine) || mine.type != ET_DYN) {
        snprintf(f->unreadable, sizeof f->unreadable, "the library itself is no ELF shared object");
        return;
    }
    f->same_machine = afx_elf_same_abi(&mine, &l->id);
    snprintf(f->machine, sizeof f->machine, "%s", l->arch);
    afx_elf_arch_name(&mine, f->lib_machine, sizeof f->lib_machine);
    if (!f->same_machine)
        return;
    snprintf(f->version, sizeof f->version, "%s", l->version);
    f->host_copy = host_libc >= 0 && fstat(fd, &a) == 0 && fstat(host_libc, &b) == 0 && a.st_size == b.st_size
                   && afx_same_bytes(fd, host_libc, a.st_size);
}

/* Each ABI's glibc loader, at the path its programs name (PT_INTERP):
 * a program of another ABI than the library's reads /etc/ld.so.preload
 * too, and its ld.so prints "wrong ELF class" for the library there. */
static const char *const loaders[] = {
    "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux.so.2", "/libx32/ld-linux-x32.so.2", "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux-armhf.so.3", "/lib/ld-linux.so.3", NULL,
};

/* The first loader in the image of another class, byte order or
 * machine than the library's. */
static void find_other_abi(const struct afx_root *r, int lib, struct afx_image_facts *f)
{
    struct afx_elf_id mine, theirs;
    if (!afx_elf_id_read(lib, &mine))
        return;
    for (const char *const *path = loaders; *path != NULL && f->other_abi[0] == '\0'; path++) {
        int fd = afx_root_open_file(r, *path);
        if (fd >= 0 && afx_elf_id_read(fd, &theirs) && theirs.type == ET_DYN && !afx_elf_same_abi(&mine, &theirs)) {
            afx_elf_arch_name(&theirs, f->other_abi, sizeof f->other_abi);
            snprintf(f->other_loader, sizeof f->other_loader, "%s", *path);
        }
        if (fd >= 0)
            close(fd);
    }
}

void afx_image_facts_read(int root, int lib, int host_libc, struct afx_image_facts *f)
{
    const struct afx_root r = { .fd = root };
    struct afx_root_libc l;
    *f = (struct afx_image_facts){ .host = AFX_GLIBC_UNKNOWN };
    int fd = afx_root_libc_find(&r, &l);
    f->libc = l.kind == AFX_ROOT_GLIBC;
    f->musl = l.kind == AFX_ROOT_MUSL;
    snprintf(f->libc_dir, sizeof f->libc_dir, "%s", l.dir);
    if (f->musl)
        snprintf(f->machine, sizeof f->machine, "%s", l.arch);
    if (f->libc && l.unreadable[0] != '\0')
        snprintf(f->unreadable, sizeof f->unreadable, "%s", l.unreadable);
    else if (f->libc)
        judge_libc(&l, fd, lib, host_libc, f);
    if (fd >= 0)
        close(fd);
    if (f->libc && f->same_machine)
        find_other_abi(&r, lib, f);
}
