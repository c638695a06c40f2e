/* Parsers for the text the kernel writes in /sys and /proc.  Pure
 * functions over bytes: no I/O, no allocation, unit-tested directly.
 * The streaming forms take the text in pieces, so the reader can use a
 * small stack buffer however many CPUs the host has. */
#ifndef AFX_SYSPARSE_H
#define AFX_SYSPARSE_H

#include <stddef.h>

/* CPU numbers above this are rejected as malformed (Linux allows 8192 on
 * x86, more elsewhere; this keeps counts far from overflow). */
#define AFX_CPU_INDEX_MAX (1L << 22)

/* A cpulist as in /sys/devices/system/cpu/online: "0", "0-3,8-11\n". */
struct afx_cpulist {
    int state;
    long first, cur;
    long count;
};
void afx_cpulist_begin(struct afx_cpulist *p);
void afx_cpulist_feed(struct afx_cpulist *p, const char *text, size_t len);
/* Returns the number of CPUs listed, 0 for a blank list, -1 if malformed. */
long afx_cpulist_end(struct afx_cpulist *p);

/* Count CPUs in a whole cpulist string, as afx_cpulist_*. */
long afx_cpulist_count(const char *text);

/* The "cpuN ..." lines of /proc/stat. */
struct afx_statcpus {
    int col;        /* column in the current line, capped */
    int skip;       /* rest of the line is not interesting */
    long count;
};
void afx_statcpus_begin(struct afx_statcpus *p);
void afx_statcpus_feed(struct afx_statcpus *p, const char *text, size_t len);
long afx_statcpus_end(const struct afx_statcpus *p);

/* Field 20 (num_threads) of /proc/PID/stat; -1 if the text is not one
 * or holds no count there (0). */
long afx_stat_num_threads(const char *text, size_t len);

/* The "Threads:" line of /proc/PID/status; -1 if there is none.  Where
 * /proc/PID/stat holds no count (qemu-user emulates that file alone),
 * this one is the host's: under qemu-user it counts the emulator's own
 * thread too, one more than the program's. */
long afx_status_threads(const char *text, size_t len);

#endif
