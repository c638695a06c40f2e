#include "prometheus.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"

struct afx_prom_series {
    char unit[AFX_PROM_LABEL_SIZE];     /* label text, escaped */
    char comm[AFX_PROM_LABEL_SIZE];
    enum afx_health verdict;
    long count;
};

/* The verdicts as label values: no spaces, as Prometheus's own are. */
static const char *const verdict_label[] = {
    [AFX_FINE] = "fine",
    [AFX_AT_RISK] = "at_risk",
    [AFX_HIT] = "hit",
    [AFX_UNDETERMINED] = "cannot_tell",
};

char *afx_prom_label(const char *s, char *out, size_t size)
{
    char shown[AFX_PROM_LABEL_MAX + 1];
    size_t used = 0;
    if (size == 0)
        return out;
    afx_escape(s, shown, sizeof shown);
    for (const char *p = shown; *p != '\0'; p++) {
        /* The format's three escapes; afx_escape left no newline, but
         * this function does not rest on that. */
        const char *item = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
        size_t n = item != NULL ? 2 : 1;
        if (used + n >= size)
            break;
        memcpy(out + used, item != NULL ? item : p, n);
        used += n;
    }
    out[used] = '\0';
    return out;
}

static struct afx_prom_series *find(const struct afx_prom *p, const char *unit, const char *comm, enum afx_health v)
{
    for (size_t i = 0; i < p->count; i++) {
        struct afx_prom_series *s = &p->list[i];
        if (s->verdict == v && strcmp(s->unit, unit) == 0 && strcmp(s->comm, comm) == 0)
            return s;
    }
    return NULL;
}

/* A new series at 0; NULL if memory ran out (the counts by verdict
 * still hold the process). */
static struct afx_prom_series *make(struct afx_prom *p, const char *unit, const char *comm, enum afx_health v)
{
    if (p->count == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 8;
        struct afx_prom_series *bigger = realloc(p->list, cap * sizeof *bigger);
        if (bigger == NULL)
            return NULL;
        p->list = bigger;
        p->cap = cap;
    }
    struct afx_prom_series *s = &p->list[p->count++];
    snprintf(s->unit, sizeof s->unit, "%s", unit);
    snprintf(s->comm, sizeof s->comm, "%s", comm);
    s->verdict = v;
    s->count = 0;
    return s;
}

void afx_prom_add(struct afx_prom *p, const struct afx_report *r)
{
    static const char other[] = "(other)";
    if (r->health != AFX_HIT && r->health != AFX_AT_RISK)
        return;
    char unit[AFX_PROM_LABEL_SIZE], comm[AFX_PROM_LABEL_SIZE], shown[AFX_UNIT_MAX + 16];
    /* As the text report's UNIT column: a user's unit is marked. */
    snprintf(shown, sizeof shown, "%s%s", r->unit.name, r->unit.user && r->unit.name[0] ? " (user)" : "");
    afx_prom_label(shown, unit, sizeof unit);
    afx_prom_label(r->name, comm, sizeof comm);
    struct afx_prom_series *s = find(p, unit, comm, r->health);
    /* A new pair past the bound goes with the other ones. */
    if (s == NULL && p->count >= AFX_PROM_SERIES_MAX)
        s = find(p, other, other, r->health) ?: make(p, other, other, r->health);
    else if (s == NULL)
        s = make(p, unit, comm, r->health);
    if (s != NULL)
        s->count++;
}

static int by_labels(const void *a, const void *b)
{
    const struct afx_prom_series *x = a, *y = b;
    int c = strcmp(x->unit, y->unit);
    if (c == 0)
        c = strcmp(x->comm, y->comm);
    return c != 0 ? c : (int)y->verdict - (int)x->verdict;
}

static void head(FILE *out, const char *name, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

bool afx_prom_write(struct afx_prom *p, const struct afx_prom_facts *f, FILE *out)
{
    char a[AFX_PROM_LABEL_SIZE], b[AFX_PROM_LABEL_SIZE];
    static const char *const state_label[] = {
        [AFX_GLIBC_UNKNOWN] = "unknown", [AFX_GLIBC_AFFECTED] = "affected", [AFX_GLIBC_FIXED] = "not_affected",
    };
    head(out, "arenafix_glibc_affected",
         "1 if the host's glibc has bug 30945 (too few malloc arenas for pinned threads), else 0; state says "
         "affected, not_affected or unknown.");
    fprintf(out, "arenafix_glibc_affected{version=\"%s\",state=\"%s\"} %d\n",
            afx_prom_label(f->glibc_version, a, sizeof a), state_label[f->glibc_state],
            f->glibc_state == AFX_GLIBC_AFFECTED);
    head(out, "arenafix_library_installed", "1 if libarenafix.so is there to preload (path, version), else 0.");
    fprintf(out, "arenafix_library_installed{version=\"%s\",path=\"%s\"} %d\n", f->library ? AFX_VERSION : "",
            afx_prom_label(f->library ? f->library : "", b, sizeof b), f->library != NULL);
    head(out, "arenafix_processes", "Processes inspect --all lists, by verdict.");
    static const enum afx_health order[] = { AFX_HIT, AFX_AT_RISK, AFX_UNDETERMINED, AFX_FINE };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        fprintf(out, "arenafix_processes{verdict=\"%s\"} %ld\n", verdict_label[order[i]], f->verdict[order[i]]);
    fprintf(out, "arenafix_processes{verdict=\"unreadable\"} %ld\n", f->unreadable);
    head(out, "arenafix_processes_fixed", "Fine processes that are fine because libarenafix is loaded.");
    fprintf(out, "arenafix_processes_fixed %ld\n", f->fixed);
    head(out, "arenafix_process_verdict",
         "Hit or at-risk processes, by systemd unit (\"\" if none) and command name.");
    if (p->count > 0)
        qsort(p->list, p->count, sizeof p->list[0], by_labels);
    for (size_t i = 0; i < p->count; i++)
        fprintf(out, "arenafix_process_verdict{unit=\"%s\",comm=\"%s\",verdict=\"%s\"} %ld\n", p->list[i].unit,
                p->list[i].comm, verdict_label[p->list[i].verdict], p->list[i].count);
    head(out, "arenafix_scan_timestamp_seconds", "When the scan ended, in seconds since the epoch.");
    fprintf(out, "arenafix_scan_timestamp_seconds %.3f\n", f->timestamp);
    head(out, "arenafix_scan_duration_seconds", "How long the scan took, in seconds.");
    fprintf(out, "arenafix_scan_duration_seconds %.3f\n", f->duration);
    free(p->list);
    *p = (struct afx_prom){ 0 };
    return !ferror(out);
}
