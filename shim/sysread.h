/* Facts about the host and the process, read from /sys and /proc with
 * plain system calls and stack buffers: nothing allocated. */
#ifndef AFX_SYSREAD_H
#define AFX_SYSREAD_H

/* Online CPUs, counted the way the fixed glibc's __get_nprocs does:
 * the sysfs cpulist, then the cpuN lines of /proc/stat, then the
 * process affinity, then 2.  *source names the one used. */
long afx_online_cpus(const char **source);

/* Threads in this process (/proc/self/stat), -1 if unknown. */
long afx_thread_count(void);

/* CPUs the calling thread may run on, -1 if unknown. */
long afx_thread_cpus(void);

#endif
