#include "policy.h"

#include <stdio.h>

static const struct afx_decision nothing;

/* Capped where it would not fit mallopt's int: a million arenas is as
 * good as no limit. */
long afx_arena_test(const struct afx_facts *f)
{
    unsigned long t = AFX_ARENAS_PER_CPU;
    if (f->program_arena_test > 0)
        t = (unsigned long)f->program_arena_test;
    else if (f->user.arena_test_from != AFX_UNSET)
        t = f->user.arena_test;
    return t > (unsigned long)AFX_ARENA_MAX_LIMIT ? AFX_ARENA_MAX_LIMIT : (long)t;
}

static const char *arena_test_origin(const struct afx_facts *f)
{
    if (f->program_arena_test > 0)
        return "mallopt";
    switch (f->user.arena_test_from) {
    case AFX_FROM_TUNABLES:
    case AFX_FROM_OLD_TUNABLES:
        return "GLIBC_TUNABLES";
    case AFX_FROM_ENV:
        return "MALLOC_ARENA_TEST";
    default:
        return "glibc's default";
    }
}

/* Touch mode works on masks arenafix sees narrowing; say when the
 * deciding thread was narrowed before that. */
static void touch_limit(const struct afx_facts *f, char *why, size_t size)
{
    if (f->narrowing_seen || f->thread_cpus < 1 || f->online < 1 || f->thread_cpus >= f->online)
        return;
    size_t len = 0;
    while (len < size && why[len] != '\0')
        len++;
    snprintf(why + len, size - len,
             "; but this thread already runs on %ld of %ld CPUs, narrowed before arenafix "
             "was loaded or without telling it: threads it starts inherit that mask, and "
             "touch cannot widen it (mode mallopt can)",
             f->thread_cpus, f->online);
}

struct afx_decision afx_decide(const struct afx_facts *f, char *why, size_t size)
{
    struct afx_decision d = nothing;
    enum afx_mode mode = f->cfg.mode;
    d.arena_test = afx_arena_test(f);

    /* The user's own choices first, as glibc applied them (the tunable
     * overrides the older variable; a secure process applies neither,
     * and then f->user is empty). */
    if (mode == AFX_MODE_OFF) {
        snprintf(why, size, "mode off: nothing changed");
        return d;
    }
    if (f->user.arena_max_from != AFX_UNSET) {
        if (f->user.arena_max_from == AFX_FROM_TUNABLES)
            snprintf(why, size, "standing down: GLIBC_TUNABLES sets glibc.malloc.arena_max=%lu",
                     f->user.arena_max);
        else if (f->user.arena_max_from == AFX_FROM_OLD_TUNABLES)
            snprintf(why, size,
                     "standing down: GLIBC_TUNABLES sets glibc.malloc.arena_max=%lu as glibc "
                     "builds without the CVE-2023-4911 fix read it (later builds ignore it)",
                     f->user.arena_max);
        else
            snprintf(why, size, "standing down: MALLOC_ARENA_MAX=%lu is set", f->user.arena_max);
        return d;
    }
    if (f->program_arena_max > 0) {
        snprintf(why, size, "standing down: the program called mallopt(M_ARENA_MAX, %d)",
                 f->program_arena_max);
        return d;
    }
    if (f->foreign_malloc != NULL) {
        snprintf(why, size, "standing down: malloc is not glibc's (it comes from %s)",
                 f->foreign_malloc);
        return d;
    }
    /* glibc fixes its limit when a thread needs a new arena while more
     * than arena_test exist: past that, nothing can change it.  Under
     * the highest arena_test in force so far: arenas made under a
     * higher one than the program set since fixed nothing yet. */
    long latch_test = f->highest_arena_test > d.arena_test ? f->highest_arena_test : d.arena_test;
    if (f->arenas > latch_test + 1) {
        snprintf(why, size,
                 "standing down: too late, %ld arenas exist (more than arena_test %ld + 1): "
                 "glibc has already fixed its arena limit",
                 f->arenas, latch_test);
        return d;
    }

    d.touch = mode == AFX_MODE_TOUCH || mode == AFX_MODE_BOTH;
    if (mode == AFX_MODE_TOUCH) {
        snprintf(why, size, "each new thread mallocs before its mask narrows (mode touch)");
        touch_limit(f, why, size);
        return d;
    }
    d.set_arena_max = true;
    long cpus = f->online > 0 ? f->online : 2;
    long from_cpus = cpus * (long)AFX_ARENAS_PER_CPU;
    if (f->cfg.arena_max > 0) {
        d.arena_max = f->cfg.arena_max;
        snprintf(why, size, "arena_max=%ld (ARENAFIX_ARENA_MAX, mode %s)", d.arena_max,
                 afx_mode_name(mode));
    } else if (d.arena_test + 1 > from_cpus) {
        /* The fixed glibc creates arena_test + 1 arenas before it
         * applies its limit at all. */
        d.arena_max = d.arena_test + 1;
        snprintf(why, size, "arena_max=%ld (arena_test %ld from %s + 1, above %ld x %ld CPUs, "
                 "mode %s)", d.arena_max, d.arena_test,
                 arena_test_origin(f), AFX_ARENAS_PER_CPU, cpus, afx_mode_name(mode));
    } else {
        d.arena_max = from_cpus;
        snprintf(why, size, "arena_max=%ld (%ld x %ld CPUs from %s, mode %s)", d.arena_max,
                 AFX_ARENAS_PER_CPU, cpus, f->online_source ? f->online_source : "default",
                 afx_mode_name(mode));
    }
    if (mode == AFX_MODE_BOTH)
        touch_limit(f, why, size);
    return d;
}
