/* The libc of a root (an unpacked image, a container's root): where it
 * is, which architecture it is for, which glibc version.  The one
 * finder, for probe --root and the OCI hook alike.  The root is its
 * owner's: every path is resolved inside it (files/rootdir.h), only
 * regular files are opened, reads are bounded, nothing is run. */
#ifndef AFX_ROOTLIBC_H
#define AFX_ROOTLIBC_H

#include <stdbool.h>

#include "elfarch.h"
#include "files/rootdir.h"

enum afx_root_libc_kind { AFX_ROOT_NO_LIBC, AFX_ROOT_GLIBC, AFX_ROOT_MUSL };

struct afx_root_libc {
    enum afx_root_libc_kind kind;
    char path[96];          /* inside the root: "/usr/lib/x86_64-linux-gnu/libc.so.6", "/lib/ld-musl-x86_64.so.1" */
    char dir[64];           /* its directory: "/usr/lib/x86_64-linux-gnu" */
    char unreadable[160];   /* why it could not be read (not a regular file...), "" if it was */
    bool elf;               /* an ELF file: id and arch are its */
    struct afx_elf_id id;
    char arch[24];          /* id's machine named ("aarch64"), "" if not ELF */
    char version[32];       /* a glibc's banner's version, "" if none */
};

/* The directories of libc.so.6 of the architecture this is built for,
 * as distributions lay them out (Debian's multiarch, then Fedora's):
 * "/usr/lib/x86_64-linux-gnu", ... NULL. */
extern const char *const afx_libc_dirs[];

/* The root's libc: a glibc's libc.so.6 in this architecture's
 * directories, else in another's (Debian's multiarch directories of
 * each, then /usr/lib64, /lib64, /usr/lib and /lib), else musl's
 * loader /lib/ld-musl-*.so.1 (this architecture's first).  One that is
 * there but cannot be read (a FIFO) is found, unreadable says why.
 * Returns its fd, open for reading (the caller closes it), or -1 when
 * none was found or it is unreadable. */
int afx_root_libc_find(const struct afx_root *r, struct afx_root_libc *l);

#endif
