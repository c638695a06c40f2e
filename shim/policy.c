#include "policy.h"

#include <stdio.h>

static const struct afx_decision nothing;

struct afx_decision afx_decide(const struct afx_facts *f, char *why, size_t size)
{
    struct afx_decision d = nothing;
    enum afx_mode mode = f->cfg.mode;

    /* The user's own choices first, in glibc's precedence (the tunable
     * overrides the older variable).  In a secure process glibc ignores
     * both, so they are no choice that applies. */
    if (mode == AFX_MODE_OFF) {
        snprintf(why, size, "mode off: nothing changed");
        return d;
    }
    if (!f->secure && f->tunable_set) {
        snprintf(why, size, "standing down: GLIBC_TUNABLES sets glibc.malloc.arena_max=%lu",
                 f->tunable_value);
        return d;
    }
    if (!f->secure && f->env_set) {
        snprintf(why, size, "standing down: MALLOC_ARENA_MAX=%lu is set", f->env_value);
        return d;
    }
    if (f->program_mallopt) {
        snprintf(why, size, "standing down: the program called mallopt(M_ARENA_MAX, %d)",
                 f->program_mallopt_value);
        return d;
    }
    if (f->foreign_malloc != NULL) {
        snprintf(why, size, "standing down: malloc is not glibc's (it comes from %s)",
                 f->foreign_malloc);
        return d;
    }
    if (f->threads > 1) {
        snprintf(why, size,
                 "standing down: %ld threads were running before arenafix was "
                 "activated; glibc may already have fixed its arena limit",
                 f->threads);
        return d;
    }

    d.touch = mode == AFX_MODE_TOUCH || mode == AFX_MODE_BOTH;
    if (mode == AFX_MODE_TOUCH) {
        snprintf(why, size, "each new thread mallocs before its mask narrows (mode touch)");
        return d;
    }
    d.set_arena_max = true;
    if (f->cfg.arena_max > 0) {
        d.arena_max = f->cfg.arena_max;
        snprintf(why, size, "arena_max=%ld (ARENAFIX_ARENA_MAX, mode %s)", d.arena_max,
                 afx_mode_name(mode));
    } else {
        long cpus = f->online > 0 ? f->online : 2;
        d.arena_max = cpus * (long)AFX_ARENAS_PER_CPU;
        snprintf(why, size, "arena_max=%ld (%ld x %ld CPUs from %s, mode %s)", d.arena_max,
                 AFX_ARENAS_PER_CPU, cpus, f->online_source ? f->online_source : "default",
                 afx_mode_name(mode));
    }
    return d;
}
