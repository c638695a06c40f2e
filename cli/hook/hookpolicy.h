/* Whether the OCI hook gives a container the library, from what it
 * found in the image (imagelibc.h), and the /etc/ld.so.preload it
 * mounts there.  Pure. */
#ifndef AFX_HOOKPOLICY_H
#define AFX_HOOKPOLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "libc/glibcversion.h"

/* What the image holds at the libc paths of this architecture (else
 * of another), and the loaders of other ABIs it holds beside. */
struct afx_image_facts {
    bool libc;                  /* a libc.so.6 that is a regular file */
    char libc_dir[64];          /* its directory in the image ("/usr/lib/x86_64-linux-gnu") */
    bool musl;                  /* no glibc, but musl's loader (machine: its architecture) */
    bool elf;                   /* the libc is an ELF shared object */
    bool same_machine;          /* of the library's class, byte order and machine */
    char machine[24];           /* the machine it is for, as probe --root names it ("aarch64"), "" unknown */
    char lib_machine[24];       /* the library's ("x86_64") */
    char version[32];           /* its banner's version, "" if none */
    bool host_copy;             /* the host's own libc.so.6, byte for byte */
    enum afx_glibc_state host;  /* the host's glibc, probed (for host_copy only) */
    char other_abi[24];         /* a loader of another ABI in the image ("i386"), "" if none */
    char other_loader[40];      /* its path ("/lib/ld-linux.so.2") */
    char unreadable[160];       /* why the libc could not be read, "" if it was */
};

/* True if the library goes into the image: a glibc of the library's
 * architecture, at least 2.34 (the library's symbol versions), that may
 * be affected: 2.34 to 2.38 (a copy of the host's glibc: if the host's
 * probe found it affected), and no program of another ABI would read
 * the ld.so.preload that lists it.  why says what was decided, one line. */
bool afx_hook_decide(const struct afx_image_facts *f, char *why, size_t size);

/* The ld.so.preload to mount: entry on a line of its own, then the
 * image's own file (old, len bytes, NULL if it has none) unchanged.
 * NULL if it already lists entry (then nothing is needed) or on
 * failure (errno ENOMEM); malloc'd, *out_len its length. */
char *afx_hook_preload_merge(const char *old, size_t len, const char *entry, size_t *out_len, bool *listed);

#endif
