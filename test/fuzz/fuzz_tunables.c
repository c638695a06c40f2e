/* libFuzzer target: the user's own settings (usersettings.c), read from
 * GLIBC_TUNABLES and MALLOC_ARENA_MAX.
 *
 * A number is checked against strtoul where the two must agree (digits
 * only, no sign, no blanks); a tunables string against a reference that
 * splits it on ':' and applies the last valid arena_max item. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "usersettings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char key[] = "glibc.malloc.arena_max=";

/* strtoul over the leading digits of the base glibc would pick. */
static bool reference_number(const char *s, size_t len, unsigned long *out)
{
    char buf[64];
    size_t i = 0, end;
    int base = 10;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len >= 1 && s[0] == '0') {
        base = 8;
    }
    for (end = i; end < len; end++) {
        char c = s[end];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : 99;
        if (d >= base)
            break;
    }
    if (end == i)
        return false;
    /* Leading zeros say nothing about size: drop them before measuring. */
    while (i < end - 1 && s[i] == '0')
        i++;
    if (end - i >= sizeof buf)
        return false;       /* more digits than any 64-bit value has */
    memcpy(buf, s + i, end - i);
    buf[end - i] = '\0';
    errno = 0;
    unsigned long n = strtoul(buf, NULL, base);
    if (errno == ERANGE || n == 0)
        return false;
    *out = n;
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
