#include <stdio.h>

#include "probe.h"

/* Arenas per CPU in glibc's limit and the count it allows before it
 * looks at CPUs at all (NARENAS_FROM_NCORES(1), arena_test). */
#define ARENAS_PER_CPU (sizeof(long) == 4 ? 2L : 8L)

/* What an affected glibc gives `fair` arenas' worth of threads that
 * see `cpus` CPUs: it latches 8 per CPU once arena_test (8) arenas and
 * main's exist, so never fewer than those 9. */
static long latched(long fair, long cpus)
{
    long limit = ARENAS_PER_CPU * cpus;
    if (limit < ARENAS_PER_CPU + 1)
        limit = ARENAS_PER_CPU + 1;
    return fair < limit ? fair : limit;
}

void afx_probe_judge(struct afx_probe *p)
{
    long fair = p->threads + 1L;            /* one each, plus main's */
    long limit = ARENAS_PER_CPU * p->online;
    const struct afx_probe_run *unpinned = &p->free_run;
    p->expected = fair < limit ? fair : limit;

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
