#include "elfsym.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

struct tables {
    const ElfW(Sym) *symtab;
    const char *strtab;
    const uint32_t *gnu_hash;
    const uint32_t *sysv_hash;
    const ElfW(Versym) *versym;
    const ElfW(Verdef) *verdef;
};

/* Which definitions count: any (WANT_ANY), the default one (a plain
 * dlsym's: unversioned, or a version not hidden), or that of VERSION
 * (dlvsym's; an object without versions has none). */
enum { WANT_ANY, WANT_DEFAULT, WANT_VERSION };
struct want {
    const char *name;
    int kind;
    const char *version;
};

/* ld.so rewrites these entries to absolute addresses where the section
 * is writable, and leaves them relative where it is not (the vDSO). */
static const void *address(ElfW(Addr) v, ElfW(Addr) base, ElfW(Addr) lo, ElfW(Addr) hi)
{
    if (v >= lo && v < hi)
        return (const void *)v;
    if (v + base >= lo && v + base < hi)
        return (const void *)(v + base);
    return NULL;
}

static bool is_definition(const ElfW(Sym) *s)
{
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    return s->st_shndx != SHN_UNDEF && s->st_value != 0
           && (type == STT_FUNC || type == STT_GNU_IFUNC)
           && (bind == STB_GLOBAL || bind == STB_WEAK);
}

/* strcmp's first call from the library would cost a PLT resolution,
 * several times this loop, in every process at startup. */
static bool same_name(const char *a, const char *b)
{
    while (*a != '\0' && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

/* The name of version NDX in the object's definitions.  Bounded: a
 * corrupt chain must not loop forever. */
static const char *version_name(const struct tables *t, unsigned ndx)
{
    const ElfW(Verdef) *d = t->verdef;
    for (int steps = 0; d != NULL && steps < 4096; steps++) {
        if (d->vd_ndx == ndx && d->vd_cnt > 0) {
            const ElfW(Verdaux) *a = (const ElfW(Verdaux) *)((const char *)d + d->vd_aux);
            return t->strtab + a->vda_name;
        }
        if (d->vd_next == 0)
            break;
        d = (const ElfW(Verdef) *)((const char *)d + d->vd_next);
    }
    return NULL;
}

static bool version_matches(const struct tables *t, uint32_t index, const struct want *w)
{
    if (w->kind == WANT_ANY)
        return true;
    if (w->kind == WANT_DEFAULT)
        return t->versym == NULL || (t->versym[index] & 0x8000) == 0;
    if (t->versym == NULL)
        return false;
    const char *v = version_name(t, t->versym[index] & 0x7fff);
    return v != NULL && same_name(v, w->version);
}

static bool matches(const struct tables *t, uint32_t index, const struct want *w)
{
    const ElfW(Sym) *s = &t->symtab[index];
    return same_name(t->strtab + s->st_name, w->name) && is_definition(s)
           && version_matches(t, index, w);
}

static long gnu_lookup(const struct tables *t, const struct want *w)
{
    const char *name = w->name;
    const uint32_t *h = t->gnu_hash;
    uint32_t nbuckets = h[0], symoffset = h[1], bloom_words = h[2];
    if (nbuckets == 0)
        return -1;
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)&h[4];
    const uint32_t *buckets = (const uint32_t *)&bloom[bloom_words];
    const uint32_t *chain = &buckets[nbuckets];

    uint32_t hash = 5381;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++)
        hash = hash * 33 + *c;
    /* The Bloom filter turns most objects away in a few instructions:
     * every process with the preload asks every object for malloc. */
    enum { BITS = 8 * sizeof(ElfW(Addr)) };
    if (bloom_words != 0) {
        ElfW(Addr) word = bloom[(hash / BITS) % bloom_words];
        ElfW(Addr) bits = (ElfW(Addr))1 << (hash % BITS) | (ElfW(Addr))1 << ((hash >> h[3]) % BITS);
        if ((word & bits) != bits)
            return -1;
    }
    uint32_t i = buckets[hash % nbuckets];
    if (i < symoffset)
        return -1;
    for (;; i++) {
        uint32_t hv = chain[i - symoffset];
        if ((hv | 1) == (hash | 1) && matches(t, i, w))
            return i;
        if (hv & 1)
            return -1;
    }
}

