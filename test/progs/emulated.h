/* Shared by the test suites: whether the test programs run under an
 * emulator (test/cross: arm64 under qemu-user, through binfmt_misc,
 * which runs every program they start emulated too).  What only the
 * emulator changes is skipped there, saying so, never passed. */
#ifndef AFX_TEST_EMULATED_H
#define AFX_TEST_EMULATED_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The machine an ELF file is built for (e_machine), or -1. */
static inline int afx_elf_machine(const char *path)
{
    unsigned char header[EI_NIDENT + 4];
    FILE *f = path != NULL ? fopen(path, "rb") : NULL;
    size_t n = f != NULL ? fread(header, 1, sizeof header, f) : 0;
    if (f != NULL)
        fclose(f);
    if (n != sizeof header || memcmp(header, ELFMAG, SELFMAG) != 0)
        return -1;
    uint16_t machine;
    memcpy(&machine, header + EI_NIDENT + 2, sizeof machine);
    return machine;
}

/* The host's shell is built for another machine than this program; an
 * x86-64 kernel runs i386 programs natively (test/cross: i386). */
static inline bool afx_emulated(void)
{
    static int known = -1;
    if (known < 0) {
        int host = afx_elf_machine("/bin/sh"), self = afx_elf_machine("/proc/self/exe");
        known = host >= 0 && self >= 0 && host != self && !(host == EM_X86_64 && self == EM_386);
    }
    return known;
}

#endif
