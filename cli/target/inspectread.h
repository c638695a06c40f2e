/* What inspect reads from /proc/PID: the thin layer over the pure
 * parsers, each read bounded in size, and all of a process's reads by
 * one deadline (readfile.h). */
#ifndef AFX_INSPECTREAD_H
#define AFX_INSPECTREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "container.h"
#include "proc/proccgroup.h"
#include "proc/procenv.h"
#include "proc/procmaps.h"
#include "readfile.h"

/* What inspect reads of one process's maps.  At the default
 * vm.max_map_count (65530 mappings), lines of 128 bytes (an anonymous
 * mapping's is 74, one of a library under /usr/lib about 120) come to
 * 8 MiB: a program has a few hundred mappings, a large one some
 * thousands.  A longer map is one of long paths mapped many times over,
 * which the kernel writes at some 100 MB/s: 8 MiB is a tenth of a
 * second, where a whole map can be 256 MiB. */
#define AFX_MAPS_READ_MAX (8L << 20)

/* AFX_READ_SECONDS, what inspect spends reading one process, is
 * memreader.h's: the helper that reads its memory keeps to it too. */
#include "memreader.h"

/* When a process's main thread has exited (pthread_exit in main) while
 * others run on, its /proc/PID/maps, mem, environ and auxv are empty:
 * /proc/PID/task/TID of a thread still running shows the same memory.
 * True, with that directory in DIR, if there is one. */
bool afx_live_thread_dir(long pid, const struct afx_deadline *by, char *dir, size_t size);

/* DIR/maps, fed to the scanner as the helper reads it (memreader.h).
 * False with errno: EFBIG past AFX_MAPS_READ_MAX bytes, ETIME past the
 * deadline or with the helper left asleep. */
bool afx_read_maps(const char *dir, const struct afx_deadline *by, struct afx_maps *m);

struct afx_threads {
    long count;                 /* threads whose status could be read */
    long narrowed;              /* of which allowed fewer than the online CPUs */
    long min_cpus;              /* the narrowest's CPU count, -1 if none */
    char narrowest[256];        /* and its Cpus_allowed_list */
};

/* False if the deadline passed before every thread was read. */
bool afx_read_threads(long pid, long online, const struct afx_deadline *by, struct afx_threads *t);

/* Arenas from the heap headers in DIR/mem: main's and one per first
 * heap (heaps.h), read by a helper process (memreader.h).  -1 if the
 * memory cannot be read (with *err the errno of the open that failed,
 * else 0, ETIME past the deadline or when the helper was left asleep on
 * a page a user serves), or not all heaps were kept. */
long afx_count_target_arenas(const char *dir, const struct afx_maps *m, const struct afx_deadline *by, int *err);

/* The systemd unit it runs in (proccgroup.h) and the container
 * (container.h), from one read of /proc/PID/cgroup; none if that cannot
 * be read. */
void afx_read_cgroup(long pid, const struct afx_deadline *by, struct afx_unit *u,
                     struct afx_container *c);

/* Its initial environment and auxiliary vector (DIR/environ, DIR/auxv):
 * the settings glibc and libarenafix took from them (defaults where
 * unreadable).  False if the deadline passed first, or the environment
 * was left unread past it (memreader.h). */
bool afx_read_env(const char *dir, const struct afx_deadline *by, struct afx_env_facts *env);


#endif
