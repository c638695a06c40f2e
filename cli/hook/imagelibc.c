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

static const char *machine_name(unsigned machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "S/390";
    case EM_RISCV: return "RISC-V";
    default: return NULL;
    }
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
    const char *name = machine_name(their_machine);
    if (name != NULL)
        snprintf(f->machine, sizeof f->machine, "%s%s", name, theirs[0] == ELFCLASS32 && their_machine == EM_X86_64 ? ", x32" : "");
    else
        snprintf(f->machine, sizeof f->machine, "ELF machine %u", their_machine);
    if (!f->same_machine)
        return;
    if (!afx_glibc_version(fd, f->version, sizeof f->version))
        f->version[0] = '\0';
    f->host_copy = host_libc >= 0 && fstat(fd, &a) == 0 && fstat(host_libc, &b) == 0 && a.st_size == b.st_size
                   && afx_same_bytes(fd, host_libc, a.st_size);
}

void afx_image_facts_read(int root, int lib, int host_libc, struct afx_image_facts *f)
{
    char path[96];
    *f = (struct afx_image_facts){ .host = AFX_GLIBC_UNKNOWN };
    for (const char *const *dir = afx_image_libc_dirs; *dir != NULL && !f->libc; dir++) {
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
    if (!f->libc) {
        int at = afx_image_path(root, "/lib/" MUSL, 0);
        f->musl = at >= 0;
        if (at >= 0)
            close(at);
    }
}
