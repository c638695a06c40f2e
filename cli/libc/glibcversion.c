#include "glibcversion.h"

/* Digits, at most 9 of them, as an unsigned; the end in *end. */
static bool number(const char *s, unsigned *out, const char **end)
{
    unsigned long v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9' && p - s < 9; p++)
        v = v * 10 + (unsigned long)(*p - '0');
    *out = (unsigned)v;
    *end = p;
    return p > s && !(*p >= '0' && *p <= '9');
}

bool afx_glibc_version_parse(const char *version, unsigned *major, unsigned *minor)
{
    const char *end;
    if (!number(version, major, &end) || *end != '.' || !number(end + 1, minor, &end))
        return false;
    return *end == '\0' || *end == '.';
}

enum afx_glibc_state afx_glibc_state_by_version(const char *version)
{
    unsigned major, minor;
    if (!afx_glibc_version_parse(version, &major, &minor))
        return AFX_GLIBC_UNKNOWN;
    if (major != 2 || minor < AFX_GLIBC_FIRST_AFFECTED || minor > AFX_GLIBC_LAST_AFFECTED)
        return major >= 2 ? AFX_GLIBC_FIXED : AFX_GLIBC_UNKNOWN;
    return AFX_GLIBC_UNKNOWN;
}

const char *afx_glibc_state_name(enum afx_glibc_state s)
{
    return s == AFX_GLIBC_AFFECTED ? "affected" : s == AFX_GLIBC_FIXED ? "not affected" : "unknown";
}
