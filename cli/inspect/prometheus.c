#include "prometheus.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "proc/proccgroup.h"

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

/* Units by what an operator must see first, and what no unprivileged
 * user can take: a system service, another system unit (a login
 * session's scope, a container's), no unit (placed by root, a host
 * without systemd, or a cgroup path that does not parse), a unit of a
 * user's manager (any user makes those). */
enum unit_kind { KIND_SERVICE, KIND_SYSTEM_UNIT, KIND_NO_UNIT, KIND_USER_UNIT };

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

static int unit_kind(const struct afx_unit *u)
{
    if (u->name[0] == '\0')
        return KIND_NO_UNIT;
    /* user@UID.service itself holds the user's manager. */
    if (u->user || strncmp(u->name, "user@", 5) == 0)
        return KIND_USER_UNIT;
    return ends_with(u->name, ".service") ? KIND_SERVICE : KIND_SYSTEM_UNIT;
}

/* True if a is kept before b.  Hit before at risk: the hit are slowed
 * now and alerted on, the at-risk only may be, and are counted in
 * arenafix_processes whether kept or not.  Then what no unprivileged
 * user can choose: a system service's (only root makes those), then
 * root's (any user can log in, into a session's scope, or make a
 * cgroup path that does not parse), then by the kind of unit; then the
 * names, so that the choice depends on neither PIDs nor the order of
 * the scan.  Any user can start hit processes, so they can push an
 * at-risk series out, never a hit one of root's or a service's. */
static bool outranks(const struct afx_prom_series *a, const struct afx_prom_series *b)
{
    if (a->verdict != b->verdict)
        return a->verdict == AFX_HIT;
    if ((a->kind == KIND_SERVICE) != (b->kind == KIND_SERVICE))
        return a->kind == KIND_SERVICE;
    if (a->root != b->root)
        return a->root;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    int c = strcmp(a->unit, b->unit);
    if (c == 0)
        c = strcmp(a->container, b->container);
    return c != 0 ? c < 0 : strcmp(a->comm, b->comm) < 0;
}

static struct afx_prom_series *find(struct afx_prom *p, const struct afx_prom_series *key)
{
    for (size_t i = 0; i < p->count; i++) {
        struct afx_prom_series *s = &p->list[i];
        if (s->verdict == key->verdict && strcmp(s->unit, key->unit) == 0 && strcmp(s->comm, key->comm) == 0
            && strcmp(s->container, key->container) == 0)
            return s;
    }
    return NULL;
}

static struct afx_prom_series *lowest(struct afx_prom *p)
{
    struct afx_prom_series *low = &p->list[0];
    for (size_t i = 1; i < p->count; i++)
        if (outranks(low, &p->list[i]))
            low = &p->list[i];
    return low;
}

void afx_prom_add(struct afx_prom *p, const struct afx_report *r)
{
    if (r->health != AFX_HIT && r->health != AFX_AT_RISK)
        return;
    struct afx_prom_series new = { .verdict = r->health, .kind = unit_kind(&r->unit), .root = r->uid == 0,
                                   .count = 1 };
    char shown[AFX_UNIT_MAX + 32], prefix[AFX_UNIT_MAX];
    /* As the text report's UNIT column (a user's unit is marked), but a
     * container's scope by its engine: not one series per container. */
    const char *engine = r->container.engine[0] ? r->container.engine
                         : afx_unit_container_engine(r->unit.name, prefix, sizeof prefix);
    if (engine != NULL)
        snprintf(shown, sizeof shown, "(%s container)%s", engine, r->unit.user ? " (user)" : "");
    else if (r->container.userns)
        snprintf(shown, sizeof shown, "(rootless container)");
    else
        snprintf(shown, sizeof shown, "%s%s", r->unit.name, r->unit.user && r->unit.name[0] ? " (user)" : "");
    afx_prom_label(shown, new.unit, sizeof new.unit);
    afx_prom_label(r->name, new.comm, sizeof new.comm);
    /* Which container, as its engine's files name it (root's, never the
     * tenant's): on-call needs it to find the container, and a host's
     * containers are bounded as its units are (the fold below). */
    if (r->container.engine[0] != '\0') {
        /* A pod's as kubectl names it, NAMESPACE/POD/CONTAINER: one
         * series a container, as for the engines' names. */
        const struct afx_container *c = &r->container;
        char id[sizeof c->pod_ns + sizeof c->pod_name + sizeof c->pod_container];
        if (c->pod_name[0] != '\0')
            snprintf(id, sizeof id, "%s/%s%s%s", c->pod_ns, c->pod_name, c->pod_container[0] ? "/" : "",
                     c->pod_container);
        else
            snprintf(id, sizeof id, "%.12s", c->id);
        afx_prom_label(c->name[0] ? c->name : id, new.container, sizeof new.container);
    }
    struct afx_prom_series *s = find(p, &new);
    if (s != NULL) {
        s->count++;
        s->root |= new.root;
        return;
    }
    if (p->count < AFX_PROM_SERIES_MAX) {
        p->list[p->count++] = new;
        return;
    }
    /* Full: the lowest of the kept and the new one, the lower folds.
     * A series folded ranks below every one kept from then on, so the
     * kept are the first AFX_PROM_SERIES_MAX in rank, whatever the
     * order (but for a series that ranks higher once a process of
     * root's joins it: from then on it is kept apart, its processes
     * before in (other)). */
    s = lowest(p);
    if (outranks(&new, s)) {
        p->other[s->verdict] += s->count;
        *s = new;
    } else {
        p->other[new.verdict]++;
    }
}

