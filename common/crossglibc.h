/* Debian's cross glibc for this architecture (libc6-amd64-cross,
 * libc6-i386-cross, libc6-arm64-cross): on Debian 12, bookworm's glibc
 * 2.36-8 as shipped before the fix, installed beside the system's.  The
 * tests prove the fix on it where it is installed, and the demo shows the
 * bug on it where no other affected glibc is named. */
#ifndef AFX_CROSSGLIBC_H
#define AFX_CROSSGLIBC_H

#if defined(__x86_64__) && !defined(__ILP32__)
#define AFX_CROSS_GLIBC "/usr/x86_64-linux-gnu/lib"
#define AFX_CROSS_PACKAGE "libc6-amd64-cross"
#elif defined(__i386__)
#define AFX_CROSS_GLIBC "/usr/i686-linux-gnu/lib"
#define AFX_CROSS_PACKAGE "libc6-i386-cross"
#elif defined(__aarch64__)
#define AFX_CROSS_GLIBC "/usr/aarch64-linux-gnu/lib"
#define AFX_CROSS_PACKAGE "libc6-arm64-cross"
#endif

#endif
