/* The user's own arena settings, exactly as glibc reads them: a
 * differential test with the fixed system glibc as the oracle.
 *
 * glibc reads MALLOC_ARENA_MAX, MALLOC_ARENA_TEST and GLIBC_TUNABLES
 * (glibc.malloc.arena_max, glibc.malloc.arena_test) once, before main,
 * from the initial environment (elf/dl-tunables.c): numbers go through
 * _dl_strtoul (blanks and tabs, a sign, 0x hex, 0 octal, junk after the
 * digits ignored, saturation on overflow) and must then lie in
 * [1, SIZE_MAX]; the first valid MALLOC_ARENA_MAX counts, a
 * GLIBC_TUNABLES entry overrides it, and a later valid tunable overrides
 * an earlier one.  Whatever the program does to its environment later
 * is not read again.
 *
 * For each form below, the arena count on every affected glibc with the
 * preload must be the count on the system glibc without it, and the
 * system glibc must give the same count with the preload.  The expected
 * counts are never written here: the system glibc says them. */
#include <stdio.h>
#include <string.h>

#include "harness.h"

#define MAX "MALLOC_ARENA_MAX="
#define TUN "GLIBC_TUNABLES=glibc.malloc.arena_max="

struct form {
    int threads;
    const char *env[5];         /* the initial environment, verbatim, in order */
    const char *change[3];      /* then done by the program (pinned's ENVCHANGE) */
};

static const struct form forms[] = {
    { 30, { NULL }, { NULL } },     /* no setting: the fix applies */
    /* the variable */
    { 30, { MAX "2" }, { NULL } },
    { 30, { MAX " 2" }, { NULL } },
    { 30, { MAX "+2" }, { NULL } },
    { 30, { MAX "\t3" }, { NULL } },
    { 30, { MAX "-1" }, { NULL } },
    { 30, { MAX "0" }, { NULL } },
    { 30, { MAX "" }, { NULL } },
    { 30, { MAX "abc" }, { NULL } },
    { 30, { MAX "4junk" }, { NULL } },
    { 30, { MAX "0x3" }, { NULL } },
    { 30, { MAX "010" }, { NULL } },
    { 30, { MAX "08" }, { NULL } },
    { 30, { MAX "99999999999999999999999" }, { NULL } },
    /* the tunable, same numbers */
    { 30, { TUN "2" }, { NULL } },
    { 30, { TUN " 2" }, { NULL } },
    { 30, { TUN "+2" }, { NULL } },
    { 30, { TUN "\t3" }, { NULL } },
    { 30, { TUN "-1" }, { NULL } },
    { 30, { TUN "0" }, { NULL } },
    { 30, { TUN "abc" }, { NULL } },
    { 30, { TUN "4junk" }, { NULL } },
    { 30, { TUN "0x3" }, { NULL } },
    { 30, { TUN "010" }, { NULL } },
    { 30, { TUN "99999999999999999999999" }, { NULL } },
    { 30, { "GLIBC_TUNABLES=glibc.malloc.tcache_count=7:glibc.malloc.arena_max=3" }, { NULL } },
    /* duplicates: the first valid variable, the last valid tunable */
    { 30, { MAX "3", MAX "5" }, { NULL } },
    { 30, { MAX "abc", MAX "5" }, { NULL } },
    { 30, { MAX "0", MAX "5" }, { NULL } },
    { 30, { TUN "3", TUN "5" }, { NULL } },
    { 30, { TUN "3", TUN "abc" }, { NULL } },
    { 30, { TUN "3:glibc.malloc.arena_max=5" }, { NULL } },
    { 30, { TUN "3:glibc.malloc.arena_max=0" }, { NULL } },
    /* both: the tunable over the variable, in either order */
    { 30, { MAX "5", TUN "3" }, { NULL } },
    { 30, { TUN "3", MAX "5" }, { NULL } },
    { 30, { TUN "abc", MAX "5" }, { NULL } },
    { 30, { MAX "5", TUN "0" }, { NULL } },
    { 30, { MAX "abc", TUN "2", MAX "5", TUN "4" }, { NULL } },
    /* arena_test: no limit at all before that many arenas */
    { 21, { NULL }, { NULL } },
    { 21, { "MALLOC_ARENA_TEST=100" }, { NULL } },
    { 21, { "GLIBC_TUNABLES=glibc.malloc.arena_test=100" }, { NULL } },
    { 21, { "MALLOC_ARENA_TEST=100", MAX "4" }, { NULL } },
    /* the program's own changes, read by no one */
    { 30, { NULL }, { "--setenv", "MALLOC_ARENA_MAX=2" } },
    { 30, { NULL }, { "--setenv", "GLIBC_TUNABLES=glibc.malloc.arena_max=2" } },
    { 30, { MAX "2" }, { "--setenv", "MALLOC_ARENA_MAX=5" } },
    { 30, { MAX "2" }, { "--unsetenv", "MALLOC_ARENA_MAX" } },
    { 30, { MAX "2" }, { "--clearenv" } },
    { 30, { TUN "2" }, { "--unsetenv", "GLIBC_TUNABLES" } },
    { 30, { TUN "2" }, { "--clearenv" } },
};
enum { NFORMS = sizeof forms / sizeof forms[0] };

