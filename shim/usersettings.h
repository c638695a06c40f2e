/* The user's own arena limit, as glibc itself would read it from the
 * environment.  Pure functions over strings. */
#ifndef AFX_USERSETTINGS_H
#define AFX_USERSETTINGS_H

#include <stdbool.h>
#include <stddef.h>

/* Parse a tunable number the way glibc does (decimal, 0x hex, 0 octal;
 * digits must come first, parsing stops at the first non-digit).
 * True and *out set if the text starts with a number in [1, SIZE_MAX]. */
bool afx_tunable_number(const char *text, size_t len, unsigned long *out);

/* Look for glibc.malloc.arena_max in a GLIBC_TUNABLES string
 * ("glibc.malloc.arena_max=8:glibc.malloc.tcache_count=0").  The last
 * valid setting wins, invalid ones are ignored, as glibc does.  True and
 * *out set when one applies. */
bool afx_tunables_arena_max(const char *tunables, unsigned long *out);

/* MALLOC_ARENA_MAX, glibc's older spelling of the same tunable. */
bool afx_env_arena_max(const char *value, unsigned long *out);

#endif
