#include <stdio.h>

#include "arenarule.h"
#include "probe.h"

/* What an affected glibc gives `fair` arenas' worth of threads that
 * see `cpus` CPUs: it latches 8 per CPU once arena_test (8) arenas and
 * main's exist, so never fewer than those 9. */
static long latched(long fair, long cpus)
{
    long limit = afx_arena_limit(cpus);
    return fair < limit ? fair : limit;
}

void afx_probe_judge(struct afx_probe *p)
{
    long fair = p->threads + 1L;            /* one each, plus main's */
    const struct afx_probe_run *unpinned = &p->free_run;
    p->expected = afx_fixed_glibc_arenas(p->threads, p->online);

    if (p->online < 2) {
        p->verdict = AFX_CANNOT_TELL;
        snprintf(p->reason, sizeof p->reason,
                 "%ld CPU online: pinning cannot lower the arena limit here", p->online);
    } else if (unpinned->arenas < p->expected && unpinned->sees > 0 && unpinned->sees < p->online
               && unpinned->arenas == latched(fair, unpinned->sees)) {
        p->verdict = AFX_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads allowed %d of the %ld online CPUs got %d arenas instead of %ld: the limit "
                 "was taken from their affinity", unpinned->sees, p->online, unpinned->arenas, p->expected);
    } else if (unpinned->arenas < p->expected) {
        p->verdict = AFX_CANNOT_TELL;
        snprintf(p->reason, sizeof p->reason,
                 "even unpinned threads got only %d arenas of %ld: something else limits them",
                 unpinned->arenas, p->expected);
    } else if (p->pinned_run.arenas < p->expected) {
        p->verdict = AFX_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads pinned to %d CPU got %d arenas instead of %ld: the limit was "
                 "taken from their affinity", p->pinned_run.sees, p->pinned_run.arenas, p->expected);
    } else {
        p->verdict = AFX_NOT_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads pinned to %d CPU still got %d arenas: the limit follows the online CPUs",
                 p->pinned_run.sees, p->pinned_run.arenas);
    }
}
