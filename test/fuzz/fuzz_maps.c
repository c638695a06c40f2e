/* libFuzzer target: inspect's reader of /proc/PID/maps (cli/proc/procmaps.c),
 * input a process controls through its mappings and file names.
 *
 * Oracles, beyond ASan and UBSan:
 *   - the scan is the same however the text is cut into pieces (the
 *     input's first byte picks the cuts) as when it comes whole;
 *   - a line the parser accepts, sscanf reads the same fields from;
 *     a line written in the kernel's format from fields the input
 *     chooses is read back exactly;
 *   - a heap is on a heap boundary, and no more are kept than seen;
 *   - every path kept ends inside its buffer (one of PATH_MAX bytes
 *     does not fit);
 *   - a library is known by its file name alone: the directory does
 *     not matter, and what is taken for libc, ld.so or jemalloc is
 *     named so exactly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/proc/procmaps.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct afx_maps whole, cut;

static void same_scan(const struct afx_maps *a, const struct afx_maps *b)
{
    if (a->heaps != b->heaps || a->kept != b->kept || a->lines != b->lines || a->bad_lines != b->bad_lines
        || a->arenafix != b->arenafix || strcmp(a->libc.path, b->libc.path) != 0
        || a->libc.start != b->libc.start || strcmp(a->loader.path, b->loader.path) != 0
        || strcmp(a->foreign, b->foreign) != 0
        || memcmp(a->heap_at, b->heap_at, (size_t)a->kept * sizeof a->heap_at[0]) != 0
        || memcmp(a->heap_rw, b->heap_rw, (size_t)a->kept * sizeof a->heap_rw[0]) != 0)
        abort();
}

static void check_scan(const struct afx_maps *m, const char *text, size_t len)
{
    long lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += text[i] == '\n';
    lines += len > 0 && text[len - 1] != '\n';
    if (m->lines != lines || m->bad_lines > m->lines || m->kept > m->heaps || m->kept > AFX_MAX_HEAPS
        || m->heaps > m->lines)
        abort();
    for (long i = 0; i < m->kept; i++)
        if (m->heap_at[i] % AFX_HEAP_MAX != 0 || m->heap_rw[i] < 4096)
            abort();
    if (strnlen(m->libc.path, sizeof m->libc.path) == sizeof m->libc.path
        || strnlen(m->loader.path, sizeof m->loader.path) == sizeof m->loader.path
        || strnlen(m->found.path, sizeof m->found.path) == sizeof m->found.path
        || strnlen(m->foreign, sizeof m->foreign) == sizeof m->foreign)
        abort();
    if ((m->libc.path[0] && afx_lib_kind(m->libc.path, strlen(m->libc.path)) != AFX_LIB_LIBC)
        || (m->loader.path[0] && afx_lib_kind(m->loader.path, strlen(m->loader.path)) != AFX_LIB_LOADER)
        || (m->foreign[0] && afx_lib_kind(m->foreign, strlen(m->foreign)) != AFX_LIB_FOREIGN))
        abort();
}

/* Every line the parser takes, sscanf takes the same way. */
static void check_lines(const char *text, size_t len)
{
    static char copy[AFX_MAPS_LINE_MAX + 1];
    for (size_t start = 0; start < len;) {
        const char *nl = memchr(text + start, '\n', len - start);
        size_t n = nl ? (size_t)(nl - (text + start)) : len - start;
        struct afx_map_line l;
        if (n <= AFX_MAPS_LINE_MAX && afx_maps_parse_line(text + start, n, &l)) {
            memcpy(copy, text + start, n);
            copy[n] = '\0';
            unsigned long s, e, off, ino;
            unsigned maj, min;
            char perms[5];
            int pos = 0;
            if (sscanf(copy, "%lx-%lx %4s %lx %x:%x %lu%n", &s, &e, perms, &off, &maj, &min, &ino, &pos) != 7
                || s != l.start || e != l.end || strcmp(perms, l.perms) != 0 || off != l.offset
                || maj != l.dev_major || min != l.dev_minor || ino != l.inode
                || l.path < text + start + pos || l.path + l.path_len != text + start + n)
                abort();
        }
        start += n + 1;
    }
}

/* A line in the kernel's format, fields taken from the input. */
static void check_written(const uint8_t *data, size_t size)
{
    uint64_t k[5] = { 0 };
    memcpy(k, data, size < sizeof k ? size : sizeof k);
    unsigned long start = (unsigned long)k[0], end = start + 1 + (unsigned long)(k[1] & 0xffffffff);
    if (end <= start)
        return;
    static const char *const perms[] = { "r-xp", "rw-p", "---p", "r--s", "rwxs" };
    char line[AFX_MAPS_LINE_MAX], path[256] = "";
    size_t plen = 0;
    for (size_t i = sizeof k; i < size && plen < sizeof path - 1; i++)
        if (data[i] != '\n' && data[i] != '\0')
            path[plen++] = (char)data[i];
    path[plen] = '\0';
    int n = snprintf(line, sizeof line, "%08lx-%08lx %s %08lx %02x:%02x %lu", start, end, perms[k[2] % 5],
                     (unsigned long)k[3], (unsigned)(k[4] & 0xfff), (unsigned)((k[4] >> 12) & 0xfffff),
                     (unsigned long)(k[4] >> 32));
    if (plen > 0 && path[0] != ' ')
        n += snprintf(line + n, sizeof line - (size_t)n, "%*s%s", 26 - n % 26, "", path);
    struct afx_map_line l;
    if (!afx_maps_parse_line(line, (size_t)n, &l) || l.start != start || l.end != end
        || l.offset != (unsigned long)k[3] || l.inode != (unsigned long)(k[4] >> 32)
        || (plen > 0 && path[0] != ' ' && (l.path_len != plen || memcmp(l.path, path, plen) != 0)))
        abort();
}

/* The directory never changes what a library is. */
static void check_names(const uint8_t *data, size_t size)
{
    char a[600], b[600];
    size_t n = size < 200 ? size : 200;
    const char *base = memchr(data, '/', n) ? (const char *)memrchr(data, '/', n) + 1 : (const char *)data;
    size_t blen = n - (size_t)(base - (const char *)data);
    int la = snprintf(a, sizeof a, "/usr/lib/%.*s", (int)blen, base);
    int lb = snprintf(b, sizeof b, "/tmp/x y/\033z/%.*s", (int)blen, base);
    if (afx_lib_kind(a, (size_t)la) != afx_lib_kind(b, (size_t)lb))
        abort();
    enum afx_lib kind = afx_lib_kind(base, blen);
    if (kind == AFX_LIB_LIBC && !(blen >= 9 && memcmp(base, "libc", 4) == 0))
        abort();
    if (kind == AFX_LIB_LOADER && !(blen >= 6 && memcmp(base, "ld", 2) == 0))
        abort();
    if (kind == AFX_LIB_FOREIGN && !(blen > 10 && memcmp(base, "lib", 3) == 0 && memmem(base, blen, ".so", 3)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = data[0] % 61 + 1;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    afx_maps_begin(&whole);
    afx_maps_feed(&whole, text, len);
    afx_maps_end(&whole);
    check_scan(&whole, text, len);

    afx_maps_begin(&cut);
    for (size_t i = 0; i < len; i += step) {
        afx_maps_feed(&cut, text + i, len - i < step ? len - i : step);
        afx_maps_feed(&cut, text + i, 0);
    }
    afx_maps_end(&cut);
    same_scan(&whole, &cut);

    check_lines(text, len);
    check_written(data, size);
    check_names(data, size);
    return 0;
}
