#include "usersettings.h"

#include <stdint.h>
#include <string.h>

static int digit_value(char c, unsigned base)
{
    unsigned v;
    if (c >= '0' && c <= '9')
        v = (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f')
        v = (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
        v = (unsigned)(c - 'A' + 10);
    else
        return -1;
    return v < base ? (int)v : -1;
}

bool afx_tunable_number(const char *text, size_t len, unsigned long *out)
{
    size_t i = 0;
    unsigned base = 10;
    if (len >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (len >= 1 && text[0] == '0') {
        base = 8;
    }
    unsigned long n = 0;
    size_t start = i;
    for (; i < len; i++) {
        int d = digit_value(text[i], base);
        if (d < 0)
            break;
        if (n > (SIZE_MAX - (unsigned long)d) / base)
            return false;
        n = n * base + (unsigned long)d;
    }
    if (i == start || n == 0)
        return false;
    *out = n;
    return true;
}

bool afx_tunables_arena_max(const char *tunables, unsigned long *out)
{
    static const char key[] = "glibc.malloc.arena_max";
    bool found = false;
    if (tunables == NULL)
        return false;

    const char *p = tunables;
    while (*p != '\0') {
        size_t item = strcspn(p, ":");
        const char *eq = memchr(p, '=', item);
        if (eq != NULL && (size_t)(eq - p) == sizeof key - 1
            && memcmp(p, key, sizeof key - 1) == 0) {
            unsigned long v;
            if (afx_tunable_number(eq + 1, item - (size_t)(eq - p) - 1, &v)) {
                *out = v;
                found = true;
            }
        }
        p += item;
        if (*p == ':')
            p++;
    }
    return found;
}

bool afx_env_arena_max(const char *value, unsigned long *out)
{
    return value != NULL && afx_tunable_number(value, strlen(value), out);
}
