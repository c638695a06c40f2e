#include "procmaps.h"

#include <string.h>

/* ---- one line ------------------------------------------------------ */

/* Each character's value as a lower-case hex digit, plus one; 0 if it
 * is none.  One load a digit, for the 40 or so of every line of every
 * process's maps a scan reads. */
static const unsigned char hex_digit[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int hexval(char c)
{
    return hex_digit[(unsigned char)c] - 1;
}

/* 1 to `digits` hex digits, as the kernel prints them (lower case).
 * Each character looked at once: a scan parses every line of every
 * process's maps. */
static bool hex(const char **p, const char *end, unsigned long *v, int digits)
{
    const char *q = *p, *stop = end - q > digits ? q + digits : end;
    unsigned long x = 0;
    int d;
    for (; q < stop && (d = hexval(*q)) >= 0; q++)
        x = x << 4 | (unsigned long)d;
    if (q == *p || (q < end && hexval(*q) >= 0))
        return false;   /* none, or more than digits */
    *v = x;
    *p = q;
    return true;
}

static bool decimal(const char **p, const char *end, unsigned long *v)
{
    const char *q = *p;
    unsigned long x = 0;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        if (q - *p == 20 || x > (~0UL - 9) / 10)
            return false;
        x = x * 10 + (unsigned long)(*q - '0');
    }
    if (q == *p)
        return false;
    *v = x;
    *p = q;
    return true;
}

static bool expect(const char **p, const char *end, char c)
{
    if (*p == end || **p != c)
        return false;
    ++*p;
    return true;
}

static bool perms(const char **p, const char *end, char out[5])
{
    static const char allowed[4][2] = { "r-", "w-", "x-", "ps" };
    if (end - *p < 4)
        return false;
    for (int i = 0; i < 4; i++) {
        char c = (*p)[i];
        if (c != allowed[i][0] && c != allowed[i][1])
            return false;
        out[i] = c;
    }
    out[4] = '\0';
    *p += 4;
    return true;
}

bool afx_maps_parse_line(const char *line, size_t len, struct afx_map_line *l)
{
    const char *p = line, *end = line + len;
    const int word = (int)(2 * sizeof(long));
    unsigned long major, minor;
    if (!hex(&p, end, &l->start, word) || !expect(&p, end, '-') || !hex(&p, end, &l->end, word)
        || !expect(&p, end, ' ') || !perms(&p, end, l->perms) || !expect(&p, end, ' ')
        || !hex(&p, end, &l->offset, 16) || !expect(&p, end, ' ') || !hex(&p, end, &major, 8)
        || !expect(&p, end, ':') || !hex(&p, end, &minor, 8) || !expect(&p, end, ' ')
        || !decimal(&p, end, &l->inode) || l->start >= l->end)
        return false;
    if (p < end && *p != ' ')
        return false;
    while (p < end && *p == ' ')
        p++;
    l->dev_major = (unsigned)major;
    l->dev_minor = (unsigned)minor;
    l->path = p;
    l->path_len = (size_t)(end - p);
    return memchr(p, '\0', l->path_len) == NULL;
}

/* ---- library names ------------------------------------------------- */

/* s[0..n) is empty or ".N.N..." (a shared object's version). */
static bool so_versions(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i++] != '.' || i == n || s[i] < '0' || s[i] > '9')
            return false;
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    return true;
}

/* s[0..n) is stem ".so" and optional versions. */
static bool so_name(const char *s, size_t n, const char *stem)
{
    size_t k = strlen(stem);
    return n >= k + 3 && memcmp(s, stem, k) == 0 && memcmp(s + k, ".so", 3) == 0
           && so_versions(s + k + 3, n - k - 3);
}

/* s[0..n) is stem ".so.N...", with a version. */
static bool so_name_versioned(const char *s, size_t n, const char *stem)
{
    return so_name(s, n, stem) && n > strlen(stem) + 3;
}

