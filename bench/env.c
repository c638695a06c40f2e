/* Scenario environments (env.h). */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *value_of(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return strncmp(entry, name, n) == 0 && entry[n] == '=' ? entry + n + 1 : NULL;
}

const char *afb_env_get(char *const *env, const char *name)
{
    for (; *env != NULL; env++) {
        const char *v = value_of(*env, name);
        if (v != NULL)
            return v;
    }
    return NULL;
}

static int is_arenafix(const char *path, size_t len)
{
    static const char lib[] = "libarenafix.so";
    const char *base = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            base = path + i + 1;
    size_t blen = len - (size_t)(base - path);
    return blen == sizeof lib - 1 && memcmp(base, lib, blen) == 0;
}

/* LD_PRELOAD without libarenafix, then PRELOAD appended (ld.so splits on
 * spaces and colons; we join with colons). */
static char *preload_value(const char *old, const char *preload)
{
    size_t cap = (old ? strlen(old) : 0) + (preload ? strlen(preload) : 0) + 2;
    char *out = calloc(cap, 1);
    size_t len = 0;
    for (const char *p = old; p != NULL && *p != '\0';) {
        size_t n = strcspn(p, ": ");
        if (n > 0 && !is_arenafix(p, n)) {
            if (len > 0)
                out[len++] = ':';
            memcpy(out + len, p, n);
            len += n;
        }
        p += n;
        p += *p != '\0';
    }
    if (preload != NULL) {
        if (len > 0)
            out[len++] = ':';
        strcpy(out + len, preload);
    }
    return out;
}

static char *entry(const char *name, const char *value)
{
    char *s;
    if (asprintf(&s, "%s=%s", name, value) < 0)
        abort();
    return s;
}

char **afb_env_build(char *const *envp, enum afb_scenario s, const char *preload,
                     int arena_max)
{
    size_t n = 0;
    while (envp[n] != NULL)
        n++;
    char **env = calloc(n + 4, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!value_of(envp[i], "LD_PRELOAD") && !value_of(envp[i], "GLIBC_TUNABLES") &&
            !value_of(envp[i], "ARENAFIX_MODE"))
            env[k++] = strdup(envp[i]);

    int shim = s == AFB_S_SHIM_MALLOPT || s == AFB_S_SHIM_TOUCH || s == AFB_S_SHIM_BOTH;
    char *pre = preload_value(afb_env_get(envp, "LD_PRELOAD"), shim ? preload : NULL);
    if (*pre != '\0')
        env[k++] = entry("LD_PRELOAD", pre);
    free(pre);
    if (shim)
        env[k++] = entry("ARENAFIX_MODE", s == AFB_S_SHIM_MALLOPT ? "mallopt"
                                          : s == AFB_S_SHIM_TOUCH ? "touch" : "both");

    /* The tunable adds to the user's other tunables, after them, so it wins. */
    const char *tun = afb_env_get(envp, "GLIBC_TUNABLES");
    if (s == AFB_S_TUNABLE) {
        char *v;
        if (asprintf(&v, "%s%sglibc.malloc.arena_max=%d", tun ? tun : "", tun && *tun ? ":" : "",
                     arena_max) < 0)
            abort();
        env[k++] = entry("GLIBC_TUNABLES", v);
        free(v);
    } else if (tun != NULL) {
        env[k++] = entry("GLIBC_TUNABLES", tun);
    }
    env[k] = NULL;
    return env;
}

void afb_env_free(char **env)
{
    for (char **e = env; *e != NULL; e++)
        free(*e);
    free(env);
}
