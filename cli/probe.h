/* Watch a glibc choose its arena limit for pinned threads: the
 * behavioural test behind "arenafix probe" and inspect's glibc check. */
#ifndef AFX_PROBE_H
#define AFX_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* Which glibc runs the children: the system's (loader NULL) or the
 * one at loader with its libraries in libdir. */
struct afx_glibc {
    const char *loader;
    const char *libdir;
};

struct afx_probe_run {
    int arenas;         /* counted by malloc_info in the child */
    char glibc[32];     /* gnu_get_libc_version() in the child */
    int sees;           /* CPUs a worker thread was allowed */
};

/* Run one child: THREADS threads, pinned or free, with preload (NULL:
 * none).  False with a one-line reason in err on failure. */
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

/* Pure: the verdict from the counts (fills p->verdict and p->reason). */
void afx_probe_judge(struct afx_probe *p);

#endif
