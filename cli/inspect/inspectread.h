/* What inspect reads from /proc/PID: the thin layer over the pure
 * parsers, each read bounded in size. */
#ifndef AFX_INSPECTREAD_H
#define AFX_INSPECTREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "proc/proccgroup.h"
#include "proc/procenv.h"
#include "proc/procmaps.h"

/* When a process's main thread has exited (pthread_exit in main) while
 * others run on, its /proc/PID/maps, mem, environ and auxv are empty:
 * /proc/PID/task/TID of a thread still running shows the same memory.
 * True, with that directory in DIR, if there is one. */
bool afx_live_thread_dir(long pid, char *dir, size_t size);

/* DIR/maps, fed to the scanner as it is read.  False with errno. */
bool afx_read_maps(const char *dir, struct afx_maps *m);

struct afx_threads {
    long count;                 /* threads whose status could be read */
    long narrowed;              /* of which allowed fewer than the online CPUs */
    long min_cpus;              /* the narrowest's CPU count, -1 if none */
    char narrowest[256];        /* and its Cpus_allowed_list */
};

void afx_read_threads(long pid, long online, struct afx_threads *t);

/* Arenas from the heap headers in DIR/mem: main's and one per first
 * heap (heaps.h).  -1 if the memory cannot be read (with *err the
 * errno of the open that failed, else 0), or not all heaps were kept. */
long afx_count_target_arenas(const char *dir, const struct afx_maps *m, int *err);

/* The systemd unit it runs in (proccgroup.h), from /proc/PID/cgroup;
 * none if that cannot be read. */
void afx_read_unit(long pid, struct afx_unit *u);

/* Its initial environment and auxiliary vector (DIR/environ, DIR/auxv):
 * the settings glibc and libarenafix took from them (defaults where
 * unreadable). */
void afx_read_env(const char *dir, struct afx_env_facts *env);


#endif
