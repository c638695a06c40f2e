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