static long sysv_lookup(const struct tables *t, const struct want *w)
{
    const char *name = w->name;
    const uint32_t *h = t->sysv_hash;
    uint32_t nbucket = h[0], nchain = h[1];
    if (nbucket == 0)
        return -1;
    const uint32_t *bucket = &h[2], *chain = &bucket[nbucket];
    uint32_t hash = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) {
        hash = (hash << 4) + *c;
        uint32_t g = hash & 0xf0000000u;
        hash ^= g >> 24;
        hash &= ~g;
    }
    /* Bounded by nchain: a corrupt table must not loop forever. */
    uint32_t steps = 0;
    for (uint32_t i = bucket[hash % nbucket]; i != 0 && i < nchain && steps++ < nchain; i = chain[i])
        if (matches(t, i, w))
            return i;
    return -1;
}

/* The index of W's definition in the object, or -1. */
static long lookup(const ElfW(Dyn) *dyn, ElfW(Addr) base, ElfW(Addr) lo, ElfW(Addr) hi,
                   const struct want *w, const ElfW(Sym) **sym)
{
    struct tables t = { 0 };
    /* Stop once the GNU tables are found: DT_HASH is read only without.
     * The version tables only where a version matters. */
    bool versions = w->kind != WANT_ANY;
    for (; dyn != NULL && dyn->d_tag != DT_NULL
           && (t.symtab == NULL || t.strtab == NULL || t.gnu_hash == NULL || versions);
         dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB:
            t.symtab = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        case DT_STRTAB:
            t.strtab = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        case DT_GNU_HASH:
            t.gnu_hash = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        case DT_HASH:
            t.sysv_hash = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        case DT_VERSYM:
            t.versym = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        case DT_VERDEF:
            t.verdef = address(dyn->d_un.d_ptr, base, lo, hi);
            break;
        }
    }
    if (t.symtab == NULL || t.strtab == NULL)
        return -1;
    long i = t.gnu_hash != NULL ? gnu_lookup(&t, w) : t.sysv_hash != NULL ? sysv_lookup(&t, w) : -1;
    if (i >= 0 && sym != NULL)
        *sym = &t.symtab[i];
    return i;
}

bool afx_elf_defines(const ElfW(Dyn) *dyn, ElfW(Addr) base, ElfW(Addr) lo, ElfW(Addr) hi,
                     const char *name)
{
    struct want w = { name, WANT_ANY, NULL };
    return lookup(dyn, base, lo, hi, &w, NULL) >= 0;
}

struct search {
    struct want want;
    ElfW(Addr) addr;
    const char *file;
    bool contains;
    bool found;
    /* afx_elf_next's: past the object containing addr yet, and what
     * was found. */
    bool next;
    bool past;
    void *value;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    struct search *s = data;
    (void)size;
    const ElfW(Dyn) *dyn = NULL;
    const ElfW(Sym) *sym = NULL;
    ElfW(Addr) lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_LOAD) {
            ElfW(Addr) start = info->dlpi_addr + ph->p_vaddr;
            if (start < lo)
                lo = start;
            if (start + ph->p_memsz > hi)
                hi = start + ph->p_memsz;
        }
    }
    if (s->next && !s->past) {
        s->past = s->addr >= lo && s->addr < hi;
        return 0;
    }
    if (dyn == NULL || lookup(dyn, info->dlpi_addr, lo, hi, &s->want, &sym) < 0)
        return 0;
    /* An indirect function's value is its resolver: none of those the
     * library binds is one; taken for not found. */
    if (s->next && ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC)
        return 0;
    s->value = (void *)(info->dlpi_addr + sym->st_value);
    s->file = info->dlpi_name != NULL ? info->dlpi_name : "";
    s->contains = s->addr >= lo && s->addr < hi;
    s->found = true;
    return 1;
}

bool afx_first_definer(const char *name, const void *addr, const char **file, bool *contains)
{
    struct search s = { .want = { name, WANT_ANY, NULL }, .addr = (ElfW(Addr))addr };
    dl_iterate_phdr(visit, &s);
    if (!s.found)
        return false;
    *file = s.file;
    *contains = s.contains;
    return true;
}

void *afx_elf_next(const char *name, const char *version, const void *self)
{
    struct search s = { .want = { name, version != NULL ? WANT_VERSION : WANT_DEFAULT, version },
                        .addr = (ElfW(Addr))self, .next = true };
    dl_iterate_phdr(visit, &s);
    return s.found ? s.value : NULL;
}
