#include "config.h"

#include <stddef.h>
#include <string.h>

const char *const afx_config_names[AFX_VAR_COUNT] = {
    [AFX_VAR_MODE] = "ARENAFIX_MODE",
    [AFX_VAR_ARENA_MAX] = "ARENAFIX_ARENA_MAX",
    [AFX_VAR_VERBOSE] = "ARENAFIX_VERBOSE",
    [AFX_VAR_EAGER] = "ARENAFIX_EAGER",
    [AFX_VAR_LOG] = "ARENAFIX_LOG",
};

static const char *const mode_names[] = {
    [AFX_MODE_MALLOPT] = "mallopt",
    [AFX_MODE_TOUCH] = "touch",
    [AFX_MODE_BOTH] = "both",
    [AFX_MODE_OFF] = "off",
};

const char *afx_mode_name(enum afx_mode mode)
{
    return (unsigned)mode < sizeof mode_names / sizeof mode_names[0] ? mode_names[mode] : "?";
}

/* strcmp, without the library's call of glibc's: bound lazily (and
 * chosen by an IFUNC resolver) at its first call, some 800 instructions
 * in the constructor of every process that sets a variable. */
static bool same(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

static bool parse_mode(const char *s, enum afx_mode *out)
{
    for (size_t i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++) {
        if (same(s, mode_names[i])) {
            *out = (enum afx_mode)i;
            return true;
        }
    }
    return false;
}

static bool parse_bool(const char *s, bool *out)
{
    if (same(s, "1") || same(s, "yes") || same(s, "true")) {
        *out = true;
        return true;
    }
    if (same(s, "0") || same(s, "no") || same(s, "false")) {
        *out = false;
        return true;
    }
    return false;
}

/* Plain decimal in [1, AFX_ARENA_MAX_LIMIT]; nothing else. */
static bool parse_arena_max(const char *s, long *out)
{
    long n = 0;
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9')
            return false;
        n = n * 10 + (*s - '0');
        if (n > AFX_ARENA_MAX_LIMIT)
            return false;
    }
    if (n < 1)
        return false;
    *out = n;
    return true;
}

int afx_config_parse(struct afx_config *cfg, const char *const values[AFX_VAR_COUNT])
{
    int bad = -1;
    cfg->mode = AFX_MODE_MALLOPT;
    cfg->arena_max = 0;
    cfg->verbose = false;
    cfg->eager = false;
    cfg->log = NULL;

    for (int v = 0; v < AFX_VAR_COUNT; v++) {
        const char *s = values[v];
        bool ok = true;
        /* An empty value is how shells unset a variable for one command. */
        if (s == NULL || *s == '\0')
            continue;
        switch (v) {
        case AFX_VAR_MODE:
            ok = parse_mode(s, &cfg->mode);
            break;
        case AFX_VAR_ARENA_MAX:
            ok = parse_arena_max(s, &cfg->arena_max);
            break;
        case AFX_VAR_VERBOSE:
            ok = parse_bool(s, &cfg->verbose);
            break;
        case AFX_VAR_EAGER:
            ok = parse_bool(s, &cfg->eager);
            break;
        case AFX_VAR_LOG:
            cfg->log = s;
            break;
        }
        if (!ok && bad < 0)
            bad = v;
    }
    return bad;
}
