/* Which libc the library was loaded into.  The bug is glibc's, from
 * 2.34: on musl and on an older glibc the library loads (symvers.h) and
 * stands down, every interposer only forwarding. */
#ifndef AFX_LIBC_H
#define AFX_LIBC_H

#include <stdbool.h>

/* False on a libc where the library surely stands down (musl, a
 * layer on it that defines __libc_single_threaded, glibc before 2.32):
 * two loads of addresses bound at load, for the constructor every
 * process runs. */
bool afx_libc_maybe_served(void);

/* True on glibc 2.34 or later, where the library acts (and binds by
 * dlsym).  Asks glibc its version once, a lazily bound call: for the
 * first thread, not for every process's constructor. */
bool afx_libc_served(void);

/* "glibc 2.31", "a libc other than glibc (musl?)": for the line that
 * says why the library stood down. */
const char *afx_libc_name(void);

#endif
