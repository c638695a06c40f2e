/* Watch a glibc choose its arena limit for pinned threads: the
 * behavioural test behind "arenafix probe" and inspect's glibc check. */
#ifndef AFX_PROBE_H
#define AFX_PROBE_H

#include <stdbool.h>
#include <stddef.h>

struct afx_jail;

/* Which glibc runs the children: the system's (loader NULL) or the
 * one at loader with its libraries in libdir.  With a jail (inspect),
 * the children run in that process's namespaces (jail.h): the loader is
 * the open file loader_fd and libc the open file libc_fd, the very
 * files the process has mapped, passed by descriptor (the loader would
 * look libc up by name, in more directories than the one checked). */
struct afx_glibc {
    const char *loader;
    const char *libdir;
    const struct afx_jail *jail;
    int loader_fd;
    int libc_fd;
};

/* Seconds a probe child may take before it is killed. */
#define AFX_PROBE_DEADLINE 10

struct afx_probe_run {
    int arenas;         /* counted by malloc_info in the child */
    char glibc[32];     /* gnu_get_libc_version() in the child */
    int sees;           /* CPUs a worker thread was allowed */
};

/* Run one child: THREADS threads, pinned or free, with preload (NULL:
 * none).  False with a one-line reason in err on failure (which may
 * quote the child's output: escape it before it reaches a terminal). */
bool afx_probe_child_run(const struct afx_glibc *g, bool pinned, int threads, const char *preload,
                         struct afx_probe_run *out, char *err, size_t errsize);

enum afx_verdict { AFX_NOT_AFFECTED, AFX_AFFECTED, AFX_CANNOT_TELL };

struct afx_probe {
    long online;
    int threads;
    long expected;                 /* arenas a fixed glibc gives the pinned threads */
    struct afx_probe_run free_run, pinned_run, shim_run;
    bool shim_tried;
    enum afx_verdict verdict;
    char reason[160];
};

/* Threads enough to need more arenas than the latched limit allows. */
int afx_probe_threads(void);

/* Probe glibc g on a host with `online` CPUs; with shim (may be NULL)
 * also measure the fix.  False with err set if a child failed. */
bool afx_probe_glibc(const struct afx_glibc *g, long online, const char *shim, struct afx_probe *p,
                     char *err, size_t errsize);

/* Pure (probejudge.c): the verdict from the counts (fills p->expected,
 * p->verdict and p->reason).  Threads that could not pin themselves
 * wider than the affinity the whole probe was given (taskset, a
 * cpuset) show the bug in the free run already: 8 x their CPUs (at
 * least the 9 of arena_test + 1) where the online CPUs allow more. */
void afx_probe_judge(struct afx_probe *p);

#endif