/* s[0..n) is stem "-2.NN.so", glibc's names before 2.34. */
static bool glibc_old_name(const char *s, size_t n, const char *stem)
{
    size_t k = strlen(stem);
    if (n < k + 6 || memcmp(s, stem, k) != 0 || s[k] != '-' || memcmp(s + n - 3, ".so", 3) != 0)
        return false;
    const char *v = s + k + 1;
    size_t vlen = n - k - 4, digits = 0;
    while (digits < vlen && v[digits] >= '0' && v[digits] <= '9')
        digits++;
    return digits > 0 && digits < vlen && so_versions(v + digits, vlen - digits);
}

/* "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld64.so.2", "ld.so.1",
 * "ld-2.31.so". */
static bool loader_name(const char *s, size_t n)
{
    if (n > 8 && memcmp(s, "ld-linux", 8) == 0) {
        size_t i = 8;
        while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'
                         || s[i] == '_'))
            i++;
        return n - i > 4 && memcmp(s + i, ".so", 3) == 0 && so_versions(s + i + 3, n - i - 3);
    }
    return so_name_versioned(s, n, "ld64") || so_name_versioned(s, n, "ld") || glibc_old_name(s, n, "ld");
}

enum afx_lib afx_lib_kind(const char *path, size_t len)
{
    static const char deleted[] = " (deleted)";
    static const char *const foreign[] = { "libjemalloc", "libtcmalloc", "libtcmalloc_minimal",
                                           "libtcmalloc_and_profiler", "libtcmalloc_debug",
                                           "libtcmalloc_minimal_debug", "libmimalloc",
                                           "libmimalloc-secure", "libmimalloc-debug" };
    if (len >= sizeof deleted - 1 && memcmp(path + len - (sizeof deleted - 1), deleted, sizeof deleted - 1) == 0)
        len -= sizeof deleted - 1;
    const char *base = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            base = path + i + 1;
    size_t n = len - (size_t)(base - path);
    if ((n == 9 && memcmp(base, "libc.so.6", 9) == 0) || glibc_old_name(base, n, "libc"))
        return AFX_LIB_LIBC;
    if (loader_name(base, n))
        return AFX_LIB_LOADER;
    if (so_name(base, n, "libarenafix"))
        return AFX_LIB_ARENAFIX;
    /* musl's loader is its libc: "ld-musl-x86_64.so.1", or the file it
     * links to, "libc.so" (Debian's; glibc's libc.so is a linker script,
     * never mapped), "libc.musl-x86_64.so.1" (Alpine's). */
    if ((n > 8 && memcmp(base, "ld-musl-", 8) == 0) || (n == 7 && memcmp(base, "libc.so", 7) == 0)
        || (n > 10 && memcmp(base, "libc.musl-", 10) == 0))
        return AFX_LIB_MUSL;
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
        if (so_name(base, n, foreign[i]))
            return AFX_LIB_FOREIGN;
    return AFX_LIB_NONE;
}

/* ---- the scan -------------------------------------------------------- */

static bool anonymous(const struct afx_map_line *l)
{
    return l->inode == 0 && l->path_len == 0;
}

static void keep_mapping(struct afx_mapping *dst, const struct afx_map_line *l)
{
    if (dst->path[0] != '\0' || l->path_len >= sizeof dst->path)
        return;
    dst->start = l->start;
    dst->end = l->end;
    dst->dev_major = l->dev_major;
    dst->dev_minor = l->dev_minor;
    dst->inode = l->inode;
    memcpy(dst->path, l->path, l->path_len);
    dst->path[l->path_len] = '\0';
}

/* A heap: its writable head starts on a HEAP_MAX boundary, and either
 * fills the reservation or is followed by the inaccessible rest of it.
 * The head may have merged with a writable neighbour below, so the
 * last boundary inside the mapping is the one that counts; the tail may
 * have merged with a guard page above, so it may end past the
 * reservation.  `next` is the line after, NULL at the end. */
