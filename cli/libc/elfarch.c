#include "elfarch.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool afx_elf_id_read(int fd, struct afx_elf_id *id)
{
    unsigned char h[EI_NIDENT + 4];
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0
        || (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
        || (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
        return false;
    bool lsb = h[EI_DATA] == ELFDATA2LSB;
    /* e_type at 16 and e_machine at 18, in either class. */
    id->elf_class = h[EI_CLASS];
    id->data = h[EI_DATA];
    id->type = lsb ? (unsigned)(h[16] | h[17] << 8) : (unsigned)(h[16] << 8 | h[17]);
    id->machine = lsb ? (unsigned)(h[18] | h[19] << 8) : (unsigned)(h[18] << 8 | h[19]);
    return true;
}

bool afx_elf_same_abi(const struct afx_elf_id *a, const struct afx_elf_id *b)
{
    return a->elf_class == b->elf_class && a->data == b->data && a->machine == b->machine;
}

void afx_elf_arch_name(const struct afx_elf_id *id, char *out, size_t size)
{
    bool wide = id->elf_class == ELFCLASS64;
    unsigned m = id->machine;
    const char *name = m == EM_X86_64    ? (wide ? "x86_64" : "x32")
                       : m == EM_386     ? "i386"
                       : m == EM_AARCH64 ? "aarch64"
                       : m == EM_ARM     ? "arm"
                       : m == EM_PPC64   ? "ppc64"
                       : m == EM_S390    ? "s390x"
                       : m == EM_RISCV   ? (wide ? "riscv64" : "riscv32")
                                         : NULL;
    if (name != NULL)
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "ELF machine %u", m);
}
