/* The one decision: given what is known about the process, what does
 * arenafix do, and how does it say so.  Pure, unit-tested. */
#ifndef AFX_POLICY_H
#define AFX_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "arenarule.h"
#include "config.h"
#include "usersettings.h"


struct afx_facts {
    struct afx_config cfg;
    bool secure;                    /* AT_SECURE: ARENAFIX_* ignored */
    struct afx_user_settings user;  /* what glibc applied at startup */
    int program_arena_max;          /* mallopt(M_ARENA_MAX, n > 0) by the program, 0: none */
    int program_arena_test;         /* mallopt(M_ARENA_TEST, n > 0), 0: none */
    long highest_arena_test;        /* highest arena_test in force so far, 0: the current */
    const char *foreign_malloc;     /* object defining malloc, if not libc */
    long arenas;                    /* arenas in existence, -1: not counted */
    long online;                    /* online CPUs, the fixed glibc's way */
    const char *online_source;      /* where that count came from */
    long thread_cpus;               /* CPUs the deciding thread may use, -1: unknown */
    bool narrowing_seen;            /* a thread narrowed its mask through us */
};

struct afx_decision {
    bool set_arena_max;
    long arena_max;
    bool touch;                     /* trampoline and widening */
    long arena_test;                /* glibc's, as the program left it */
};

/* glibc's arena_test for these facts: the program's mallopt, else the
 * user's setting, else glibc's default. */
long afx_arena_test(const struct afx_facts *f);

/* Decide, and write the explanation (no prefix, no newline) into
 * why[0..size).  Secure processes are expected to have cfg at defaults. */
struct afx_decision afx_decide(const struct afx_facts *f, char *why, size_t size);

#endif
