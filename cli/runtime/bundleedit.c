#include "bundleedit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc/ocijson.h"

#define ANNOTATION "io.arenafix.enable"
#define ARG_MAX_LEN 4096

bool afx_hook_entry_text_ok(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > ARG_MAX_LEN)
        return false;
    for (; *s != '\0'; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
            return false;
    return true;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static bool member_string(const char *json, size_t len, const char *const *keys, size_t nkeys, char *out,
                          size_t size)
{
    const char *v;
    size_t vlen;
    return afx_json_member(json, len, keys, nkeys, &v, &vlen) && afx_json_string(v, vlen, out, size);
}

/* The entry as JSON text; NULL if it does not fit. */
static char *entry_text(const struct afx_hook_entry *e)
{
    size_t size = strlen(e->path) + 64;
    for (const char *const *a = e->args; *a != NULL; a++)
        size += strlen(*a) + 4;
    char *text = malloc(size);
    if (text == NULL)
        return NULL;
    size_t n = (size_t)snprintf(text, size, "{\"path\": \"%s\", \"args\": [", e->path);
    for (const char *const *a = e->args; *a != NULL; a++)
        n += (size_t)snprintf(text + n, size - n, "%s\"%s\"", a == e->args ? "" : ", ", *a);
    snprintf(text + n, size - n, "]}");
    return text;
}

/* One hook of a stage's array: the same as ours, another arenafix
 * oci-hook that serves the container, or neither. */
static bool serves(const char *hook, size_t len, const struct afx_hook_entry *e, bool annotated, bool *same)
{
    char path[4096], arg[4096];
    const char *args, *v;
    size_t alen, vlen;
    *same = false;
    if (!member_string(hook, len, (const char *const[]){ "path" }, 1, path, sizeof path)
        || !afx_json_member(hook, len, (const char *const[]){ "args" }, 1, &args, &alen))
        return false;
    bool equal = strcmp(path, e->path) == 0, asked = annotated, oci_hook = false;
    size_t i = 0;
    for (; afx_json_element(args, alen, i, &v, &vlen); i++) {
        if (!afx_json_string(v, vlen, arg, sizeof arg))
            return false;
        equal = equal && e->args[i] != NULL && strcmp(arg, e->args[i]) == 0;
        if (i == 1)
            oci_hook = strcmp(arg, "oci-hook") == 0;
        else if (i > 1 && (strcmp(arg, "--always") == 0 || strcmp(arg, "--cdi") == 0))
            asked = true;
    }
    equal = equal && e->args[i] == NULL;
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    *same = equal;
    return equal || (oci_hook && strcmp(base, "arenafix") == 0 && asked);
}

/* A stage's array (hooks.STAGE) holds a hook that serves. */
static bool stage_served(const char *hooks, size_t len, const char *stage, const struct afx_hook_entry *e,
                         bool annotated, char *why, size_t size)
{
    const char *arr, *h;
    size_t alen, hlen;
    bool same;
    if (!afx_json_member(hooks, len, (const char *const[]){ stage }, 1, &arr, &alen))
        return false;
    for (size_t i = 0; afx_json_element(arr, alen, i, &h, &hlen); i++)
        if (serves(h, hlen, e, annotated, &same)) {
            snprintf(why, size, "left alone: hooks.%s runs arenafix's hook already (%s)", stage,
                     same ? "the same entry" : "the engine's hooks.d or CDI entry, which serves this container");
            return true;
        }
    return false;
}

static char *spliced(const char *json, size_t len, size_t at, const char *a, const char *b, const char *c,
                     size_t *out_len)
{
    size_t add = strlen(a) + strlen(b) + strlen(c);
    char *out = malloc(len + add + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, json, at);
    snprintf(out + at, add + 1, "%s%s%s", a, b, c);
    memcpy(out + at + add, json + at, len - at);
    out[len + add] = '\0';
    *out_len = len + add;
    return out;
}

enum afx_bundle_edit afx_bundle_add_hook(const char *config, size_t len, const struct afx_hook_entry *entry,
                                         bool annotated_only, char **out, size_t *out_len, char *why, size_t size)
{
    const char *whole, *hooks, *stage;
    size_t wlen, hlen, slen;
    char flag[16];
    *out = NULL;
    if (!afx_json_member(config, len, NULL, 0, &whole, &wlen) || *skip_blanks(whole, config + len) != '{') {
        snprintf(why, size, "left alone: config.json is not a JSON object");
        return AFX_EDIT_MALFORMED;
    }
    whole = skip_blanks(whole, config + len);
    wlen = (size_t)(config + len - whole);
    if (afx_json_count_members(whole, wlen, "hooks") > 1) {
        snprintf(why, size, "left alone: config.json has more than one \"hooks\"");
        return AFX_EDIT_MALFORMED;
    }
    bool annotated = member_string(config, len, (const char *const[]){ "annotations", ANNOTATION }, 2, flag,
                                   sizeof flag) && strcmp(flag, "true") == 0;
    if (annotated_only && !annotated) {
        snprintf(why, size, "left alone: no annotation " ANNOTATION "=true (annotated-only)");
        return AFX_EDIT_NOT_ASKED;
    }
    char *text = entry_text(entry);
    if (text == NULL) {
        snprintf(why, size, "left alone: out of memory");
        return AFX_EDIT_MALFORMED;
    }
    enum afx_bundle_edit result = AFX_EDIT_MALFORMED;
    size_t at;
    const char *open = "", *close = "";
    bool has_hooks = afx_json_member(config, len, (const char *const[]){ "hooks" }, 1, &hooks, &hlen);
    if (has_hooks && hooks[0] != '{') {
        snprintf(why, size, "left alone: config.json's hooks is not an object");
        goto out;
    }
    if (has_hooks && afx_json_count_members(hooks, hlen, "createRuntime") > 1) {
        snprintf(why, size, "left alone: config.json's hooks has more than one \"createRuntime\"");
        goto out;
    }
    if (has_hooks && (stage_served(hooks, hlen, "createRuntime", entry, annotated, why, size)
                      || stage_served(hooks, hlen, "prestart", entry, annotated, why, size))) {
        result = AFX_EDIT_PRESENT;
        goto out;
    }
    if (has_hooks && afx_json_member(hooks, hlen, (const char *const[]){ "createRuntime" }, 1, &stage, &slen)) {
        const char *first;
        size_t flen;
        if (stage[0] != '[') {
            snprintf(why, size, "left alone: config.json's hooks.createRuntime is not an array");
            goto out;
        }
        /* Last, after the engine's own. */
        at = (size_t)(stage + slen - 1 - config);
        open = afx_json_element(stage, slen, 0, &first, &flen) ? ", " : "";
    } else {
        const char *obj = has_hooks ? hooks : whole;
        size_t olen = has_hooks ? hlen : wlen;
        at = (size_t)(obj + 1 - config);
        bool empty = *skip_blanks(obj + 1, obj + olen) == '}';
        open = has_hooks ? "\"createRuntime\": [" : "\"hooks\": {\"createRuntime\": [";
        close = has_hooks ? (empty ? "]" : "], ") : (empty ? "]}" : "]}, ");
    }
    char *head = malloc(strlen(open) + strlen(text) + 1);
    if (head != NULL) {
        sprintf(head, "%s%s", open, text);
        *out = spliced(config, len, at, head, close, "", out_len);
        free(head);
    }
    if (*out == NULL) {
        snprintf(why, size, "left alone: out of memory");
        goto out;
    }
    snprintf(why, size, "hooks.createRuntime given %.3000s", text);
    result = AFX_EDIT_ADDED;
out:
    free(text);
    return result;
}
