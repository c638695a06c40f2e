#include "hostinfo.h"

#include <stdio.h>
#include <string.h>

#include "readfile.h"
#include "sysparse.h"

void afx_cpuset_format(const cpu_set_t *set, size_t setsize, char *out, size_t size)
{
    size_t used = 0;
    long cpus = (long)setsize * 8;
    out[0] = '\0';
    for (long c = 0; c < cpus; c++) {
        if (!CPU_ISSET_S((size_t)c, setsize, set))
            continue;
        long last = c;
        while (last + 1 < cpus && CPU_ISSET_S((size_t)last + 1, setsize, set))
            last++;
        char item[48];
        int n = last == c ? snprintf(item, sizeof item, "%s%ld", used ? "," : "", c)
                          : snprintf(item, sizeof item, "%s%ld-%ld", used ? "," : "", c, last);
        if (used + (size_t)n + 4 > size) {
            snprintf(out + used, size - used, "...");
            return;
        }
        memcpy(out + used, item, (size_t)n + 1);
        used += (size_t)n;
        c = last;
    }
}

void afx_host_read(struct afx_host *h)
{
    afx_first_line("/sys/devices/system/cpu/online", h->online_list, sizeof h->online_list);
    h->online = h->online_list[0] ? afx_cpulist_count(h->online_list) : -1;

    cpu_set_t set;
    CPU_ZERO(&set);
    h->allowed = -1;
    h->allowed_list[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        h->allowed = CPU_COUNT(&set);
        afx_cpuset_format(&set, sizeof set, h->allowed_list, sizeof h->allowed_list);
    }
    afx_first_line("/sys/devices/system/cpu/isolated", h->isolated_list, sizeof h->isolated_list);
    afx_first_line("/sys/devices/system/cpu/nohz_full", h->nohz_full_list, sizeof h->nohz_full_list);
    /* The kernel writes "(null)" when nohz_full is off. */
    if (strcmp(h->nohz_full_list, "(null)") == 0)
        h->nohz_full_list[0] = '\0';
}
