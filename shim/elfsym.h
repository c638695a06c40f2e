/* Which loaded object defines a symbol: read from the objects' dynamic
 * symbol tables in memory, the way the dynamic linker looks it up, so
 * that an executable's canonical PLT entry (an undefined symbol with a
 * value, which dlsym returns) is not taken for a definition. */
#ifndef AFX_ELFSYM_H
#define AFX_ELFSYM_H

#include <link.h>
#include <stdbool.h>

/* True if the object loaded at BASE with dynamic section DYN defines
 * NAME as a function (undefined and zero-valued entries do not count).
 * [lo, hi) is the object's mapped range, to tell absolute from relative
 * addresses in DYN. */
bool afx_elf_defines(const ElfW(Dyn) *dyn, ElfW(Addr) base, ElfW(Addr) lo, ElfW(Addr) hi,
                     const char *name);

/* The first object in load order that defines NAME: its file name ("" for
 * the executable) and whether it is the object containing ADDR.  False if
 * no object defines it. */
bool afx_first_definer(const char *name, const void *addr, const char **file, bool *contains);

/* What dlsym(RTLD_NEXT, NAME) (VERSION NULL) or dlvsym(RTLD_NEXT, NAME,
 * VERSION) would return to the object containing SELF, for a libc
 * whose dlsym cannot be called (before glibc 2.34 it is libdl's, loaded
 * or not): the first definition in the objects loaded after it, of
 * the default version or of VERSION.  NULL if none.
 *
 * Unlike dlsym, it searches every loaded object, those a program opened
 * with RTLD_LOCAL too: whether an object is in the global scope is the
 * loader's private data (glibc's l_global), and no public call tells
 * without changing it (dlopen with RTLD_NOLOAD | RTLD_GLOBAL promotes
 * the object).  So a local plugin that defines one of the names itself
 * (a wrapper of pthread_create) is found where dlsym would pass it by,
 * if it comes before the real definer in load order; the libc's, and
 * libpthread's where the program links it, come before any object it
 * opens. */
void *afx_elf_next(const char *name, const char *version, const void *self);

#endif
