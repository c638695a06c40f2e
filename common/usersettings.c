#include "usersettings.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

unsigned long long afx_dl_strtoul(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    unsigned long long result = 0;
    bool positive = true;

    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p < end && (*p == '-' || *p == '+'))
        positive = *p++ == '+';
    if (p == end || *p < '0' || *p > '9')
        return 0;

    unsigned base = 10, max_digit = 9;
    if (*p == '0') {
        if (end - p > 1 && (p[1] == 'x' || p[1] == 'X')) {
            base = 16;
            p += 2;
        } else {
            base = 8;
            max_digit = 7;
        }
    }
    for (; p < end; p++) {
        unsigned d;
        if (*p >= '0' && *p <= (char)('0' + max_digit))
            d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (base == 16 && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            break;
        /* glibc's own test, a little short of the real limit, kept as
         * is: the value must be the one glibc computed. */
        if (result >= (ULLONG_MAX - d) / base)
            return ULLONG_MAX;
        result = result * base + d;
    }
    return positive ? result : -result;
}

bool afx_tunable_number(const char *text, size_t len, unsigned long *out)
{
    unsigned long long v = afx_dl_strtoul(text, len);
    if (v == 0 || v > SIZE_MAX)
        return false;
    *out = (unsigned long)v;
    return true;
}

/* parse_tunables: NAME=VALUE items separated by ':'.  A name cut by ':'
 * is skipped; text that ends before any '=' ends the parse. */
static bool tunables_get(const char *tunables, const char *key, unsigned long *out,
                         bool reread_last)
{
    size_t keylen = strlen(key);
    bool found = false;
    if (tunables == NULL)
        return false;

    const char *p = tunables;
    for (;;) {
        size_t len = strcspn(p, "=:");
        if (p[len] == '\0')
            break;
        if (p[len] == ':') {
            p += len + 1;
            continue;
        }
        const char *name = p;
        size_t namelen = len;
        p += len + 1;
        len = strcspn(p, ":");
        unsigned long v;
        if (namelen == keylen && memcmp(name, key, keylen) == 0
            && afx_tunable_number(p, len, &v)) {
            *out = v;
            found = true;
        }
        if (p[len] == '\0' && !reread_last)
            break;
        /* Before the fix, p stayed on the last value, read again as
         * items; each round starts further on, so this ends. */
        if (p[len] != '\0')
            p += len + 1;
    }
    return found;
}

bool afx_tunables_get(const char *tunables, const char *key, unsigned long *out)
{
    return tunables_get(tunables, key, out, false);
}

bool afx_tunables_get_before_cve_fix(const char *tunables, const char *key, unsigned long *out)
{
    return tunables_get(tunables, key, out, true);
}

bool afx_tunables_arena_max(const char *tunables, unsigned long *out)
{
    return afx_tunables_get(tunables, "glibc.malloc.arena_max", out);
}

bool afx_env_arena_max(const char *value, unsigned long *out)
{
    return value != NULL && afx_tunable_number(value, strlen(value), out);
}

/* Every process pays this once per variable and name at startup: most
 * entries differ at the first byte, so stop there (no strlen). */
const char *afx_env_value(const char *entry, const char *name)
{
    while (*name != '\0' && *entry == *name) {
        entry++;
        name++;
    }
    return *name == '\0' && *entry == '=' ? entry + 1 : NULL;
}

static bool starts(const char *entry, const char *prefix)
{
    while (*prefix != '\0' && *entry == *prefix) {
        entry++;
        prefix++;
    }
    return *prefix == '\0';
}

bool afx_env_has_settings(char *const *envp)
{
    if (envp == NULL)
        return false;
    /* One pass that every process makes at startup, most variables
     * passed over at their first byte; the passes that parse run only
     * where it finds something. */
    for (const char *e; (e = *envp) != NULL; envp++) {
        switch (*e) {
        case 'A':
            if (starts(e, "ARENAFIX_"))
                return true;
            break;
        case 'G':
            if (starts(e, "GLIBC_TUNABLES="))
                return true;
            break;
        case 'M':
            if (starts(e, "MALLOC_ARENA_"))
                return true;
            break;
        }
    }
    return false;
}

static void set(enum afx_origin *from, unsigned long *value, enum afx_origin origin,
                unsigned long v)
{
    *from = origin;
    *value = v;
}

/* Whether GLIBC_TUNABLES was found. */
static bool scan(char *const *envp, struct afx_user_settings *out, bool before_cve_fix)
{
    bool tunables = false;
    *out = (struct afx_user_settings){ 0 };
    for (; *envp != NULL; envp++) {
        const char *v;
        unsigned long n;
        /* Every process's constructor runs this over a login's forty
         * variables: most are passed over at their first byte. */
        if (**envp != 'G' && **envp != 'M')
            continue;
        if ((v = afx_env_value(*envp, "GLIBC_TUNABLES")) != NULL) {
            tunables = true;
            if (tunables_get(v, "glibc.malloc.arena_max", &n, before_cve_fix))
                set(&out->arena_max_from, &out->arena_max, AFX_FROM_TUNABLES, n);
            if (tunables_get(v, "glibc.malloc.arena_test", &n, before_cve_fix))
                set(&out->arena_test_from, &out->arena_test, AFX_FROM_TUNABLES, n);
        } else if ((v = afx_env_value(*envp, "MALLOC_ARENA_MAX")) != NULL) {
            if (out->arena_max_from == AFX_UNSET && afx_env_arena_max(v, &n))
                set(&out->arena_max_from, &out->arena_max, AFX_FROM_ENV, n);
        } else if ((v = afx_env_value(*envp, "MALLOC_ARENA_TEST")) != NULL) {
            if (out->arena_test_from == AFX_UNSET && afx_env_arena_max(v, &n))
                set(&out->arena_test_from, &out->arena_test, AFX_FROM_ENV, n);
        }
    }
    return tunables;
}

void afx_user_scan(char *const *envp, bool secure, struct afx_user_settings *out)
{
    struct afx_user_settings old;
    *out = (struct afx_user_settings){ 0 };
    /* Both tunables are SXID_IGNORE: not applied in a secure process. */
    if (envp == NULL || secure)
        return;
    /* The reading of a glibc without the CVE-2023-4911 fix differs only
     * in GLIBC_TUNABLES: a second pass only where there is one. */
    if (!scan(envp, out, false))
        return;
    scan(envp, &old, true);
    if (out->arena_max_from == AFX_UNSET && old.arena_max_from != AFX_UNSET)
        set(&out->arena_max_from, &out->arena_max, AFX_FROM_OLD_TUNABLES, old.arena_max);
    if (out->arena_test_from == AFX_UNSET && old.arena_test_from != AFX_UNSET)
        set(&out->arena_test_from, &out->arena_test, AFX_FROM_OLD_TUNABLES, old.arena_test);
}