static void check_heap(struct afx_maps *m, const struct afx_map_prev *l, const struct afx_map_line *next)
{
    if (!l->valid || !l->anonymous || strncmp(l->perms, "rw", 2) != 0 || l->end - l->start < 4096)
        return;
    unsigned long at = (l->end - 1) & ~(AFX_HEAP_MAX - 1);
    if (at < l->start)
        return;
    if (l->end != at + AFX_HEAP_MAX
        && !(next != NULL && anonymous(next) && strncmp(next->perms, "---", 3) == 0
             && next->start == l->end && next->end >= at + AFX_HEAP_MAX))
        return;
    if (m->kept < AFX_MAX_HEAPS) {
        m->heap_at[m->kept] = at;
        m->heap_rw[m->kept++] = l->end - at;
    }
    m->heaps++;
}

static void scan_line(struct afx_maps *m, const char *text, size_t len, bool overlong)
{
    struct afx_map_line l;
    m->lines++;
    if (overlong || !afx_maps_parse_line(text, len, &l)) {
        m->bad_lines++;
        check_heap(m, &m->prev, NULL);
        m->prev.valid = false;
        return;
    }
    check_heap(m, &m->prev, &l);
    m->prev = (struct afx_map_prev){ .valid = true, .anonymous = anonymous(&l), .start = l.start,
                                     .end = l.end };
    memcpy(m->prev.perms, l.perms, sizeof l.perms);
    if (m->find != 0 && l.start <= m->find && m->find < l.end)
        keep_mapping(&m->found, &l);
    if (l.perms[2] != 'x')
        return;     /* a library is mapped as code; a data file named like one is not */
    switch (afx_lib_kind(l.path, l.path_len)) {
    case AFX_LIB_LIBC:
        keep_mapping(&m->libc, &l);
        break;
    case AFX_LIB_LOADER:
        keep_mapping(&m->loader, &l);
        break;
    case AFX_LIB_ARENAFIX:
        m->arenafix = true;
        break;
    case AFX_LIB_FOREIGN:
        if (m->foreign[0] == '\0' && l.path_len < sizeof m->foreign) {
            memcpy(m->foreign, l.path, l.path_len);
            m->foreign[l.path_len] = '\0';
        }
        break;
    case AFX_LIB_MUSL:
        m->musl = true;
        break;
    case AFX_LIB_NONE:
        break;
    }
}

void afx_maps_begin(struct afx_maps *m)
{
    /* Not the buffers: they are read only as far as they were written. */
    m->arenafix = m->musl = false;
    m->libc.path[0] = m->loader.path[0] = m->found.path[0] = m->foreign[0] = '\0';
    m->heaps = m->kept = m->lines = m->bad_lines = 0;
    m->find = 0;
    m->prev.valid = false;
    m->used = 0;
    m->overlong = false;
}

void afx_maps_feed(struct afx_maps *m, const char *text, size_t len)
{
    while (len > 0) {
        const char *nl = memchr(text, '\n', len);
        size_t take = nl != NULL ? (size_t)(nl - text) : len;
        if (!m->overlong && m->used + take <= sizeof m->line) {
            memcpy(m->line + m->used, text, take);
            m->used += take;
        } else {
            m->overlong = true;
        }
        if (nl == NULL)
            return;
        scan_line(m, m->line, m->used, m->overlong);
        m->used = 0;
        m->overlong = false;
        text += take + 1;
        len -= take + 1;
    }
}

void afx_maps_end(struct afx_maps *m)
{
    if (m->used > 0 || m->overlong)
        scan_line(m, m->line, m->used, m->overlong);
    m->used = 0;
    m->overlong = false;
    check_heap(m, &m->prev, NULL);
    m->prev.valid = false;
}

void afx_maps_scan(const char *text, struct afx_maps *m)
{
    afx_maps_begin(m);
    afx_maps_feed(m, text, strlen(text));
    afx_maps_end(m);
}
