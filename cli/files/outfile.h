/* inspect --output FILE: the report replaces FILE whole or not at all,
 * so that a reader (node_exporter's textfile collector) never sees half
 * of one. */
#ifndef AFX_OUTFILE_H
#define AFX_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct afx_outfile {
    char path[PATH_MAX];    /* as given, for messages */
    int dir;                /* FILE's directory, held open */
    char name[NAME_MAX + 1];
    char tmp[NAME_MAX + 16];   /* name + "." + 8 hex digits: within NAME_MAX, checked */
    bool unnamed;           /* O_TMPFILE: no name until commit */
    FILE *f;
};

/* FILE's directory is reached one component at a time without
 * following a symbolic link (whoever owns a directory on the way, such
 * as Debian's prometheus user for /var/lib/prometheus, could swap a
 * component for a link into /etc between two runs), and held open.  In
 * it, a new file, mode 0644: unnamed (O_TMPFILE) until it is whole, or
 * where the file system has no such files, FILE's name and a random
 * suffix, made with O_EXCL (never a file or link someone else put
 * there).  NULL,
 * having said why in one line, if it cannot be made. */
FILE *afx_outfile_open(struct afx_outfile *o, const char *path, unsigned flags);

/* flags: what a file that root's programs trust needs (cdi --output:
 * an engine runs as root what a spec names).  TRUSTED: each directory
 * from / to FILE's is owned by root or this user and writable by no
 * one else (one on the way may be sticky, as /tmp, FILE's own may not),
 * else nothing is written.  MAKE_DIR: FILE's directory is made (mode
 * 0755) when missing, in one that is there. */
enum {
    AFX_OUTFILE_TRUSTED = 1,
    AFX_OUTFILE_MAKE_DIR = 2,
};

/* Close and remove the new file; FILE is as it was. */
void afx_outfile_abandon(struct afx_outfile *o);

/* Flush and sync the new file, then rename it over FILE in the same
 * directory (a link there is replaced, not followed).  False, having
 * said why and removed the new file, if any step failed: FILE is then
 * as it was. */
bool afx_outfile_commit(struct afx_outfile *o);

#endif
