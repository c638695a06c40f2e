/* Which files systemd reads for a service under a root, in the order it
 * applies them (systemd.unit(5), dropin.c, conf-files.c), and the
 * LD_PRELOAD they give it. */
#ifndef AFX_UNITENV_H
#define AFX_UNITENV_H

#include <stdbool.h>
#include <stddef.h>

#include "files/rootdir.h"
#include "unitfile.h"

struct afx_dropin {
    char *name;     /* "10-x.conf" */
    char *path;     /* relative to the root */
};

struct afx_unit_files {
    char *fragment;             /* the unit file, relative to the root; NULL if none */
    bool masked;                /* linked to /dev/null, or empty */
    char alias_of[256];         /* the unit is an alias of this one */
    struct afx_dropin *dropins; /* by name: the order systemd applies them in */
    size_t count;
    char **watched;             /* every file named as asked, found or shadowed, */
    size_t nwatched;            /* most important first */
    char problem[512];          /* non-empty: the lookup could not be done, and why */
};

/* Find them for service ("foo.service", "foo@bar.service"), noting in
 * f->watched each drop-in named watch (systemd applies only the first).
 * False, with f->problem set, if it could not tell. */
bool afx_unit_files_find(const struct afx_root *r, const char *service, const char *watch,
                         struct afx_unit_files *f);
void afx_unit_files_free(struct afx_unit_files *f);

/* Apply the file rel (a unit file or a drop-in) to e.  A file systemd
 * would not read, or that arenafix will not, leaves e->broken set. */
void afx_unit_files_apply(const struct afx_root *r, const char *rel, struct afx_unit_env *e);

#endif
