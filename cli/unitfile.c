#include "unitfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Next word of an Environment= value, with systemd's quoting: double or
 * single quotes, backslash escapes.  Returns the rest or NULL at the end. */
static const char *next_word(const char *p, char *out, size_t size)
{
    size_t n = 0;
    p += strspn(p, " \t");
    if (*p == '\0')
        return NULL;
    char quote = 0;
    for (; *p != '\0'; p++) {
        char c = *p;
        if (quote == 0 && (c == ' ' || c == '\t'))
            break;
        if (c == quote) {
            quote = 0;
            continue;
        }
        if (quote == 0 && (c == '"' || c == '\'')) {
            quote = c;
            continue;
        }
        if (c == '\\' && p[1] != '\0')
            c = *++p;
        if (n + 1 < size)
            out[n++] = c;
    }
    out[n] = '\0';
    return p;
}

static void apply_environment(const char *assignments, char **value)
{
    char word[4096];
    if (assignments[strspn(assignments, " \t")] == '\0') {
        free(*value);   /* "Environment=" resets the list */
        *value = NULL;
        return;
    }
    for (const char *p = assignments; (p = next_word(p, word, sizeof word)) != NULL;) {
        if (strncmp(word, "LD_PRELOAD=", 11) == 0) {
            free(*value);
            *value = strdup(word + 11);
        }
    }
}

void afx_unit_ld_preload(const char *text, char **value, bool *environment_files)
{
    bool service = false;
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        char buf[8192];
        if (len >= sizeof buf)
            len = sizeof buf - 1;
        memcpy(buf, line, len);
        buf[len] = '\0';
        char *s = buf + strspn(buf, " \t");
        if (s[0] == '[')
            service = strncmp(s, "[Service]", 9) == 0;
        else if (service && strncmp(s, "Environment=", 12) == 0)
            apply_environment(s + 12, value);
        else if (service && strncmp(s, "EnvironmentFile=", 16) == 0)
            *environment_files = true;
        line = eol ? eol + 1 : NULL;
    }
}

bool afx_unit_name(const char *name, char *service, size_t size)
{
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@";
    size_t len = strlen(name);
    if (len == 0 || name[0] == '.' || name[strspn(name, allowed)] != '\0')
        return false;
    const char *dot = strrchr(name, '.');
    if (dot != NULL && strcmp(dot, ".service") != 0)
        return false;
    if (dot == name + len - 8 && len == 8)
        return false;   /* ".service" alone */
    int n = snprintf(service, size, "%s%s", name, dot ? "" : ".service");
    return n > 0 && (size_t)n < size;
}

char *afx_dropin_text(const char *unit, const char *ld_preload)
{
    /* Inside systemd's double quotes: backslash and quote escaped, and
     * % doubled (specifiers). */
    size_t len = strlen(ld_preload);
    char *quoted = malloc(2 * len + 1), *q = quoted;
    if (quoted == NULL)
        return NULL;
    for (const char *p = ld_preload; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            *q++ = '\\';
        else if (*p == '%')
            *q++ = '%';
        *q++ = *p;
    }
    *q = '\0';
    char *text;
    int n = asprintf(&text,
                     "# Written by arenafix enable; remove with: arenafix disable %s\n"
                     "# Adds libarenafix to the service's LD_PRELOAD, keeping what the\n"
                     "# unit already preloads (see arenafix(1), libarenafix(7)).\n"
                     "[Service]\n"
                     "Environment=\"LD_PRELOAD=%s\"\n",
                     unit, quoted);
    free(quoted);
    return n < 0 ? NULL : text;
}
