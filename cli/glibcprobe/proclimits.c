#include "proclimits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's names for them (fs/proc/base.c, lnames). */
static const struct {
    int resource;
    const char *name;
} names[] = {
    { RLIMIT_CPU, "Max cpu time" },
    { RLIMIT_FSIZE, "Max file size" },
    { RLIMIT_DATA, "Max data size" },
    { RLIMIT_STACK, "Max stack size" },
    { RLIMIT_CORE, "Max core file size" },
    { RLIMIT_RSS, "Max resident set" },
    { RLIMIT_NPROC, "Max processes" },
    { RLIMIT_NOFILE, "Max open files" },
    { RLIMIT_MEMLOCK, "Max locked memory" },
    { RLIMIT_AS, "Max address space" },
    { RLIMIT_LOCKS, "Max file locks" },
    { RLIMIT_SIGPENDING, "Max pending signals" },
    { RLIMIT_MSGQUEUE, "Max msgqueue size" },
    { RLIMIT_NICE, "Max nice priority" },
    { RLIMIT_RTPRIO, "Max realtime priority" },
    { RLIMIT_RTTIME, "Max realtime timeout" },
};

/* One value after blanks: "unlimited" or a decimal number. */
static bool value(const char **p, const char *end, rlim_t *out)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (end - s >= 9 && memcmp(s, "unlimited", 9) == 0) {
        *out = RLIM_INFINITY;
        s += 9;
    } else {
        if (s == end || *s < '0' || *s > '9')
            return false;
        unsigned long long v = 0;
        for (; s < end && *s >= '0' && *s <= '9'; s++) {
            if (v > (~0ULL - 9) / 10)
                return false;
            v = v * 10 + (unsigned)(*s - '0');
        }
        *out = (rlim_t)v;
    }
    if (s < end && *s != ' ')
        return false;
    *p = s;
    return true;
}

bool afx_limits_parse(const char *text, struct rlimit limits[RLIM_NLIMITS], bool found[RLIM_NLIMITS])
{
    for (int r = 0; r < RLIM_NLIMITS; r++)
        found[r] = false;
    for (const char *line = text; *line != '\0';) {
        const char *end = line + strcspn(line, "\n");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            size_t n = strlen(names[i].name);
            int r = names[i].resource;
            if ((size_t)(end - line) < n || memcmp(line, names[i].name, n) != 0
                || (line + n < end && line[n] != ' '))
                continue;
            const char *p = line + n;
            if (r >= RLIM_NLIMITS || !value(&p, end, &limits[r].rlim_cur) || !value(&p, end, &limits[r].rlim_max))
                return false;
            found[r] = true;
            break;
        }
        line = *end == '\n' ? end + 1 : end;
    }
    return true;
}
