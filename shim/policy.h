/* The one decision: given what is known about the process, what does
 * arenafix do, and how does it say so.  Pure, unit-tested. */
#ifndef AFX_POLICY_H
#define AFX_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* Arenas per CPU in glibc's default limit (NARENAS_FROM_NCORES). */
#define AFX_ARENAS_PER_CPU (sizeof(long) == 4 ? 2L : 8L)

struct afx_facts {
    struct afx_config cfg;
    bool secure;                    /* AT_SECURE: ARENAFIX_* ignored */
    bool tunable_set;               /* glibc.malloc.arena_max in GLIBC_TUNABLES */
    unsigned long tunable_value;
    bool env_set;                   /* MALLOC_ARENA_MAX */
    unsigned long env_value;
    bool program_mallopt;           /* mallopt(M_ARENA_MAX) before activation */
    int program_mallopt_value;
    const char *foreign_malloc;     /* object defining malloc, if not libc */
    long threads;                   /* threads alive at activation, -1 unknown */
    long online;                    /* online CPUs, the fixed glibc's way */
    const char *online_source;      /* where that count came from */
};

struct afx_decision {
    bool set_arena_max;
    long arena_max;
    bool touch;                     /* trampoline and pre-pin malloc */
};

/* Decide, and write the explanation (no prefix, no newline) into
 * why[0..size).  Secure processes are expected to have cfg at defaults. */
struct afx_decision afx_decide(const struct afx_facts *f, char *why, size_t size);

#endif
