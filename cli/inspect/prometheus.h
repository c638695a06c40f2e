/* inspect --all --prometheus: the scan in Prometheus's text exposition
 * format, for node_exporter's textfile collector.  Hit and at-risk
 * processes are counted by (systemd unit, command name, verdict), never
 * one series per PID: PIDs churn, and each would be a new time series. */
#ifndef AFX_PROMETHEUS_H
#define AFX_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "procreport.h"
#include "verdict.h"

struct afx_prom_series;

/* The hit and at-risk processes, aggregated. */
struct afx_prom {
    struct afx_prom_series *list;
    size_t count, cap;
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

/* Count r if it is hit or at risk (nothing otherwise). */
void afx_prom_add(struct afx_prom *p, const struct afx_report *r);

/* Every metric, with its HELP and TYPE, then frees the series.  False
 * if out would not take them. */
bool afx_prom_write(struct afx_prom *p, const struct afx_prom_facts *f, FILE *out);

/* s as a label value's text (between the quotes), safe whatever s
 * holds: first escaped as the text report shows it (escape.h: a byte
 * outside printable ASCII as \ooo, so no newline and valid UTF-8), cut
 * at AFX_PROM_LABEL_MAX bytes of that with "...", then backslash and
 * double quote escaped as the format wants.  Returns out.  Pure. */
char *afx_prom_label(const char *s, char *out, size_t size);

#define AFX_PROM_LABEL_MAX 128
/* Room for afx_prom_label's output: each byte may double, and the NUL. */
#define AFX_PROM_LABEL_SIZE (2 * AFX_PROM_LABEL_MAX + 1)

/* The series kept apart; the rest fold into unit="(other)",
 * comm="(other)", so that a host (or a process renaming itself) cannot
 * make the file, and the series, grow without bound. */
#define AFX_PROM_SERIES_MAX 200

#endif
