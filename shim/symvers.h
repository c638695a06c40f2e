/* Included first in every file of the library (shim.mk), after
 * errnobind.h.  The library loads wherever it may land (an admission
 * webhook or an operator's LD_PRELOAD reaches every image): on musl, on
 * a glibc before 2.34, and stands down there (libc.c).  So it needs no
 * symbol version newer than the oldest glibc its architecture has
 * (GLIBC_2.2.5, 2.0, 2.17) but for getauxval, malloc_info and
 * pthread_getattr_default_np (2.16, 2.10, 2.18: still older than any
 * distribution in support), and every symbol musl or an older glibc's
 * libc.so.6 lacks is weak: looked up only where the library does not
 * stand down.
 *
 * glibc 2.34 moved libpthread's and libdl's functions into libc and
 * kept each old version there as a compatibility symbol of the same
 * function: binding the old version changes nothing on an affected
 * glibc.  __libc_single_threaded (2.32) exists in no older version: its
 * reference is weak, and so is its version (the linker marks a version
 * whose every reference is weak), which an older glibc's loader lets
 * pass. */
#ifndef AFX_SYMVERS_H
#define AFX_SYMVERS_H

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/single_threaded.h>

#if defined(__x86_64__)
#define AFX_V_BASE "GLIBC_2.2.5"
#define AFX_V_DLVSYM "GLIBC_2.2.5"
#elif defined(__i386__)
#define AFX_V_BASE "GLIBC_2.0"
#define AFX_V_DLVSYM "GLIBC_2.1"
#elif defined(__aarch64__)
#define AFX_V_BASE "GLIBC_2.17"
#define AFX_V_DLVSYM "GLIBC_2.17"
#endif

#ifdef AFX_V_BASE
#define AFX_OLD(name, version) __asm__(".symver " #name "," #name "@" version);
#else
#define AFX_OLD(name, version)
#endif

#define AFX_WEAK(name) extern __typeof__(name) name __attribute__((weak));

AFX_WEAK(__libc_single_threaded)
AFX_WEAK(gnu_get_libc_version)
AFX_WEAK(malloc_info)
AFX_WEAK(dlsym)
AFX_WEAK(dlvsym)
AFX_WEAK(pthread_key_create)
AFX_WEAK(pthread_getspecific)
AFX_WEAK(pthread_setspecific)
AFX_WEAK(pthread_once)
AFX_WEAK(pthread_sigmask)
AFX_WEAK(pthread_getattr_default_np)
AFX_WEAK(pthread_attr_getaffinity_np)

AFX_OLD(dlsym, AFX_V_BASE)
AFX_OLD(dlvsym, AFX_V_DLVSYM)
AFX_OLD(pthread_key_create, AFX_V_BASE)
AFX_OLD(pthread_getspecific, AFX_V_BASE)
AFX_OLD(pthread_setspecific, AFX_V_BASE)
AFX_OLD(pthread_once, AFX_V_BASE)
AFX_OLD(pthread_sigmask, AFX_V_BASE)
/* pthread_getattr_default_np (2.18) is left unversioned after the link
 * (shim.mk), as __libc_single_threaded is: glibc 2.17 (RHEL 7's) then
 * loads the library too.  Touch mode alone calls it, on 2.34+. */
#if defined(__i386__)
/* 2.28's fcntl reads F_GETLK64's argument rightly; F_SETFL, the
 * library's one use, is the same in the first. */
AFX_OLD(fcntl, "GLIBC_2.0")
#endif
#if defined(__aarch64__)
AFX_OLD(pthread_attr_getaffinity_np, "GLIBC_2.17")
#else
/* GLIBC_2.3.3's takes no size. */
AFX_OLD(pthread_attr_getaffinity_np, "GLIBC_2.3.4")
#endif

/* Whether the process is single-threaded, as glibc 2.32+ says; where
 * it cannot say (musl, an older glibc), not known to be. */
static inline int afx_single_threaded(void)
{
    return &__libc_single_threaded != 0 && __libc_single_threaded;
}

#endif
