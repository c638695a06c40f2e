#include "procmaps.h"

#include <stdio.h>
#include <string.h>

struct line {
    unsigned long start, end;
    char perms[5];
    unsigned long inode;
    const char *path;       /* points into the text; "" if none */
    size_t path_len;
};

/* Parse one maps line; returns the next line's start or NULL at the end. */
static const char *parse_line(const char *p, struct line *l, bool *ok)
{
    const char *eol = strchr(p, '\n');
    const char *next = eol ? eol + 1 : NULL;
    if (!eol)
        eol = p + strlen(p);
    int pos = 0;
    *ok = sscanf(p, "%lx-%lx %4s %*x %*x:%*x %lu%n", &l->start, &l->end, l->perms, &l->inode, &pos) == 4
          && p + pos <= eol;
    /* Not " %n" in the format: that would skip the newline too. */
    while (*ok && p + pos < eol && (p[pos] == ' ' || p[pos] == '\t'))
        pos++;
    l->path = *ok ? p + pos : "";
    l->path_len = *ok ? (size_t)(eol - l->path) : 0;
    return next != NULL && *next != '\0' ? next : NULL;
}

static bool anonymous(const struct line *l)
{
    return l->inode == 0 && l->path_len == 0;
}

static bool basename_starts(const struct line *l, const char *prefix)
{
    const char *base = l->path;
    for (size_t i = 0; i < l->path_len; i++)
        if (l->path[i] == '/')
            base = l->path + i + 1;
    size_t rest = l->path_len - (size_t)(base - l->path);
    return rest >= strlen(prefix) && strncmp(base, prefix, strlen(prefix)) == 0;
}

static void keep_path(char *dst, const struct line *l)
{
    if (dst[0] != '\0' || l->path_len >= PATH_MAX)
        return;
    memcpy(dst, l->path, l->path_len);
    dst[l->path_len] = '\0';
}

/* A heap: its writable head starts on a HEAP_MAX boundary, and either
 * fills the reservation or is followed by the inaccessible rest of it.
 * The head may have merged with a writable neighbour below, so the
 * last boundary inside the mapping is the one that counts; the tail may
 * have merged with a guard page above, so it may end past the
 * reservation. */
static bool heap_head(const struct line *l, const struct line *next, unsigned long *at)
{
    if (!anonymous(l) || strncmp(l->perms, "rw", 2) != 0 || l->end - l->start < 4096)
        return false;
    unsigned long a = (l->end - 1) & ~(AFX_HEAP_MAX - 1);
    if (a < l->start)
        return false;
    *at = a;
    if (l->end == a + AFX_HEAP_MAX)
        return true;
    return next != NULL && anonymous(next) && strncmp(next->perms, "---", 3) == 0
           && next->start == l->end && next->end >= a + AFX_HEAP_MAX;
}

void afx_maps_scan(const char *text, struct afx_maps *m)
{
    memset(m, 0, sizeof *m);
    struct line cur, next;
    bool ok_cur, ok_next = false;
    const char *p = text != NULL && *text != '\0' ? parse_line(text, &cur, &ok_cur) : NULL;
    if (text == NULL || *text == '\0')
        return;
    for (;;) {
        const char *after = p != NULL ? parse_line(p, &next, &ok_next) : NULL;
        const struct line *n = p != NULL && ok_next ? &next : NULL;
        unsigned long at;
        if (ok_cur) {
            if (basename_starts(&cur, "libarenafix"))
                m->arenafix = true;
            else if (basename_starts(&cur, "libc.so.6") || basename_starts(&cur, "libc-2."))
                keep_path(m->libc, &cur);
            else if (basename_starts(&cur, "ld-linux") || basename_starts(&cur, "ld-2.")
                     || basename_starts(&cur, "ld.so"))
                keep_path(m->loader, &cur);
            else if (basename_starts(&cur, "libjemalloc") || basename_starts(&cur, "libtcmalloc")
                     || basename_starts(&cur, "libmimalloc"))
                keep_path(m->foreign, &cur);
            else if (heap_head(&cur, n, &at) && m->heaps < AFX_MAX_HEAPS)
                m->heap_at[m->heaps++] = at;
        }
        if (p == NULL)
            break;
        cur = next;
        ok_cur = ok_next;
        p = after;
    }
}

bool afx_status_field(const char *text, const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, name, len) == 0 && p[len] == ':') {
            p += len + 1;
            p += strspn(p, " \t");
            size_t n = strcspn(p, "\n");
            if (n >= size)
                n = size - 1;
            memcpy(out, p, n);
            out[n] = '\0';
            return true;
        }
    }
    return false;
}
