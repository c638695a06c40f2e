/* Placement planning (placement.h). */
#include "placement.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int afb_plan_default_threads(int nunits)
{
    return nunits < 16 ? 16 : nunits;
}

int afb_topology_load(hwloc_topology_t *topo, const char *xml, char *err, size_t errlen)
{
    if (hwloc_topology_init(topo) != 0) {
        snprintf(err, errlen, "hwloc: cannot initialise a topology");
        return -1;
    }
    if (xml != NULL && hwloc_topology_set_xml(*topo, xml) != 0) {
        snprintf(err, errlen, "cannot read the hwloc XML topology '%s'", xml);
        hwloc_topology_destroy(*topo);
        return -1;
    }
    if (hwloc_topology_load(*topo) != 0) {
        snprintf(err, errlen, "hwloc: cannot load the %s topology",
                 xml != NULL ? "XML" : "host's");
        hwloc_topology_destroy(*topo);
        return -1;
    }
    return 0;
}

static int package_of(hwloc_topology_t topo, hwloc_obj_t obj)
{
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, obj);
    return pkg != NULL ? (int)pkg->logical_index : 0;
}

/* The order units are handed out in.  Spread deals them like cards, one
 * package after the other, so the first threads land on different
 * packages (and different memory), and takes every core's first PU
 * before any core's second, so hyperthread siblings share last; compact
 * fills package 0 first, in topology order. */
static void order_units(const int *pkg, const int *smt, int n, int npkg, enum afb_spread spread,
                        int *order)
{
    if (spread == AFB_COMPACT) {
        for (int i = 0; i < n; i++)
            order[i] = i;
        return;
    }
    int *next = calloc((size_t)npkg, sizeof *next); /* scan position per package */
    int placed = 0;
    for (int rank = 0; placed < n; rank++) {
        memset(next, 0, sizeof *next * (size_t)npkg);
        for (int progress = 1; progress;) {
            progress = 0;
            for (int p = 0; p < npkg; p++) {
                while (next[p] < n && (pkg[next[p]] != p || smt[next[p]] != rank))
                    next[p]++;
                if (next[p] < n) {
                    order[placed++] = next[p]++;
                    progress = 1;
                }
            }
        }
    }
    free(next);
}

/* A PU's rank among its core's PUs (0 for the first hyperthread). */
static int smt_rank(hwloc_obj_t obj)
{
    return obj->type == HWLOC_OBJ_PU && obj->parent != NULL && obj->parent->type == HWLOC_OBJ_CORE
               ? (int)obj->sibling_rank : 0;
}

int afb_plan_make(hwloc_topology_t topo, int threads, enum afb_spread spread,
                  enum afb_unit unit, struct afb_plan *plan, char *err, size_t errlen)
{
    memset(plan, 0, sizeof *plan);
    hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
    hwloc_obj_type_t type = unit == AFB_UNIT_CORE ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    if (type == HWLOC_OBJ_CORE && hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) <= 0)
        type = HWLOC_OBJ_PU; /* some VMs and XMLs report no cores: PUs will do */

    int total = hwloc_get_nbobjs_by_type(topo, type);
    hwloc_bitmap_t *sets = calloc((size_t)(total > 0 ? total : 1), sizeof *sets);
    int *pkg = calloc((size_t)(total > 0 ? total : 1), sizeof *pkg);
    int *smt = calloc((size_t)(total > 0 ? total : 1), sizeof *smt);
    int n = 0;
    for (int i = 0; i < total; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, (unsigned)i);
        if (obj->cpuset == NULL || !hwloc_bitmap_intersects(obj->cpuset, allowed))
            continue;
        sets[n] = hwloc_bitmap_dup(obj->cpuset);
        hwloc_bitmap_and(sets[n], sets[n], allowed);
        smt[n] = smt_rank(obj);
        pkg[n++] = package_of(topo, obj);
    }
    if (n == 0) {
        snprintf(err, errlen, "unusable topology: no %s this process may run on",
                 type == HWLOC_OBJ_CORE ? "core" : "PU");
        free(sets);
        free(pkg);
        free(smt);
        return -1;
    }

    int npkg = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    plan->npackages = npkg > 0 ? npkg : 1;
    plan->nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    plan->ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    plan->npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    plan->nunits = n;
    plan->spread = spread;
    plan->unit = type == HWLOC_OBJ_CORE ? AFB_UNIT_CORE : AFB_UNIT_PU;

    int *order = calloc((size_t)n, sizeof *order);
    order_units(pkg, smt, n, plan->npackages, spread, order);
    plan->nslots = threads > 0 ? threads : afb_plan_default_threads(n);
    plan->cpus = calloc((size_t)plan->nslots, sizeof *plan->cpus);
    plan->package = calloc((size_t)plan->nslots, sizeof *plan->package);
    for (int s = 0; s < plan->nslots; s++) {
        int u = order[s % n];
        hwloc_bitmap_list_asprintf(&plan->cpus[s], sets[u]);
        plan->package[s] = pkg[u];
    }
    for (int i = 0; i < n; i++)
        hwloc_bitmap_free(sets[i]);
    free(order);
    free(sets);
    free(pkg);
    free(smt);
    return 0;
}

void afb_plan_free(struct afb_plan *plan)
{
    for (int s = 0; s < plan->nslots; s++)
        free(plan->cpus[s]);
    free(plan->cpus);
    free(plan->package);
    memset(plan, 0, sizeof *plan);
}

void afb_plan_describe(const struct afb_plan *plan, FILE *out)
{
    fprintf(out, "placement: %s by %s over %d package%s (%d NUMA node%s, %d cores, %d PUs); "
                 "%d threads on %d %s%s\n",
            plan->spread == AFB_SPREAD ? "spread" : "compact",
            plan->unit == AFB_UNIT_CORE ? "core" : "PU", plan->npackages,
            plan->npackages == 1 ? "" : "s", plan->nnuma, plan->nnuma == 1 ? "" : "s",
            plan->ncores, plan->npus, plan->nslots, plan->nunits,
            plan->unit == AFB_UNIT_CORE ? "cores" : "PUs",
            plan->nslots > plan->nunits ? " (wrapping around)" : "");
    /* One line per package: which threads went there, on which CPUs. */
    for (int p = 0; p < plan->npackages; p++) {
        int shown = 0;
        for (int s = 0; s < plan->nslots && s < plan->nunits; s++) {
            if (plan->package[s] != p)
                continue;
            if (shown == 0)
                fprintf(out, "  package %d:", p);
            if (shown < 8)
                fprintf(out, " t%d->%s", s, plan->cpus[s]);
            shown++;
        }
        if (shown > 8)
            fprintf(out, " ... (%d threads)", shown);
        if (shown > 0)
            fputc('\n', out);
    }
}
