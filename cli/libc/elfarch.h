/* Which machine an ELF file is for, read from its header alone, and
 * its name as arenafix says it ("x86_64", "aarch64"): the one table of
 * ELF machines, for an image's libc and for the library itself. */
#ifndef AFX_ELFARCH_H
#define AFX_ELFARCH_H

#include <stdbool.h>
#include <stddef.h>

struct afx_elf_id {
    unsigned char elf_class;    /* ELFCLASS32 or ELFCLASS64 */
    unsigned char data;         /* ELFDATA2LSB or ELFDATA2MSB */
    unsigned machine;           /* e_machine (EM_X86_64) */
    unsigned type;              /* e_type (ET_DYN) */
};

/* fd's ELF header (read with pread, bounded); false if it holds none. */
bool afx_elf_id_read(int fd, struct afx_elf_id *id);

/* Of one ABI: class, byte order and machine alike. */
bool afx_elf_same_abi(const struct afx_elf_id *a, const struct afx_elf_id *b);

/* id's machine as a name ("x86_64", "x32", "i386", "aarch64"), or
 * "ELF machine N" for one not in the table. */
void afx_elf_arch_name(const struct afx_elf_id *id, char *out, size_t size);

#endif
