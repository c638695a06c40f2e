/* Included first in every file of the library (shim.mk).  errno is a call
 * of __errno_location, which every interposer makes to keep the caller's
 * errno: bound at load (through the GOT, not a lazily bound PLT entry),
 * so that the first call, which may come from a signal handler on a
 * small alternate stack, saves no registers on it to bind the symbol. */
#ifndef AFX_ERRNOBIND_H
#define AFX_ERRNOBIND_H

/* Before any header reads it: a distribution's build flags
 * (-D_FORTIFY_SOURCE=2, dpkg-buildflags' and Fedora's) turn snprintf into
 * glibc's __snprintf_chk, which musl lacks, and the library must load on
 * musl and stand down there (libc.c).  Its every write is bounded by
 * hand; check-exports fails on a _chk reference. */
#undef _FORTIFY_SOURCE

#include <errno.h>

/* GCC's attribute; clang has none (its build binds it lazily, as any
 * other call). */
#if defined(__has_attribute)
#if __has_attribute(noplt)
extern int *__errno_location(void) __attribute__((noplt));
#endif
#endif

#endif
