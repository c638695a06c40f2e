#include "elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Program headers are read in both classes through these. */
static bool has_interp64(int fd, const Elf64_Ehdr *h)
{
    for (unsigned i = 0; i < h->e_phnum; i++) {
        Elf64_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(h->e_phoff + (Elf64_Off)i * h->e_phentsize)) != sizeof ph)
            return false;
        if (ph.p_type == PT_INTERP)
            return true;
    }
    return false;
}

static bool has_interp32(int fd, const Elf32_Ehdr *h)
{
    for (unsigned i = 0; i < h->e_phnum; i++) {
        Elf32_Phdr ph;
        if (pread(fd, &ph, sizeof ph, (off_t)(h->e_phoff + (Elf32_Off)i * h->e_phentsize)) != sizeof ph)
            return false;
        if (ph.p_type == PT_INTERP)
            return true;
    }
    return false;
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
        if (u.ident[EI_CLASS] == ELFCLASS64 && n >= (ssize_t)sizeof u.h64) {
            exe.elf_class = 64;
            interp = has_interp64(fd, &u.h64);
        } else if (u.ident[EI_CLASS] == ELFCLASS32) {
            exe.elf_class = 32;
            interp = has_interp32(fd, &u.h32);
        }
        if (exe.elf_class != 0)
            exe.kind = interp ? AFX_EXE_DYNAMIC : AFX_EXE_STATIC;
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
