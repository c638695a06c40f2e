/* libFuzzer target: the user's own settings (usersettings.c), read from
 * GLIBC_TUNABLES and MALLOC_ARENA_MAX.
 *
 * A number is checked against a reference of glibc's rules (_dl_strtoul
 * in elf/dl-misc.c, then the size_t tunable's bounds [1, SIZE_MAX] in
 * elf/dl-tunables.c), written apart from the shim's: strtoull over the
 * digits, then glibc's saturation and sign applied to the result.  A
 * tunables string is checked against a reference that splits it on ':'
 * and applies the last valid arena_max item. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usersettings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char key[] = "glibc.malloc.arena_max=";

static int digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : 99;
}

/* The number glibc reads from s[0..len): blanks and tabs, one sign, then
 * a digit or nothing at all (0); 0x hex or 0 octal; digits up to the
 * first that does not fit the base.  glibc stops with UINT64_MAX as soon
 * as a digit would take the value above UINT64_MAX - base (a test a
 * little short of the real overflow), unsigned and before the sign; a
 * '-' otherwise negates modulo 2^64. */
static unsigned long long reference_strtoul(const char *s, size_t len)
{
    char buf[72];
    size_t i = 0, end;
    bool negative = false;
    int base = 10;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i < len && (s[i] == '-' || s[i] == '+'))
        negative = s[i++] == '-';
    if (i == len || s[i] < '0' || s[i] > '9')
        return 0;
    if (s[i] == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        base = 16;
        i += 2;
    } else if (s[i] == '0') {
        base = 8;
    }
    for (end = i; end < len && digit(s[end]) < base; end++)
        ;
    /* Leading zeros say nothing about size: drop them before measuring. */
    while (i < end && s[i] == '0')
        i++;
    if (i == end)
        return 0;
    if (end - i >= sizeof buf)
        return UINT64_MAX;      /* more digits than any 64-bit value has */
    memcpy(buf, s + i, end - i);
    buf[end - i] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, base);
    if (errno == ERANGE || v > UINT64_MAX - (unsigned)base)
        return UINT64_MAX;
    return negative ? 0 - v : v;
}

/* A size_t tunable's value: glibc keeps it only within [1, SIZE_MAX]. */
static bool reference_number(const char *s, size_t len, unsigned long *out)
{
    unsigned long long v = reference_strtoul(s, len);
    if (v == 0 || v > SIZE_MAX)
        return false;
    *out = (unsigned long)v;
    return true;
}

static bool reference_tunables(const char *s, unsigned long *out)
{
    bool found = false;
    while (*s != '\0') {
        size_t item = strcspn(s, ":");
        if (item >= sizeof key - 1 && memcmp(s, key, sizeof key - 1) == 0) {
            unsigned long v;
            if (reference_number(s + sizeof key - 1, item - (sizeof key - 1), &v)) {
                *out = v;
                found = true;
            }
        }
        s += item;
        if (*s == ':')
            s++;
    }
    return found;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    unsigned long got = 0, want = 0;

    bool ok = afx_tunable_number(text, size, &got);
    bool ref = reference_number(text, size, &want);
    if (ok != ref || (ok && (got != want || got == 0)))
        abort();

    char *s = malloc(size + 1);
    if (s == NULL)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    got = want = 0;
    ok = afx_tunables_arena_max(s, &got);
    ref = reference_tunables(s, &want);
    if (ok != ref || got != want)
        abort();

    got = want = 0;
    ok = afx_env_arena_max(s, &got);
    ref = reference_number(s, strlen(s), &want);
    if (ok != ref || got != want)
        abort();
    free(s);
    return 0;
}
