#include "podmanstate.h"

#include <stdio.h>
#include <string.h>

static bool name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || (!first && (c == '_' || c == '.' || c == '-'));
}

bool afx_podman_name(const char *json, size_t len, const char *id, char *out, size_t size)
{
    char key[160];
    if (size > 0)
        out[0] = '\0';
    int k = snprintf(key, sizeof key, "{\"id\":\"%s\",\"names\":[\"", id);
    if (k <= 0 || (size_t)k >= sizeof key || id[0] == '\0' || strchr(id, '"') != NULL)
        return false;
    const char *at = memmem(json, len, key, (size_t)k);
    if (at == NULL)
        return false;
    const char *name = at + k, *end = json + len;
    size_t n = 0;
    while (name + n < end && name_char(name[n], n == 0))
        n++;
    if (n == 0 || name + n >= end || name[n] != '"' || n >= size)
        return false;
    memcpy(out, name, n);
    out[n] = '\0';
    return true;
}
