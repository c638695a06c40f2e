/* Shared by the tests and the benchmark: the dynamic loader of this
 * build's architecture, by the name it has in a glibc's directory (an
 * affected glibc is run as DIR/AFX_LOADER --library-path DIR PROG) and
 * where Debian installs the system's. */
#ifndef AFX_LOADER_H
#define AFX_LOADER_H

#if defined(__x86_64__) && !defined(__ILP32__)
#define AFX_LOADER "ld-linux-x86-64.so.2"
#define AFX_SYSTEM_LOADER "/lib64/ld-linux-x86-64.so.2"
#elif defined(__i386__)
#define AFX_LOADER "ld-linux.so.2"
#define AFX_SYSTEM_LOADER "/lib/ld-linux.so.2"
#elif defined(__aarch64__)
#define AFX_LOADER "ld-linux-aarch64.so.1"
#define AFX_SYSTEM_LOADER "/lib/ld-linux-aarch64.so.1"
#else
#error "the loader of this architecture is not known: add it here"
#endif

#endif
