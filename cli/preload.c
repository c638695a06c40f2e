#include "preload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char separators[] = " :";

bool afx_preload_has(const char *list, const char *name)
{
    size_t want = strlen(name);
    if (list == NULL || want == 0)
        return false;
    for (const char *p = list; *p != '\0';) {
        p += strspn(p, separators);
        size_t len = strcspn(p, separators);
        if (len == want && memcmp(p, name, len) == 0)
            return true;
        p += len;
    }
    return false;
}

char *afx_preload_append(const char *list, const char *entry, const char *alias)
{
    char *out;
    if (list == NULL || list[strspn(list, separators)] == '\0')
        return strdup(entry);
    if (afx_preload_has(list, entry) || (alias != NULL && afx_preload_has(list, alias)))
        return strdup(list);
    /* Appended, not prepended: libraries the user chose keep their place. */
    if (asprintf(&out, "%s:%s", list, entry) < 0)
        return NULL;
    return out;
}

const char *afx_preload_entry_problem(const char *path, bool allow_lib)
{
    if (path[0] != '/')
        return "it is not an absolute path";
    for (const char *p = path; *p != '\0'; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n')
            return "it holds a newline";
        if (c < ' ' || c == 127)
            return "it holds a control character";
        if (c == ' ')
            return "it holds a space, where ld.so splits LD_PRELOAD";
        if (c == ':')
            return "it holds a ':', where ld.so splits LD_PRELOAD";
        if (c > 127)
            return "it holds bytes outside printable ASCII";
        if (c == '$' && !(allow_lib && strncmp(p, "$LIB/", 5) == 0))
            return "it holds a '$', which ld.so expands";
    }
    return NULL;
}
