/* Names for the benchmark's vocabulary (model.h). */
#include "model.h"

#include <string.h>

const char *const afb_workload_names[AFB_W_COUNT] = {
    "repro", "mixed", "threads", "exec", "conn",
};
const char *const afb_scenario_names[AFB_S_COUNT] = {
    "unpinned", "pinned", "infix", "tunable", "shim-mallopt", "shim-touch", "shim-both",
};
const char *const afb_glibc_names[AFB_G_COUNT] = { "system", "affected" };
const char *const afb_pinpath_names[AFB_P_COUNT] = {
    "none", "self", "pthread", "attr", "inherit", "hwloc",
};
const char *const afb_metric_names[AFB_METRIC_COUNT] = {
    "wall_ms", "ops_per_s", "thread_avg_ms", "arenas", "lockwaits", "minflt", "maxrss_kb",
};

int afb_lookup(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

double *afb_metric_at(struct afb_metrics *m, int i)
{
    double *all[AFB_METRIC_COUNT] = {
        &m->wall_ms, &m->ops_per_s, &m->thread_avg_ms, &m->arenas,
        &m->lockwaits, &m->minflt, &m->maxrss_kb,
    };
    return i >= 0 && i < AFB_METRIC_COUNT ? all[i] : NULL;
}
