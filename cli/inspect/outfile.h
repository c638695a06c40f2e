/* inspect --output FILE: the report replaces FILE whole or not at all,
 * so that a reader (node_exporter's textfile collector) never sees half
 * of one. */
#ifndef AFX_OUTFILE_H
#define AFX_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct afx_outfile {
    char path[PATH_MAX];
    char tmp[PATH_MAX];
    FILE *f;
};

/* A new file beside path (path.XXXXXX, made with O_EXCL: never a file
 * or link someone else put there), mode 0644.  NULL, having said why
 * in one line, if it cannot be made. */
FILE *afx_outfile_open(struct afx_outfile *o, const char *path);

/* Flush and sync the new file, then rename it over path (a link there
 * is replaced, not followed).  False, having said why and removed the
 * new file, if any step failed: path is then as it was. */
bool afx_outfile_commit(struct afx_outfile *o);

#endif
