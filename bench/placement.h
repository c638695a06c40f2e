/* Placement planning: which CPUs each worker thread is pinned to.  Pure
 * over an hwloc topology (the host's, or an XML one in the tests), so a
 * 2-package, 64-PU plan is checked on any machine. */
#ifndef AFB_PLACEMENT_H
#define AFB_PLACEMENT_H

#include <hwloc.h>
#include <stdio.h>

#include "options.h"

struct afb_plan {
    int nslots;         /* one per worker thread */
    char **cpus;        /* each slot's CPUs as a cpulist ("3", "0-1") */
    int *package;       /* each slot's package (logical index), 0 if none */
    int npackages, nnuma, ncores, npus;
    int nunits;         /* usable PUs or cores, whichever --unit chose */
    enum afb_spread spread;
    enum afb_unit unit;
};

/* Threads to run when the user did not say: one per unit, but at least
 * 16 so that a pinned run needs a ninth arena (the bug's trigger). */
int afb_plan_default_threads(int nunits);

/* Plan THREADS slots (0: the default) over TOPO's allowed CPUs.  Threads
 * beyond the units wrap around.  Returns 0, or -1 with ERR set when the
 * topology has no usable PU. */
int afb_plan_make(hwloc_topology_t topo, int threads, enum afb_spread spread,
                  enum afb_unit unit, struct afb_plan *plan, char *err, size_t errlen);
void afb_plan_free(struct afb_plan *plan);

/* "spread by PU over 2 packages (2 NUMA nodes, 32 cores, 64 PUs)" and the
 * slots, compressed where they repeat. */
void afb_plan_describe(const struct afb_plan *plan, FILE *out);

/* Load the host's topology, or the XML file when XML is not NULL. */
int afb_topology_load(hwloc_topology_t *topo, const char *xml, char *err, size_t errlen);

#endif
