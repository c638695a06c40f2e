/* The user's own arena settings, read exactly as glibc's dynamic linker
 * reads them at startup (elf/dl-tunables.c, _dl_strtoul in
 * elf/dl-misc.c, glibc 2.34-2.38).  Pure functions over strings. */
#ifndef AFX_USERSETTINGS_H
#define AFX_USERSETTINGS_H

#include <stdbool.h>
#include <stddef.h>

/* glibc's _dl_strtoul over text[0..len): blanks and tabs, a sign, 0x
 * hex or 0 octal, digits up to the first that does not fit; a negative
 * number wraps, an overflow saturates to ULLONG_MAX, no digit gives 0. */
unsigned long long afx_dl_strtoul(const char *text, size_t len);

/* A size_t tunable's value as glibc accepts it: true and *out set when
 * the number is within the tunable's bounds [1, SIZE_MAX]. */
bool afx_tunable_number(const char *text, size_t len, unsigned long *out);

/* KEY (e.g. "glibc.malloc.arena_max") in one GLIBC_TUNABLES value: the
 * last valid setting wins, as in glibc's parse_tunables. */
bool afx_tunables_get(const char *tunables, const char *key, unsigned long *out);

/* The same as glibc 2.34-2.38 builds without the CVE-2023-4911 fix read
 * it: after the last item they parse its value again as NAME=VALUE
 * items, so "x=glibc.malloc.arena_max=5" sets 5 there. */
bool afx_tunables_get_before_cve_fix(const char *tunables, const char *key, unsigned long *out);
bool afx_tunables_arena_max(const char *tunables, unsigned long *out);

/* MALLOC_ARENA_MAX, glibc's older spelling of the same tunable. */
bool afx_env_arena_max(const char *value, unsigned long *out);

/* ENTRY ("NAME=value") with exactly this NAME: its value, else NULL. */
const char *afx_env_value(const char *entry, const char *name);

/* Where a setting glibc applied came from. */
enum afx_origin {
    AFX_UNSET,
    AFX_FROM_ENV,
    AFX_FROM_TUNABLES,
    AFX_FROM_OLD_TUNABLES,  /* only as builds before the CVE-2023-4911 fix read it */
};

struct afx_user_settings {
    enum afx_origin arena_max_from;
    unsigned long arena_max;
    enum afx_origin arena_test_from;
    unsigned long arena_test;
};

/* What glibc applied from an initial environment ENVP (NULL-terminated
 * "NAME=value" entries, duplicates and all): every GLIBC_TUNABLES entry
 * is parsed in order and overrides; MALLOC_ARENA_MAX and
 * MALLOC_ARENA_TEST count only while their tunable is still unset, so
 * the first valid one wins.  A secure (AT_SECURE) process ignores both,
 * as glibc does.  A setting that only glibc builds without the
 * CVE-2023-4911 fix apply counts too (AFX_FROM_OLD_TUNABLES): arenafix
 * cannot tell those builds apart, and a choice glibc may have applied is
 * not to be overridden. */
void afx_user_scan(char *const *envp, bool secure, struct afx_user_settings *out);

/* Whether ENVP holds a variable arenafix or glibc's arena sizing reads
 * (ARENAFIX_*, GLIBC_TUNABLES, MALLOC_ARENA_*): without one, nothing is
 * to be parsed and whether the process is secure does not matter. */
bool afx_env_has_settings(char *const *envp);

#endif
