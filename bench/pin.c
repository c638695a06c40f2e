/* Pinning (pin.h). */
#include "pin.h"

#include <errno.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdlib.h>
#include <string.h>

static hwloc_topology_t topology; /* for the hwloc path only */

int afb_cpulist_parse(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    for (;;) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0 || lo >= CPU_SETSIZE)
            return -1;
        if (*end == '-') {
            p = end + 1;
            hi = strtol(p, &end, 10);
            if (end == p || hi < lo || hi >= CPU_SETSIZE)
                return -1;
        }
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*end == '\0')
            return 0;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
}

int afb_slots_parse(const char *text, cpu_set_t *sets, int max)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, "/");
        char buf[256];
        if (n >= max || len == 0 || len >= sizeof buf)
            return -1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (afb_cpulist_parse(buf, &sets[n++]) != 0)
            return -1;
        if (p[len] == '\0')
            return n;
        p += len + 1;
    }
}

int afb_pin_prepare(enum afb_pinpath path)
{
    if (path != AFB_P_HWLOC || topology != NULL)
        return 0;
    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0)
        return errno ? errno : EINVAL;
    return 0;
}

static int pin_hwloc(const cpu_set_t *set)
{
    hwloc_bitmap_t bitmap = hwloc_bitmap_alloc();
    if (bitmap == NULL)
        return ENOMEM;
    int rc = hwloc_cpuset_from_glibc_sched_affinity(topology, bitmap, set, sizeof *set);
    if (rc == 0)
        rc = hwloc_set_cpubind(topology, bitmap, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT)
                 ? (errno ? errno : EINVAL) : 0;
    hwloc_bitmap_free(bitmap);
    return rc;
}

int afb_pin_self(enum afb_pinpath path, const cpu_set_t *set)
{
    switch (path) {
    case AFB_P_HWLOC:
        return pin_hwloc(set);
    case AFB_P_SELF:
        return sched_setaffinity(0, sizeof *set, set) == 0 ? 0 : errno;
    case AFB_P_PTHREAD:
        return pthread_setaffinity_np(pthread_self(), sizeof *set, set);
    default:
        return 0;
    }
}
