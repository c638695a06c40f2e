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

#include "proc/mappedfile.h"
#include "readfile.h"

#if defined(__x86_64__)
#define TRIPLET "x86_64-linux-gnu"
#define LIBDIR64 "lib64"
#define MUSL "ld-musl-x86_64.so.1"
#elif defined(__aarch64__)
#define TRIPLET "aarch64-linux-gnu"
#define LIBDIR64 "lib64"
#define MUSL "ld-musl-aarch64.so.1"
#elif defined(__i386__)
#define TRIPLET "i386-linux-gnu"
#define LIBDIR64 "lib"
#define MUSL "ld-musl-i386.so.1"
#else
#error "the OCI hook knows no libc directories for this architecture"
#endif

/* Debian's and Ubuntu's multiarch directories first, then Fedora's and
 * RHEL's. */
const char *const afx_image_libc_dirs[] = {
    "/usr/lib/" TRIPLET, "/lib/" TRIPLET, "/usr/" LIBDIR64, "/" LIBDIR64, NULL,
};

/* Past its ELF header and a few program headers: the banner is found
 * by afx_glibc_version, which reads on. */
#define HEADER 64

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

/* An ELF machine as arenafix probe --root names it: "x86_64", "i386",
 * "aarch64" (class ELFCLASS32 or ELFCLASS64). */
static void arch_name(unsigned char class, unsigned machine, char *out, size_t size)
{
    bool wide = class == ELFCLASS64;
    const char *name = machine == EM_X86_64    ? (wide ? "x86_64" : "x32")
                       : machine == EM_386     ? "i386"
                       : machine == EM_AARCH64 ? "aarch64"
                       : machine == EM_ARM     ? "arm"
                       : machine == EM_PPC64   ? "ppc64"
                       : machine == EM_S390    ? "s390x"
                       : machine == EM_RISCV   ? (wide ? "riscv64" : "riscv32")
                                               : NULL;
    if (name != NULL)
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "ELF machine %u", machine);
}

/* Class, byte order and machine of an ELF shared object; false if fd
 * holds none. */
