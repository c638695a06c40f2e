#include <stdio.h>

#include "arenarule.h"
#include "probe.h"

void afx_probe_judge(struct afx_probe *p)
{
    const struct afx_probe_run *unpinned = &p->free_run;
    p->expected = afx_fixed_glibc_arenas(p->threads, p->online);

    if (p->online < 2) {
        p->verdict = AFX_CANNOT_TELL;
        snprintf(p->reason, sizeof p->reason,
                 "%ld CPU online: pinning cannot lower the arena limit here", p->online);
    } else if (unpinned->arenas < p->expected && unpinned->sees > 0 && unpinned->sees < p->online
               /* What an affected glibc latches from the CPUs the
                * deciding thread sees: the fixed glibc's rule with its
                * CPUs for the online ones. */
               && unpinned->arenas == afx_fixed_glibc_arenas(p->threads, unpinned->sees)) {
        p->verdict = AFX_AFFECTED;
        snprintf(p->reason, sizeof p->reason,
                 "threads allowed %d of the %ld online CPUs got %d arenas instead of %ld: the limit "
                 "was taken from their affinity", unpinned->sees, p->online, unpinned->arenas, p->expected);
    } else if (unpinned->arenas < p->expected) {
        p->verdict = AFX_CANNOT_TELL;
        /* glibc makes no arena it cannot map (a heap reserves 64 MiB
         * of address space on 64-bit hosts) and shares one instead. */
        snprintf(p->reason, sizeof p->reason,
                 "even unpinned threads got only %d of %ld arenas: something else limits them, "
                 "such as an address-space limit (ulimit -v)", unpinned->arenas, p->expected);
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
