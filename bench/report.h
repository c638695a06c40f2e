/* The outputs: a table for people, CSV and JSON for programs. */
#ifndef AFB_REPORT_H
#define AFB_REPORT_H

#include <stdio.h>

#include "stats.h"

struct afb_host {
    int online_cpus, packages, numa, cores, pus;
    const char *glibc;       /* the system glibc's version */
    const char *affected;    /* the affected glibc's directory, or NULL */
    const char *affected_note;  /* how it was found where none was named, or NULL */
    const char *preload;     /* the libarenafix.so tested, or NULL */
    const char *placement;   /* "spread by PU", ... */
    const char *pin;         /* the pinning path of the pinned scenarios */
};

/* Which cells to show: the user's selection. */
struct afb_selection {
    unsigned workloads, scenarios, glibcs;
};

void afb_report_table(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                      const struct afb_host *host);
void afb_report_checks(FILE *out, const struct afb_check *checks, int n);
void afb_report_csv(FILE *out, const struct afb_results *r, const struct afb_selection *sel);
void afb_report_json(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                     const struct afb_host *host, const struct afb_check *checks, int nchecks);

#endif
