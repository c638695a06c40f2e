#include "fixes.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"

/* How a process is fixed. */
enum fix_kind {
    FIX_SERVICE,    /* arenafix enable UNIT, then restart it */
    FIX_LOADED,     /* libarenafix is loaded: its reason says what to change */
    FIX_WRAP,       /* no system service to enable: arenafix CMD */
};

struct afx_fix {
    enum fix_kind kind;
    long pid;
    char name[64];
    char exe[PATH_MAX];
    struct afx_unit unit;
};

void afx_fixes_add(struct afx_fixes *f, const struct afx_report *r)
{
    if (r->health != AFX_HIT && r->health != AFX_AT_RISK)
        return;
    if (f->count == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 8;
        struct afx_fix *bigger = realloc(f->list, cap * sizeof *bigger);
        if (bigger == NULL)
            return;     /* the report stands without its advice */
        f->list = bigger;
        f->cap = cap;
    }
    struct afx_fix *x = &f->list[f->count++];
    x->kind = r->maps.arenafix ? FIX_LOADED
              : !r->unit.user && afx_unit_commandable(r->unit.name) ? FIX_SERVICE : FIX_WRAP;
    x->pid = r->pid;
    x->unit = r->unit;
    snprintf(x->name, sizeof x->name, "%s", r->name);
    snprintf(x->exe, sizeof x->exe, "%s", r->exe[0] ? r->exe : "?");
}

/* An earlier entry is the same service. */
static bool seen(const struct afx_fixes *f, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (f->list[k].kind == FIX_SERVICE && strcmp(f->list[k].unit.name, f->list[i].unit.name) == 0)
            return true;
    return false;
}

/* The services' commands: each enable, one reload, each restart. */
static void print_services(const struct afx_fixes *f, FILE *out)
{
    char word[AFX_UNIT_MAX + 2];
    const char *const steps[] = { "arenafix enable", "systemctl daemon-reload", "systemctl restart" };
    bool any = false;
    for (size_t i = 0; i < f->count; i++)
        any = any || f->list[i].kind == FIX_SERVICE;
    if (!any)
        return;
    fputs("fix the services (as root):\n", out);
    for (int step = 0; step < 3; step++) {
        if (step == 1) {
            fprintf(out, "    %s\n", steps[step]);
            continue;
        }
        for (size_t i = 0; i < f->count; i++)
            if (f->list[i].kind == FIX_SERVICE && !seen(f, i))
                fprintf(out, "    %s %s\n", steps[step], afx_unit_shell_word(f->list[i].unit.name, word, sizeof word));
    }
}

static void print_processes(const struct afx_fixes *f, enum fix_kind kind, const char *title, FILE *out)
{
    static char name[AFX_ESCAPED_SIZE(64)], exe[AFX_ESCAPED_SIZE(PATH_MAX)], unit[AFX_ESCAPED_SIZE(AFX_UNIT_MAX)];
    bool first = true;
    for (size_t i = 0; i < f->count; i++) {
        const struct afx_fix *x = &f->list[i];
        if (x->kind != kind)
            continue;
        if (first)
            fprintf(out, "%s\n", title);
        first = false;
        fprintf(out, "    %ld %s (%s)", x->pid, afx_escape(x->name, name, sizeof name),
                afx_escape(x->exe, exe, sizeof exe));
        if (kind == FIX_WRAP && x->unit.name[0] != '\0')
            fprintf(out, ", in %s%s", afx_escape(x->unit.name, unit, sizeof unit),
                    x->unit.user                             ? ", a user's unit (arenafix enable is for system services)"
                    : !afx_unit_commandable(x->unit.name)   ? ", not a service arenafix enable can name"
                                                             : "");
        fputc('\n', out);
    }
}

void afx_fixes_print(struct afx_fixes *f, FILE *out)
{
    print_services(f, out);
    print_processes(f, FIX_WRAP, "restart these under arenafix (arenafix CMD), in no system service:", out);
    print_processes(f, FIX_LOADED, "these load libarenafix already; their reasons say what to change:", out);
    free(f->list);
    *f = (struct afx_fixes){ 0 };
}