static int by_labels(const void *a, const void *b)
{
    const struct afx_prom_series *x = a, *y = b;
    int c = strcmp(x->unit, y->unit);
    if (c == 0)
        c = strcmp(x->container, y->container);
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
    /* Versions and paths as an _info metric's labels, as node_exporter's
     * own (node_uname_info): an upgrade changes one series that is
     * always 1, never the series of a value an alert compares. */
    head(out, "arenafix_info",
         "Always 1: arenafix's version, the host's glibc's (as gnu_get_libc_version() says) and the libarenafix.so "
         "the command would preload (\"\" if none).");
    fprintf(out, "arenafix_info{version=\"%s\",glibc_version=\"%s\",library=\"%s\"} 1\n", AFX_VERSION,
            afx_prom_label(f->glibc_version, a, sizeof a), afx_prom_label(f->library ? f->library : "", b, sizeof b));
    head(out, "arenafix_glibc_affected",
         "1 if the host's glibc has bug 30945 (too few malloc arenas for pinned threads), else 0; state says "
         "affected, not_affected or unknown.");
    fprintf(out, "arenafix_glibc_affected{state=\"%s\"} %d\n", state_label[f->glibc_state],
            f->glibc_state == AFX_GLIBC_AFFECTED);
    head(out, "arenafix_library_installed", "1 if libarenafix.so is there to preload, else 0.");
    fprintf(out, "arenafix_library_installed %d\n", f->library != NULL);
    head(out, "arenafix_processes", "Processes inspect --all lists, by verdict.");
    static const enum afx_health order[] = { AFX_HIT, AFX_AT_RISK, AFX_UNDETERMINED, AFX_FINE };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        fprintf(out, "arenafix_processes{verdict=\"%s\"} %ld\n", verdict_label[order[i]], f->verdict[order[i]]);
    fprintf(out, "arenafix_processes{verdict=\"unreadable\"} %ld\n", f->unreadable);
    head(out, "arenafix_processes_fixed", "Fine processes that are fine because libarenafix is loaded.");
    fprintf(out, "arenafix_processes_fixed %ld\n", f->fixed);
    head(out, "arenafix_process_verdict",
         "Hit or at-risk processes, by systemd unit (\"\" if none), container (its name as its engine knows "
         "it, a Kubernetes pod's NAMESPACE/POD/CONTAINER; no label if none) and command name.");
    /* The folded in their place among the others, once per verdict. */
    for (int v = 0; v < AFX_HEALTHS; v++)
        if (p->other[v] > 0)
            p->list[p->count++] = (struct afx_prom_series){ .unit = "(other)", .comm = "(other)", .verdict = v,
                                                            .count = p->other[v] };
    qsort(p->list, p->count, sizeof p->list[0], by_labels);
    for (size_t i = 0; i < p->count; i++) {
        const struct afx_prom_series *x = &p->list[i];
        if (x->container[0] != '\0')
            fprintf(out, "arenafix_process_verdict{unit=\"%s\",container=\"%s\",comm=\"%s\",verdict=\"%s\"} %ld\n",
                    x->unit, x->container, x->comm, verdict_label[x->verdict], x->count);
        else
            fprintf(out, "arenafix_process_verdict{unit=\"%s\",comm=\"%s\",verdict=\"%s\"} %ld\n", x->unit,
                    x->comm, verdict_label[x->verdict], x->count);
    }
    head(out, "arenafix_scan_timestamp_seconds", "When the scan ended, in seconds since the epoch.");
    fprintf(out, "arenafix_scan_timestamp_seconds %.3f\n", f->timestamp);
    head(out, "arenafix_scan_duration_seconds", "How long the scan took, in seconds.");
    fprintf(out, "arenafix_scan_duration_seconds %.3f\n", f->duration);
    p->count = 0;
    memset(p->other, 0, sizeof p->other);
    return !ferror(out);
}
