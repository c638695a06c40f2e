#include "enginestate.h"

#include <string.h>

/* The end of the JSON string that starts at s (at its '"'), past its
 * closing quote; NULL if it does not end.  *escaped set if it holds any. */
static const char *string_end(const char *s, const char *end, bool *escaped)
{
    *escaped = false;
    for (s++; s < end; s++) {
        if (*s == '\\') {
            *escaped = true;
            s++;
        } else if (*s == '"') {
            return s + 1;
        }
    }
    return NULL;
}

bool afx_json_top_string(const char *json, size_t len, const char *key, char *out, size_t size)
{
    const char *s = json, *end = json + len, *found = NULL;
    size_t found_len = 0, key_len = strlen(key);
    int depth = 0;
    bool expect_key = false, closed = false;
    if (size > 0)
        out[0] = '\0';
    while (s < end && !closed) {
        char ch = *s;
        if (ch == '"') {
            bool escaped;
            const char *after = string_end(s, end, &escaped);
            if (after == NULL)
                return false;
            /* A key of the outer object, and its value if a string. */
            if (depth == 1 && expect_key && !escaped && (size_t)(after - s - 2) == key_len
                && memcmp(s + 1, key, key_len) == 0) {
                const char *v = after;
                while (v < end && strchr(" \t\r\n", *v) != NULL && *v != '\0')
                    v++;
                if (v < end && *v == ':')
                    v++;
                while (v < end && strchr(" \t\r\n", *v) != NULL && *v != '\0')
                    v++;
                bool value_escaped;
                const char *value_end = v < end && *v == '"' ? string_end(v, end, &value_escaped) : NULL;
                if (found != NULL)
                    return false;       /* twice: which one would docker take? */
                if (value_end != NULL && !value_escaped) {
                    found = v + 1;
                    found_len = (size_t)(value_end - v - 2);
                } else {
                    found = v, found_len = (size_t)-1;
                }
            }
            expect_key = false;
            s = after;
            continue;
        }
        if (ch == '{' || ch == '[') {
            depth++;
            expect_key = ch == '{';
        } else if (ch == '}' || ch == ']') {
            if (--depth < 0)
                return false;
            closed = depth == 0;
        } else if (ch == ',') {
            /* In an array a ',' is followed by a value, in an object by
             * a key: only the outer object's keys matter here. */
            expect_key = depth == 1;
        }
        s++;
    }
    while (s < end && *s != '\0' && strchr(" \t\r\n", *s) != NULL)
        s++;
    if (!closed || s != end || json[strspn(json, " \t\r\n")] != '{' || found == NULL || found_len == (size_t)-1
        || found_len >= size || memchr(found, '\0', found_len) != NULL)
        return false;
    memcpy(out, found, found_len);
    out[found_len] = '\0';
    return true;
}

static bool name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || (!first && (c == '_' || c == '.' || c == '-'));
}

/* [A-Za-z0-9][A-Za-z0-9_.-]*, at least min and at most max long. */
static bool engine_name(const char *s, size_t min, size_t max)
{
    size_t n = 0;
    while (s[n] != '\0' && name_char(s[n], n == 0))
        n++;
    return s[n] == '\0' && n >= min && n <= max;
}

bool afx_docker_name(const char *json, size_t len, const char *id, char *out, size_t size)
{
    char got[128], name[128];
    if (size > 0)
        out[0] = '\0';
    if (!afx_json_top_string(json, len, "ID", got, sizeof got) || id[0] == '\0' || strcmp(got, id) != 0
        || !afx_json_top_string(json, len, "Name", name, sizeof name) || name[0] != '/'
        || !engine_name(name + 1, 2, sizeof name) || strlen(name + 1) >= size)
        return false;
    strcpy(out, name + 1);
    return true;
}

/* The next argument of argv at *at, NULL at the end or if the last one
 * has no NUL. */
static const char *next_arg(const char *argv, size_t len, size_t *at)
{
    if (*at >= len)
        return NULL;
    const char *arg = argv + *at;
    const char *nul = memchr(arg, '\0', len - *at);
    if (nul == NULL)
        return NULL;
    *at = (size_t)(nul - argv) + 1;
    return arg;
}

bool afx_argv_option(const char *argv, size_t len, const char *option, char *out, size_t size)
{
    size_t at = 0, n = strlen(option);
    const char *arg, *value = NULL;
    if (size > 0)
        out[0] = '\0';
    if (next_arg(argv, len, &at) == NULL)
        return false;   /* the program's name */
    while ((arg = next_arg(argv, len, &at)) != NULL) {
        if (strcmp(arg, "--") == 0)
            break;
        if (strncmp(arg, option, n) == 0 && arg[n] == '=')
            value = arg + n + 1;
        else if (strcmp(arg, option) == 0 && (value = next_arg(argv, len, &at)) == NULL)
            return false;
    }
    if (value == NULL || strlen(value) >= size)
        return false;
    strcpy(out, value);
    return true;
}

bool afx_shim_task(const char *argv, size_t len, char *ns, size_t ns_size, char *id, size_t id_size)
{
    static const char shim[] = "containerd-shim-";
    size_t at = 0;
    const char *prog = next_arg(argv, len, &at), *arg;
    const char *base = prog != NULL ? strrchr(prog, '/') : NULL;
    base = base != NULL ? base + 1 : prog;
    const char *got_ns = NULL, *got_id = NULL;
    if (base == NULL || strncmp(base, shim, sizeof shim - 1) != 0)
        return false;
    while ((arg = next_arg(argv, len, &at)) != NULL) {
        const char **into = strcmp(arg, "-namespace") == 0 ? &got_ns : strcmp(arg, "-id") == 0 ? &got_id : NULL;
        if (into != NULL) {
            if (*into != NULL || (*into = next_arg(argv, len, &at)) == NULL)
                return false;
        }
    }
    if (got_ns == NULL || got_id == NULL || !engine_name(got_ns, 1, 76) || !engine_name(got_id, 1, 76)
        || strlen(got_ns) >= ns_size || strlen(got_id) >= id_size)
        return false;
    strcpy(ns, got_ns);
    strcpy(id, got_id);
    return true;
}
