/* What an executable is, as far as LD_PRELOAD is concerned. */
#ifndef AFX_ELFINFO_H
#define AFX_ELFINFO_H

#include <stdbool.h>
#include <stddef.h>

enum afx_exe_kind {
    AFX_EXE_UNKNOWN,    /* unreadable, or not ELF (a script: its interpreter decides) */
    AFX_EXE_DYNAMIC,    /* has a program interpreter: ld.so will preload */
    AFX_EXE_STATIC,     /* no interpreter (static or static-pie): nothing is preloaded */
};

struct afx_exe {
    enum afx_exe_kind kind;
    int elf_class;      /* 32 or 64, 0 if not ELF */
    bool setid;         /* setuid or setgid bit: ld.so runs it in secure mode */
    bool musl;          /* dynamic, its interpreter musl's ld-musl-ARCH.so.1: musl
                         * preloads too, and a glibc library kills it (exit 127) */
};

/* Read path's ELF header and program headers (its interpreter's name
 * too), executing nothing. */
struct afx_exe afx_exe_examine(const char *path);

/* The program interpreter path named in path ("/lib64/ld-linux-x86-64.so.2").
 * False if it has none or cannot be read. */
bool afx_exe_interp(const char *path, char *out, size_t size);

#endif
