/* Facts about the host and the process, read from /sys and /proc with
 * plain system calls and stack buffers: nothing allocated. */
#ifndef AFX_SYSREAD_H
#define AFX_SYSREAD_H

/* Online CPUs, counted the way the fixed glibc's __get_nprocs does:
 * the sysfs cpulist, then the cpuN lines of /proc/stat; where neither
 * can be read now, the last count read from them.  *source names the
 * one used.  -1 (and *source NULL) if none ever could: the fixed glibc
 * then counts the calling thread's affinity, which the caller must not
 * (a pinned thread is what the bug is about). */
long afx_online_cpus(const char **source);

/* Threads in this process (/proc/self/stat), -1 if unknown. */
long afx_thread_count(void);

/* CPUs the calling thread may run on, -1 if unknown. */
long afx_thread_cpus(void);

#endif