static bool elf_kind(int fd, unsigned char ident[3], unsigned *machine)
{
    unsigned char h[HEADER];
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0
        || (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
        || (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
        return false;
    bool lsb = h[EI_DATA] == ELFDATA2LSB;
    /* e_type at 16 and e_machine at 18, in either class. */
    unsigned type = lsb ? h[16] | h[17] << 8 : h[16] << 8 | h[17];
    *machine = lsb ? h[18] | h[19] << 8 : h[18] << 8 | h[19];
    ident[0] = h[EI_CLASS];
    ident[1] = h[EI_DATA];
    ident[2] = h[EI_OSABI];
    return type == ET_DYN;
}

static void judge_libc(int fd, int lib, int host_libc, struct afx_image_facts *f)
{
    unsigned char mine[3], theirs[3];
    unsigned my_machine, their_machine;
    struct stat a, b;
    f->elf = elf_kind(fd, theirs, &their_machine);
    if (!f->elf)
        return;
    if (!elf_kind(lib, mine, &my_machine)) {
        snprintf(f->unreadable, sizeof f->unreadable, "the library itself is no ELF shared object");
        return;
    }
    f->same_machine = mine[0] == theirs[0] && mine[1] == theirs[1] && my_machine == their_machine;
    arch_name(theirs[0], their_machine, f->machine, sizeof f->machine);
    arch_name(mine[0], my_machine, f->lib_machine, sizeof f->lib_machine);
    if (!f->same_machine)
        return;
    if (!afx_glibc_version(fd, f->version, sizeof f->version))
        f->version[0] = '\0';
    f->host_copy = host_libc >= 0 && fstat(fd, &a) == 0 && fstat(host_libc, &b) == 0 && a.st_size == b.st_size
                   && afx_same_bytes(fd, host_libc, a.st_size);
}

/* Where other architectures keep libc.so.6 (Debian's multiarch, then
 * the 32-bit lib of Fedora and RHEL): an image with none of its own
 * but one of these is named by its architecture, not as glibc-less. */
static const char *const foreign_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
    "/usr/lib/i386-linux-gnu", "/lib/i386-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/lib/arm-linux-gnueabihf",
    "/usr/lib/powerpc64le-linux-gnu", "/lib/powerpc64le-linux-gnu", "/usr/lib/s390x-linux-gnu", "/lib/s390x-linux-gnu",
    "/usr/lib/riscv64-linux-gnu", "/lib/riscv64-linux-gnu", "/usr/lib", "/lib", NULL,
};

/* Each ABI's glibc loader, at the path its programs name (PT_INTERP):
 * a program of another ABI than the library's reads /etc/ld.so.preload
 * too, and its ld.so prints "wrong ELF class" for the library there. */
static const char *const loaders[] = {
    "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux.so.2", "/libx32/ld-linux-x32.so.2", "/lib/ld-linux-aarch64.so.1",
    "/lib/ld-linux-armhf.so.3", "/lib/ld-linux.so.3", NULL,
};

static bool own_dir(const char *dir)
{
    for (const char *const *d = afx_image_libc_dirs; *d != NULL; d++)
        if (strcmp(*d, dir) == 0)
            return true;
    return false;
}

/* The first libc.so.6 in dirs (those of the library's architecture, or
 * the others: own false), judged into f. */
static void find_libc(int root, const char *const *dirs, bool own, int lib, int host_libc, struct afx_image_facts *f)
{
    char path[96];
    for (const char *const *dir = dirs; *dir != NULL && !f->libc; dir++) {
        if (!own && own_dir(*dir))
            continue;
        snprintf(path, sizeof path, "%s/libc.so.6", *dir);
        int at = afx_image_path(root, path, 0);
        if (at < 0)
            continue;
        snprintf(f->libc_dir, sizeof f->libc_dir, "%s", *dir);
        f->libc = true;
        int fd = afx_image_reopen(at);
        if (fd < 0)
            snprintf(f->unreadable, sizeof f->unreadable, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
        else {
            judge_libc(fd, lib, host_libc, f);
            close(fd);
        }
        close(at);
    }
}

/* The first loader in the image of another class, byte order or
 * machine than the library's. */
static void find_other_abi(int root, int lib, struct afx_image_facts *f)
{
    unsigned char mine[3], theirs[3];
    unsigned my_machine, their_machine;
    if (!elf_kind(lib, mine, &my_machine))
        return;
    for (const char *const *path = loaders; *path != NULL && f->other_abi[0] == '\0'; path++) {
        int at = afx_image_path(root, *path, 0);
        int fd = at >= 0 ? afx_image_reopen(at) : -1;
        if (fd >= 0 && elf_kind(fd, theirs, &their_machine)
            && (theirs[0] != mine[0] || theirs[1] != mine[1] || their_machine != my_machine)) {
            arch_name(theirs[0], their_machine, f->other_abi, sizeof f->other_abi);
            snprintf(f->other_loader, sizeof f->other_loader, "%s", *path);
        }
        if (fd >= 0)
            close(fd);
        if (at >= 0)
            close(at);
    }
}

void afx_image_facts_read(int root, int lib, int host_libc, struct afx_image_facts *f)
{
    *f = (struct afx_image_facts){ .host = AFX_GLIBC_UNKNOWN };
    find_libc(root, afx_image_libc_dirs, true, lib, host_libc, f);
    if (!f->libc)
        find_libc(root, foreign_dirs, false, lib, host_libc, f);
    if (f->libc && f->same_machine)
        find_other_abi(root, lib, f);
    if (!f->libc) {
        int at = afx_image_path(root, "/lib/" MUSL, 0);
        f->musl = at >= 0;
        if (at >= 0)
            close(at);
    }
}
