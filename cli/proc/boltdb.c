#include "boltdb.h"

#include <stdint.h>
#include <string.h>

/* bbolt's page: id u64, flags u16, count u16, overflow u32, then the
 * elements; a meta page's meta after the header. */
#define PAGE_HEADER 16
#define ELEMENT 16
#define BRANCH 0x01
#define LEAF 0x02
#define META 0x04
#define BUCKET_LEAF 0x01
#define MAGIC 0xED0CDAEDu
#define META_SIZE 56            /* magic ... txid, then the checksum */
#define MIN_PAGE 512
#define MAX_PAGE (1u << 16)

static uint16_t u16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t u64(const unsigned char *p)
{
    return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32;
}

/* A page: its bytes (header first) and their number. */
struct page {
    const unsigned char *p;
    size_t len;
};

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The meta at offset off of db, if valid: its page size, root page and
 * transaction. */
static bool meta(const unsigned char *db, size_t len, size_t off, uint32_t *psize, uint64_t *root, uint64_t *txid)
{
    if (off > len || len - off < PAGE_HEADER + META_SIZE + 8)
        return false;
    const unsigned char *m = db + off + PAGE_HEADER;
    if (!(u16(db + off + 8) & META) || u32(m) != MAGIC || u32(m + 4) != 2
        || fnv1a(m, META_SIZE) != u64(m + META_SIZE))
        return false;
    *psize = u32(m + 8);
    *root = u64(m + 16);
    *txid = u64(m + 48);
    return *psize >= MIN_PAGE && *psize <= MAX_PAGE && (*psize & (*psize - 1)) == 0;
}

/* Page id of db, its overflow pages with it. */
static bool page_at(const unsigned char *db, size_t len, uint32_t psize, uint64_t id, struct page *pg)
{
    if (id < 2 || id > len / psize)
        return false;
    size_t off = (size_t)id * psize;
    if (len - off < psize)
        return false;
    uint64_t pages = (uint64_t)u32(db + off + 12) + 1;
    if (pages > (len - off) / psize)
        return false;
    pg->p = db + off;
    pg->len = (size_t)(pages * psize);
    return true;
}

static int compare(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c != 0 ? c : alen < blen ? -1 : alen > blen;
}

/* Element i's key (and, of a leaf, value and flags) in pg, checked to
 * lie inside it. */
static bool element(const struct page *pg, unsigned i, bool leaf, const unsigned char **k, size_t *klen,
                    const unsigned char **v, size_t *vlen, uint32_t *flags, uint64_t *child)
{
    size_t at = PAGE_HEADER + (size_t)i * ELEMENT;
    if (at > pg->len || pg->len - at < ELEMENT)
        return false;
    const unsigned char *e = pg->p + at;
    uint64_t pos = leaf ? u32(e + 4) : u32(e), ks = leaf ? u32(e + 8) : u32(e + 4), vs = leaf ? u32(e + 12) : 0;
    if (at + pos + ks + vs > pg->len)
        return false;
    *k = e + pos;
    *klen = (size_t)ks;
    if (leaf) {
        *v = e + pos + ks;
        *vlen = (size_t)vs;
        *flags = u32(e);
    } else
        *child = u64(e + 8);
    return true;
}

/* A bucket: its root page in the file, or its inline page. */
struct bucket {
    uint64_t root;
    struct page inline_page;
};

/* key in the tree of b: its value and leaf flags. */
static bool lookup(const unsigned char *db, size_t len, uint32_t psize, const struct bucket *b, const unsigned char *key,
                   size_t klen, const unsigned char **val, size_t *vlen, uint32_t *flags)
{
    struct page pg;
    if (b->root == 0)
        pg = b->inline_page;
    else if (!page_at(db, len, psize, b->root, &pg))
        return false;
    for (int depth = 0; depth < AFX_BOLT_DEPTH; depth++) {
        if (pg.len < PAGE_HEADER)
            return false;
        uint16_t kind = u16(pg.p + 8), count = u16(pg.p + 10);
        const unsigned char *k, *v;
        size_t kl, vl;
        uint32_t fl;
        uint64_t child = 0;
        if (kind & LEAF) {
            for (unsigned i = 0; i < count; i++) {
                if (!element(&pg, i, true, &k, &kl, &v, &vl, &fl, NULL))
                    return false;
                if (compare(k, kl, key, klen) == 0) {
                    *val = v;
                    *vlen = vl;
                    *flags = fl;
                    return true;
                }
            }
            return false;
        }
        if (!(kind & BRANCH) || count == 0 || b->root == 0)
            return false;
        /* The last element whose key is not above key (the first if none). */
        uint64_t next = 0;
        for (unsigned i = 0; i < count; i++) {
            if (!element(&pg, i, false, &k, &kl, NULL, NULL, NULL, &child))
                return false;
            if (i > 0 && compare(k, kl, key, klen) > 0)
                break;
            next = child;
        }
        if (!page_at(db, len, psize, next, &pg))
            return false;
    }
    return false;
}

/* The bucket whose value (a bucket leaf's) is v. */
static bool bucket_of(const unsigned char *v, size_t vlen, struct bucket *b)
{
    if (vlen < 16)
        return false;
    b->root = u64(v);
    b->inline_page.p = v + 16;
    b->inline_page.len = vlen - 16;
    return true;
}

bool afx_bolt_get(const unsigned char *db, size_t len, const char *const *buckets, size_t nbuckets,
                  const char *key, size_t klen, const unsigned char **val, size_t *vlen)
{
    uint32_t ps0 = 0, ps1 = 0, psize;
    uint64_t root0 = 0, root1 = 0, tx0 = 0, tx1 = 0;
    bool ok0 = meta(db, len, 0, &ps0, &root0, &tx0);
    bool ok1 = ok0 ? meta(db, len, ps0, &ps1, &root1, &tx1) : false;
    if (!ok0)
        /* The first meta torn: the second at each page size. */
        for (uint32_t s = MIN_PAGE; s <= MAX_PAGE && !ok1; s *= 2)
            ok1 = meta(db, len, s, &ps1, &root1, &tx1) && ps1 == s;
    if (ok1 && ps1 != (ok0 ? ps0 : ps1))
        ok1 = false;
    if (!ok0 && !ok1)
        return false;
    struct bucket b = { 0 };
    bool second = ok1 && (!ok0 || tx1 > tx0);
    b.root = second ? root1 : root0;
    psize = second ? ps1 : ps0;
    if (b.root == 0)
        return false;
    const unsigned char *v;
    size_t vl;
    uint32_t flags;
    for (size_t i = 0; i < nbuckets; i++) {
        if (!lookup(db, len, psize, &b, (const unsigned char *)buckets[i], strlen(buckets[i]), &v, &vl, &flags)
            || !(flags & BUCKET_LEAF) || !bucket_of(v, vl, &b))
            return false;
    }
    if (!lookup(db, len, psize, &b, (const unsigned char *)key, klen, &v, &vl, &flags) || (flags & BUCKET_LEAF))
        return false;
    *val = v;
    *vlen = vl;
    return true;
}
