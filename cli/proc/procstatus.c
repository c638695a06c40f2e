#include "procstatus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The line of field name, at its value; NULL if absent. */
static const char *field(const char *text, const char *name, size_t *len)
{
    size_t n = strlen(name);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            p += n + 1;
            *len = strcspn(p, "\n");
            return p;
        }
    }
    return NULL;
}

bool afx_status_field(const char *text, const char *name, char *out, size_t size)
{
    size_t len;
    const char *p = field(text, name, &len);
    if (p == NULL)
        return false;
    size_t blanks = strspn(p, " \t");
    p += blanks < len ? blanks : len;
    len -= blanks < len ? blanks : len;
    if (len >= size)
        len = size - 1;
    memcpy(out, p, len);
    out[len] = '\0';
    return true;
}

/* IDs separated by blanks, as the kernel prints them: at most max of
 * them, each below 2^32 - 1 (the invalid ID). */
static bool ids(const char *p, size_t len, unsigned *out, size_t max, size_t *count)
{
    const char *end = p + len;
    *count = 0;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end)
            return true;
        if (*p < '0' || *p > '9' || *count == max)
            return false;
        unsigned long v = 0;
        for (; p < end && *p >= '0' && *p <= '9'; p++)
            if ((v = v * 10 + (unsigned long)(*p - '0')) >= 0xffffffffUL)
                return false;
        out[(*count)++] = (unsigned)v;
        if (p < end && *p != ' ' && *p != '\t')
            return false;
    }
}

bool afx_status_creds(const char *text, struct afx_creds *c)
{
    size_t len, n;
    const char *p;
    unsigned four[4];
    if ((p = field(text, "Uid", &len)) == NULL || !ids(p, len, four, 4, &n) || n != 4)
        return false;
    for (int i = 0; i < 4; i++)
        c->uid[i] = four[i];
    if ((p = field(text, "Gid", &len)) == NULL || !ids(p, len, four, 4, &n) || n != 4)
        return false;
    for (int i = 0; i < 4; i++)
        c->gid[i] = four[i];
    _Static_assert(sizeof(gid_t) == sizeof(unsigned), "gid_t is 32 bits");
    return (p = field(text, "Groups", &len)) != NULL
           && ids(p, len, (unsigned *)c->groups, AFX_MAX_GROUPS, &c->ngroups);
}

/* Field n (3 or more) of a stat text: counted after the last ')', since
 * the name in parentheses may hold anything, each field after one
 * blank.  Its digits, or NULL if the text is not a stat line or the
 * field not a number. */
static const char *stat_number(const char *text, int n)
{
    const char *p = strrchr(text, ')');
    if (p == NULL || strchr(text, '(') == NULL)
        return NULL;
    p++;
    for (int i = 3; i < n; i++) {
        if (p[0] != ' ' || p[1] == ' ' || p[1] == '\n' || p[1] == '\0')
            return NULL;
        p += 1 + strcspn(p + 1, " \n");
    }
    return p[0] == ' ' && p[1] >= '0' && p[1] <= '9' ? p + 1 : NULL;
}

bool afx_stat_flags(const char *text, unsigned long *flags)
{
    const char *p = stat_number(text, 9);
    if (p == NULL)
        return false;
    char *end;
    *flags = strtoul(p, &end, 10);
    return *end == ' ' || *end == '\n' || *end == '\0';
}

bool afx_stat_start_time(const char *text, unsigned long long *ticks)
{
    const char *p = stat_number(text, 22);
    if (p == NULL)
        return false;
    char *end;
    errno = 0;
    *ticks = strtoull(p, &end, 10);
    return errno == 0 && (*end == ' ' || *end == '\n' || *end == '\0');
}
