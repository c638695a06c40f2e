/* Valgrind's DRD does not model C11 atomics: tell it that a variable is
 * one (AFX_ATOMIC), and which store publishes what was written before
 * it (AFX_PUBLISHED, in the writer) to the load that sees it (AFX_SEEN,
 * in the reader).  Client requests, no-ops outside valgrind; without
 * valgrind's headers, nothing. */
#ifndef AFX_ANNOTATE_H
#define AFX_ANNOTATE_H

#if defined(__has_include)
#if __has_include(<valgrind/drd.h>)
#include <valgrind/drd.h>
#define AFX_ATOMIC(var) DRD_IGNORE_VAR(var)
#define AFX_PUBLISHED(var) ANNOTATE_HAPPENS_BEFORE(&(var))
#define AFX_SEEN(var) ANNOTATE_HAPPENS_AFTER(&(var))
#endif
#endif
#ifndef AFX_ATOMIC
#define AFX_ATOMIC(var) ((void)0)
#define AFX_PUBLISHED(var) ((void)0)
#define AFX_SEEN(var) ((void)0)
#endif

#endif
