/* probe --root's judgement of an image from the facts read of it
 * (rootprobe.c): bug 30945's verdict and whether libarenafix would load
 * there.  Pure: the facts in, the words out. */
#ifndef AFX_ROOTJUDGE_H
#define AFX_ROOTJUDGE_H

#include <limits.h>
#include <stdbool.h>

#include "libc/glibcversion.h"
#include "libc/rootlibc.h"

struct afx_image_root_facts {
    enum afx_root_libc_kind libc;
    char path[PATH_MAX];        /* its libc inside DIR ("usr/lib/x86_64-linux-gnu/libc.so.6"), "" if none */
    char version[32];           /* a glibc's banner's, "" if none */
    char arch[32];              /* its libc's machine, "" if unknown */
    char unreadable[160];       /* why its libc could not be read, "" if it was */
    bool found_lib;             /* a libarenafix.so on this host */
    char lib_file[PATH_MAX];    /* its path */
    char lib_arch[32];          /* its machine, "" if unknown */
};

struct afx_image_root_verdict {
    const char *verdict;        /* "not affected", "cannot tell" */
    int status;                 /* probe's exit status: AFX_EXIT_OK or AFX_EXIT_UNKNOWN */
    char why[400];
    enum afx_glibc_state state; /* a glibc's, by its version alone */
    const char *loads;          /* "yes", "no", "stands down", "cannot tell" */
    char loads_why[300 + PATH_MAX];
};

void afx_image_root_judge(const struct afx_image_root_facts *f, struct afx_image_root_verdict *v);

#endif
