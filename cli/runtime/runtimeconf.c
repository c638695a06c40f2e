#include "runtimeconf.h"

#include <stdio.h>
#include <string.h>

#include "bundleedit.h"

#ifndef AFX_BINDIR
#define AFX_BINDIR "/usr/bin"
#endif

void afx_runtime_conf_default(struct afx_runtime_conf *c)
{
    *c = (struct afx_runtime_conf){ 0 };
    snprintf(c->runtime, sizeof c->runtime, "runc");
    snprintf(c->hook, sizeof c->hook, "%s/arenafix", AFX_BINDIR);
    snprintf(c->log, sizeof c->log, "/var/log/arenafix-runtime.log");
}

static void trim(const char **start, const char **end)
{
    while (*start < *end && (**start == ' ' || **start == '\t'))
        (*start)++;
    while (*end > *start && ((*end)[-1] == ' ' || (*end)[-1] == '\t' || (*end)[-1] == '\r'))
        (*end)--;
}

static bool set(struct afx_runtime_conf *c, const char *key, const char *value, char *why, size_t size)
{
    char *dest = strcmp(key, "runtime") == 0 ? c->runtime
                 : strcmp(key, "hook") == 0  ? c->hook
                 : strcmp(key, "log") == 0   ? c->log
                                             : NULL;
    if (strcmp(key, "annotated-only") == 0) {
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
            snprintf(why, size, "annotated-only is true or false, not \"%.64s\"", value);
            return false;
        }
        c->annotated_only = strcmp(value, "true") == 0;
        return true;
    }
    if (dest == NULL) {
        snprintf(why, size, "no key \"%.64s\" (runtime, annotated-only, hook, log)", key);
        return false;
    }
    if (strcmp(key, "log") == 0 && strcmp(value, "none") == 0) {
        c->log[0] = '\0';
        return true;
    }
    /* The runtime may be a name found in PATH; the hook and the log go
     * into config.json as they are. */
    if ((dest != c->runtime && value[0] != '/') || !afx_hook_entry_text_ok(value) || strlen(value) >= PATH_MAX) {
        snprintf(why, size, "%s is an absolute path of printable characters without '\"' or '\\'", key);
        return false;
    }
    snprintf(dest, PATH_MAX, "%s", value);
    return true;
}

bool afx_runtime_conf_parse(struct afx_runtime_conf *c, const char *text, size_t len, char *why, size_t size)
{
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl != NULL ? nl : end, *hash = memchr(p, '#', (size_t)(stop - p));
        const char *k = p, *kend = hash != NULL ? hash : stop;
        p = nl != NULL ? nl + 1 : end;
        trim(&k, &kend);
        if (k == kend)
            continue;
        const char *eq = memchr(k, '=', (size_t)(kend - k));
        char key[64], value[PATH_MAX + 1];
        const char *v = eq != NULL ? eq + 1 : kend, *vend = kend, *kstop = eq != NULL ? eq : kend;
        trim(&k, &kstop);
        trim(&v, &vend);
        if (eq == NULL || kstop == k || (size_t)(kstop - k) >= sizeof key || (size_t)(vend - v) >= sizeof value
            || memchr(k, '\0', (size_t)(vend - k)) != NULL) {
            snprintf(why, size, "line %d is not \"key = value\"", line);
            return false;
        }
        snprintf(key, sizeof key, "%.*s", (int)(kstop - k), k);
        snprintf(value, sizeof value, "%.*s", (int)(vend - v), v);
        char reason[256];
        if (!set(c, key, value, reason, sizeof reason)) {
            snprintf(why, size, "line %d: %s", line, reason);
            return false;
        }
    }
    return true;
}
