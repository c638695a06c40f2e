#include "proctable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/procstatus.h"
#include "readfile.h"

/* A few KiB, but Groups: may list 65536 groups. */
#define STATUS_MAX (1L << 20)

/* Open addressing, kept at most half full: a probe or two a lookup. */
static struct afx_proc_entry *table;
static size_t cap, used;

static size_t slot_of(long pid, size_t size)
{
    return ((unsigned long)pid * 0x9e3779b97f4a7c15UL >> 20) & (size - 1);
}

static bool grow(void)
{
    size_t bigger = cap == 0 ? 1024 : cap * 2;
    struct afx_proc_entry *t = calloc(bigger, sizeof *t);
    if (t == NULL)
        return false;
    for (size_t i = 0; i < cap; i++) {
        if (table[i].pid == 0)
            continue;
        size_t s = slot_of(table[i].pid, bigger);
        while (t[s].pid != 0)
            s = (s + 1) & (bigger - 1);
        t[s] = table[i];
    }
    free(table);
    table = t;
    cap = bigger;
    return true;
}

/* Its real uid ("Uid:" real, effective, saved, filesystem), whether all
 * four are 0, and its parent. */
static void parse(struct afx_proc_entry *e, const char *text)
{
    char value[128], *end;
    unsigned long ids[4];
    if (afx_status_field(text, "Uid", value, sizeof value)) {
        errno = 0;
        unsigned long n = strtoul(value, &end, 10);
        if (errno == 0 && end != value && (*end == '\t' || *end == ' ') && n <= 0xffffffffUL)
            e->uid = (long)n;
        e->root = sscanf(value, "%lu %lu %lu %lu", &ids[0], &ids[1], &ids[2], &ids[3]) == 4
                  && (ids[0] | ids[1] | ids[2] | ids[3]) == 0;
    }
    if (afx_status_field(text, "PPid", value, sizeof value)) {
        errno = 0;
        long ppid = strtol(value, &end, 10);
        if (errno == 0 && end != value && ppid >= 0)
            e->ppid = ppid;
    }
}

static void read_status(struct afx_proc_entry *e, const struct afx_deadline *by)
{
    char path[64];
    afx_proc_path(path, sizeof path, e->pid, "/status");
    char *text = afx_slurp_max(path, STATUS_MAX, by, NULL);
    e->err = text == NULL ? errno : 0;
    if (text != NULL)
        parse(e, text);
    free(text);
}

/* pid's slot: its entry, or the empty one it would take. */
static struct afx_proc_entry *slot(long pid)
{
    size_t s = slot_of(pid, cap);
    while (table[s].pid != 0 && table[s].pid != pid)
        s = (s + 1) & (cap - 1);
    return &table[s];
}

struct afx_proc_entry *afx_proc_entry(long pid, const struct afx_deadline *by)
{
    if (pid <= 0) {
        errno = EINVAL;
        return NULL;
    }
    struct afx_proc_entry *e = cap > 0 ? slot(pid) : NULL;
    /* Grown only to add one: an entry a caller holds stays where it is
     * while it asks of one already there. */
    if (e == NULL || e->pid == 0) {
        if (2 * (used + 1) > cap) {
            if (!grow()) {
                errno = ENOMEM;
                return NULL;
            }
            e = slot(pid);
        }
        *e = (struct afx_proc_entry){ .pid = pid, .err = ETIME, .ppid = -1, .uid = -1, .ours = -1 };
        used++;
    }
    if (e->err == ETIME)
        read_status(e, by);
    return e;
}
