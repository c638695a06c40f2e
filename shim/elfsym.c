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

static bool matches(const struct tables *t, uint32_t index, const char *name)
{
    const ElfW(Sym) *s = &t->symtab[index];
    return same_name(t->strtab + s->st_name, name) && is_definition(s);
}

static bool gnu_lookup(const struct tables *t, const char *name)
{
    const uint32_t *h = t->gnu_hash;
    uint32_t nbuckets = h[0], symoffset = h[1], bloom_words = h[2];
    if (nbuckets == 0)
        return false;
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
            return false;
    }
    uint32_t i = buckets[hash % nbuckets];
    if (i < symoffset)
        return false;
    for (;; i++) {
        uint32_t hv = chain[i - symoffset];
        if ((hv | 1) == (hash | 1) && matches(t, i, name))
            return true;
        if (hv & 1)
            return false;
    }
}

static bool sysv_lookup(const struct tables *t, const char *name)
{
    const uint32_t *h = t->sysv_hash;
    uint32_t nbucket = h[0], nchain = h[1];
    if (nbucket == 0)
        return false;
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
        if (matches(t, i, name))
            return true;
    return false;
}

bool afx_elf_defines(const ElfW(Dyn) *dyn, ElfW(Addr) base, ElfW(Addr) lo, ElfW(Addr) hi,
                     const char *name)
{
    struct tables t = { 0 };
    /* Stop once the GNU tables are found: DT_HASH is read only without. */
    for (; dyn != NULL && dyn->d_tag != DT_NULL
           && (t.symtab == NULL || t.strtab == NULL || t.gnu_hash == NULL);
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
        }
    }
    if (t.symtab == NULL || t.strtab == NULL)
        return false;
    if (t.gnu_hash != NULL)
        return gnu_lookup(&t, name);
    return t.sysv_hash != NULL && sysv_lookup(&t, name);
}

struct search {
    const char *name;
    ElfW(Addr) addr;
    const char *file;
    bool contains;
    bool found;
};

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    struct search *s = data;
    (void)size;
    const ElfW(Dyn) *dyn = NULL;
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
    if (dyn == NULL || !afx_elf_defines(dyn, info->dlpi_addr, lo, hi, s->name))
        return 0;
    s->file = info->dlpi_name != NULL ? info->dlpi_name : "";
    s->contains = s->addr >= lo && s->addr < hi;
    s->found = true;
    return 1;
}

bool afx_first_definer(const char *name, const void *addr, const char **file, bool *contains)
{
    struct search s = { .name = name, .addr = (ElfW(Addr))addr };
    dl_iterate_phdr(visit, &s);
    if (!s.found)
        return false;
    *file = s.file;
    *contains = s.contains;
    return true;
}
