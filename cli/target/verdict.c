#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>

#include "arenarule.h"

const char *const afx_health_names[] = {
    [AFX_FINE] = "fine",
    [AFX_AT_RISK] = "at risk",
    [AFX_HIT] = "hit",
    [AFX_UNDETERMINED] = "cannot tell",
};

/* The totals an affected glibc latches: main's arena plus arena_test
 * (9 on 64-bit) when the deciding thread saw one CPU, else 8 per CPU. */
static bool latched_total(long arenas, long online)
{
    if (arenas >= AFX_ARENAS_PER_CPU * online)
        return false;
    return arenas == afx_arena_limit(1) || (arenas > 0 && arenas % AFX_ARENAS_PER_CPU == 0);
}

/* What to do about a process the bug hit or may hit, in buf or a
 * constant.  A static program's is the limit itself, which works
 * whatever libc.a it holds: a rebuild fixes it only with a fixed
 * libc.a, and gcc -static may link another than the host's own (where
 * libc6-dev-amd64-cross is installed, its unfixed 2.36-8). */
static const char *advice(const struct afx_process_facts *f, char *buf, size_t size)
{
    if (f->libc == AFX_LIBC_STATIC_GLIBC) {
        long max = afx_arena_limit(f->online > 0 ? f->online : 1);
        snprintf(buf, size, "no preload reaches a static program: restart it with MALLOC_ARENA_MAX=%ld in its "
                            "environment (the fixed glibc's limit with %ld online CPUs), or call "
                            "mallopt(M_ARENA_MAX, %ld) in its code", max, f->online, max);
        return buf;
    }
    if (!f->arenafix && f->container && f->pod)
        return "give its pod the fix in its spec and create the pod again (runtimeClassName: arenafix, or on "
               "CRI-O the annotation io.arenafix.enable: \"true\": the line inspect prints)";
    if (!f->arenafix && f->container)
        return "run its container again with libarenafix mounted and preloaded (the options inspect prints)";
    if (!f->arenafix)
        return "restart it under arenafix";
    switch (f->mode) {
    case AFX_MODE_OFF:
        return "libarenafix is loaded with ARENAFIX_MODE=off: restart it without that setting";
    case AFX_MODE_TOUCH:
        return "libarenafix is loaded in touch mode, which cannot widen a mask narrowed before it "
               "loaded (taskset, a cpuset): restart it with ARENAFIX_MODE=mallopt, the default";
    default:
        return "libarenafix is loaded, but glibc fixed its limit before the library acted (loaded "
               "late, or threads it does not see came first): restart it with the library preloaded "
               "and ARENAFIX_EAGER=1 (arenafix --eager)";
    }
}

enum afx_health afx_judge_process(const struct afx_process_facts *f, char *why, size_t size)
{
    char fix[256];
    bool active = f->arenafix && f->mode != AFX_MODE_OFF;
    if (f->unread != NULL) {
        snprintf(why, size, "%s", f->unread);
        return AFX_UNDETERMINED;
    }
    if (f->libc == AFX_LIBC_MUSL) {
        snprintf(why, size, "its libc is musl, which has no malloc arenas: glibc bug 30945 does not apply "
                            "(libarenafix, preloaded there, does nothing)");
        return AFX_FINE;
    }
    if (f->foreign != NULL) {
        snprintf(why, size, "malloc comes from %s: glibc's arena limit does not apply", f->foreign);
        return AFX_FINE;
    }
    if (f->user_limit) {
        snprintf(why, size, "the arena limit is set in its environment: the bug does not apply");
        return AFX_FINE;
    }
    if (active && f->mode != AFX_MODE_TOUCH && f->arenafix_max > 0) {
        snprintf(why, size, "libarenafix sets the arena limit to %ld (ARENAFIX_ARENA_MAX): the bug does not apply",
                 f->arenafix_max);
        return AFX_FINE;
    }
    if (f->glibc == AFX_GLIBC_FIXED) {
        snprintf(why, size, "its glibc sizes the arena limit from the online CPUs");
        return AFX_FINE;
    }
    if (f->arenas > 0 && f->threads > f->arenas && latched_total(f->arenas, f->online)) {
        snprintf(why, size,
                 "%ld threads share %ld arenas, a limit latched from a narrowed affinity "
                 "(%ld online CPUs allow %ld); %s",
                 f->threads, f->arenas, f->online, afx_arena_limit(f->online), advice(f, fix, sizeof fix));
        return AFX_HIT;
    }
    if (f->narrowed > 0 && !active) {
        snprintf(why, size,
                 "%ld of %ld threads are pinned narrower than the %ld online CPUs, %s glibc, "
                 "%s; %s",
                 f->narrowed, f->threads, f->online,
                 f->glibc == AFX_GLIBC_AFFECTED ? "on an affected" : "on a possibly affected",
                 f->arenafix ? "libarenafix off" : "no libarenafix", advice(f, fix, sizeof fix));
        return AFX_AT_RISK;
    }
    if (f->glibc_untested && !active) {
        snprintf(why, size, "its glibc was not tested, so it may be affected: no thread is pinned narrower "
                            "than the online CPUs now, but one pinned before its first malloc would latch "
                            "the arena limit; to be sure, %s", advice(f, fix, sizeof fix));
        return AFX_UNDETERMINED;
    }
    if (active)
        snprintf(why, size, "libarenafix is loaded (mode %s)", afx_mode_name(f->mode));
    else
        snprintf(why, size, "no thread is pinned narrower than the online CPUs");
    return AFX_FINE;
}
