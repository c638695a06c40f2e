/* The CPU facts a verdict rests on: online, allowed, isolated. */
#ifndef AFX_HOSTINFO_H
#define AFX_HOSTINFO_H

#include <sched.h>
#include <stddef.h>

struct afx_host {
    long online;              /* /sys/devices/system/cpu/online, -1 unknown */
    char online_list[256];
    long allowed;             /* this process's affinity */
    char allowed_list[256];
    char isolated_list[256];  /* /sys/devices/system/cpu/isolated, "" for none */
    char nohz_full_list[256];
};

void afx_host_read(struct afx_host *h);

/* Write set as a cpulist ("0-3,8"), cut short with "..." if too long.
 * Pure. */
void afx_cpuset_format(const cpu_set_t *set, size_t setsize, char *out, size_t size);

#endif
