/* inspect --all --prometheus: the scan in Prometheus's text exposition
 * format, for node_exporter's textfile collector.  Hit and at-risk
 * processes are counted by (systemd unit, command name, verdict), never
 * one series per PID: PIDs churn, and each would be a new time series. */
#ifndef AFX_PROMETHEUS_H
#define AFX_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "target/procreport.h"
#include "target/verdict.h"

/* The series kept apart; the rest fold into unit="(other)",
 * comm="(other)", so that a host (or a process renaming itself) cannot
 * make the file, and the series, grow without bound. */
#define AFX_PROM_SERIES_MAX 200

#define AFX_PROM_LABEL_MAX 128
/* Room for afx_prom_label's output: each byte may double, and the NUL. */
#define AFX_PROM_LABEL_SIZE (2 * AFX_PROM_LABEL_MAX + 1)

/* Hit or at-risk processes of one (unit, container, command name,
 * verdict). */
struct afx_prom_series {
    char unit[AFX_PROM_LABEL_SIZE];     /* label text, escaped */
    char comm[AFX_PROM_LABEL_SIZE];
    char container[AFX_PROM_LABEL_SIZE];    /* its name as its engine knows it, a pod's NS/POD/CONTAINER (else its short ID); "" if none */
    enum afx_health verdict;
    int kind;                           /* its unit's, as prometheus.c ranks them */
    bool root;                          /* one of them runs as root (real uid 0) */
    long count;
};

/* The hit and at-risk processes, aggregated. */
struct afx_prom {
    struct afx_prom_series list[AFX_PROM_SERIES_MAX + 2];   /* and (other)'s, hit and at risk, when written */
    size_t count;
    long other[AFX_HEALTHS];            /* folded into (other), by verdict */
};

/* What the scan found on the host, for the gauges. */
struct afx_prom_facts {
    const char *glibc_version;          /* the host's, as gnu_get_libc_version() says */
    enum afx_glibc_state glibc_state;
    const char *library;                /* the library the command would preload, or NULL */
    long verdict[AFX_HEALTHS];          /* listed processes, by enum afx_health */
    long fixed;                         /* of the fine, those libarenafix fixes */
    long unreadable;
    double timestamp, duration;         /* when the scan ended (seconds since the epoch), how long it took */
};

/* Count r if it is hit or at risk (nothing otherwise), under its unit
 * as the text report shows it, but a container's scope under its
 * engine, "(podman container)" (afx_unit_container_engine).  Past the
 * bound, the series kept are the hit ones first, then those an
 * operator must see first by what no unprivileged user chooses: a
 * system service's, then root's, then by the kind of unit (another
 * system unit, none, a user's unit last); then by unit and name.
 * Never by PID or the order processes come in: any user can start
 * processes early, and take the low PIDs. */
void afx_prom_add(struct afx_prom *p, const struct afx_report *r);

/* Every metric, with its HELP and TYPE, then empties p.  False if out
 * would not take them. */
bool afx_prom_write(struct afx_prom *p, const struct afx_prom_facts *f, FILE *out);

/* s as a label value's text (between the quotes), safe whatever s
 * holds: first escaped as the text report shows it (escape.h: a byte
 * outside printable ASCII as \ooo, so no newline and valid UTF-8), cut
 * at AFX_PROM_LABEL_MAX bytes of that with "...", then backslash and
 * double quote escaped as the format wants.  Returns out.  Pure. */
char *afx_prom_label(const char *s, char *out, size_t size);

#endif
