/* The settings a process started with, from /proc/PID/environ and
 * /proc/PID/auxv, read as glibc and libarenafix read them.  Pure. */
#ifndef AFX_PROCENV_H
#define AFX_PROCENV_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

struct afx_env_facts {
    bool secure;                /* AT_SECURE: both ignore the environment */
    bool user_limit;            /* glibc applied an arena_max setting */
    struct afx_config arenafix; /* what libarenafix read (defaults if secure) */
    bool preload_set;           /* LD_PRELOAD is in it (the first, as getenv finds it) */
    bool preload_long;          /* and longer than preload holds: not kept */
    char preload[1024];         /* its value, raw: quote it to print it */
};

/* The AT_SECURE entry of an auxiliary vector (len bytes of native
 * words, pairs of type and value).  False if absent. */
bool afx_auxv_secure(const void *auxv, size_t len);

/* From the environment block: "NAME=value" entries, each ended by a
 * NUL (the last may not be), len bytes.  secure as afx_auxv_secure
 * says.  False only when out of memory. */
bool afx_environ_facts(const char *env, size_t len, bool secure, struct afx_env_facts *f);

#endif