/* NAME="value" with C escapes, so blanks and tabs show. */
static void quote_entry(FILE *out, const char *entry)
{
    const char *eq = strchr(entry, '=');
    const char *value = eq != NULL ? eq + 1 : "";
    fprintf(out, " %.*s=\"", (int)(eq != NULL ? (size_t)(eq - entry) : strlen(entry)), entry);
    for (const char *p = value; *p != '\0'; p++) {
        if (*p == '\t')
            fputs("\\t", out);
        else if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            fprintf(out, "\\x%02x", (unsigned char)*p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void describe(const struct form *f, char *buf, size_t size)
{
    FILE *out = fmemopen(buf, size, "w");
    ck_assert(out != NULL);
    fprintf(out, "threads=%d", f->threads);
    if (f->env[0] == NULL)
        fputs(" (no setting)", out);
    for (const char *const *e = f->env; *e != NULL; e++)
        quote_entry(out, *e);
    /* "--setenv NAME=VALUE" shows as ", then setenv(NAME=VALUE)" */
    for (const char *const *a = f->change; *a != NULL; a++)
        if (strncmp(*a, "--", 2) == 0)
            fprintf(out, ", then %s(%s)", *a + 2, a[1] != NULL && a[1][0] != '-' ? a[1] : "");
    fclose(out);
}

static int arenas_under(const struct glibc *g, bool shim, const struct form *f)
{
    static struct child c;
    char threads[16];
    const char *args[6] = { NULL };
    int n = 0;
    for (; n < 3 && f->change[n] != NULL; n++)
        args[n] = f->change[n];
    snprintf(threads, sizeof threads, "%d", f->threads);
    args[n++] = "self";
    args[n++] = threads;
    afx_run(&c, g, shim ? afx_testlib : NULL, f->env, "pinned", args);
    return afx_arenas(&c);
}

START_TEST(same_as_fixed_glibc)
{
    const struct form *f = &forms[_i];
    const struct glibc *sys = &afx_glibcs[0];
    char what[512] = "", counts[2048] = "", wrong[1024] = "";

    describe(f, what, sizeof what);
    FILE *line = fmemopen(counts, sizeof counts, "w"), *differ = fmemopen(wrong, sizeof wrong, "w");
    ck_assert(line != NULL && differ != NULL);
    int oracle = arenas_under(sys, false, f);
    int sys_shim = arenas_under(sys, true, f);
    fprintf(line, "system=%d system+arenafix=%d", oracle, sys_shim);
    if (sys_shim != oracle)
        fputs(" system+arenafix", differ);
    for (int g = 1; g < afx_nglibcs; g++) {
        const struct glibc *aff = &afx_glibcs[g];
        int bare = arenas_under(aff, false, f);
        int shim = arenas_under(aff, true, f);
        fprintf(line, " %s=%d %s+arenafix=%d", aff->name, bare, aff->name, shim);
        if (shim != oracle)
            fprintf(differ, " %s+arenafix", aff->name);
    }
    fclose(line);
    fclose(differ);
    printf("settings: %s: %s: %s\n", what, counts, wrong[0] == '\0' ? "ok" : "DIFFERS");
    fflush(stdout);     /* a failed check ends this process without flushing */
    ck_assert_msg(wrong[0] == '\0', "%s: the fixed glibc gives %d arenas, but%s differ (%s)",
                  what, oracle, wrong, counts);
}
END_TEST

Suite *settings_suite(void)
{
    Suite *s = suite_create("settings");
    TCase *tc = tcase_create("as-glibc-reads-them");
    tcase_set_timeout(tc, 60);
    if (afx_glibcs[0].affected)
        afx_skip("the user's settings against a fixed glibc",
                 "the system glibc is affected: no fixed glibc at hand to say the counts");
    else
        tcase_add_loop_test(tc, same_as_fixed_glibc, 0, NFORMS);
    suite_add_tcase(s, tc);
    return s;
}
