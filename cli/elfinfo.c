#include "elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The interpreter's name, at most this long (a path). */
#define INTERP_MAX 4096

/* Its name into name (empty if too long or unreadable: still dynamic). */
static void read_interp(int fd, unsigned long long offset, unsigned long long len, char *name, size_t size)
{
    name[0] = '\0';
    if (len == 0 || len >= size || pread(fd, name, (size_t)len, (off_t)offset) != (ssize_t)len)
        name[0] = '\0';
    else
        name[len] = '\0';
}

/* Program headers are read in both classes through these. */
static bool has_interp64(int fd, const Elf64_Ehdr *h, char *name, size_t size)
{
    for (unsigned i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(h->e_phoff + (Elf64_Off)i * h->e_phentsize)) != sizeof ph)
            return false;
        if (ph.p_type == PT_INTERP) {
            read_interp(fd, ph.p_offset, ph.p_filesz, name, size);
            return true;
        }
    }
    return false;
}

static bool has_interp32(int fd, const Elf32_Ehdr *h, char *name, size_t size)
{
    for (unsigned i = 0; i < h->e_phnum; i++) {
        Elf32_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(h->e_phoff + (Elf32_Off)i * h->e_phentsize)) != sizeof ph)
            return false;
        if (ph.p_type == PT_INTERP) {
            read_interp(fd, ph.p_offset, ph.p_filesz, name, size);
            return true;
        }
    }
    return false;
}

/* musl's loader is its libc: "/lib/ld-musl-x86_64.so.1". */
static bool musl_loader(const char *interp)
{
    const char *base = strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp;
    return strncmp(base, "ld-musl-", 8) == 0;
}

struct afx_exe afx_exe_examine(const char *path)
{
    struct afx_exe exe = { .kind = AFX_EXE_UNKNOWN };
    struct stat st;
    if (stat(path, &st) == 0)
        exe.setid = (st.st_mode & (S_ISUID | S_ISGID)) != 0;

    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return exe;
    union {
        unsigned char ident[EI_NIDENT];
        Elf64_Ehdr h64;
        Elf32_Ehdr h32;
    } u;
    ssize_t n = pread(fd, &u, sizeof u, 0);
    if (n >= (ssize_t)sizeof u.h32 && memcmp(u.ident, ELFMAG, SELFMAG) == 0) {
        bool interp = false;
        static char name[INTERP_MAX];
        name[0] = '\0';
        if (u.ident[EI_CLASS] == ELFCLASS64 && n >= (ssize_t)sizeof u.h64) {
            exe.elf_class = 64;
            interp = has_interp64(fd, &u.h64, name, sizeof name);
        } else if (u.ident[EI_CLASS] == ELFCLASS32) {
            exe.elf_class = 32;
            interp = has_interp32(fd, &u.h32, name, sizeof name);
        }
        if (exe.elf_class != 0)
            exe.kind = interp ? AFX_EXE_DYNAMIC : AFX_EXE_STATIC;
        exe.musl = interp && musl_loader(name);
    }
    close(fd);
    return exe;
}

bool afx_exe_interp(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool ok = false;
    ElfW(Ehdr) h;
    /* Only our own program is asked, and it is native: one class will do. */
    if (pread(fd, &h, sizeof h, 0) == sizeof h && memcmp(h.e_ident, ELFMAG, SELFMAG) == 0
        && h.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
        for (unsigned i = 0; i < h.e_phnum && !ok; i++) {
            ElfW(Phdr) ph;
            if (pread(fd, &ph, sizeof ph, (off_t)h.e_phoff + (off_t)i * h.e_phentsize) != sizeof ph)
                break;
            if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= size)
                continue;
            ok = pread(fd, out, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz;
            out[ph.p_filesz - 1] = '\0';
        }
    }
    close(fd);
    return ok;
}
