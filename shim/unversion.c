/* Build tool, run on the freshly linked library (shim.mk): makes the
 * reference to each named symbol unversioned, and drops the version it
 * carried from the needs where no other reference carries it.
 *
 * __libc_single_threaded exists from glibc 2.32, in that version only;
 * pthread_getattr_default_np from 2.18.  A reference with that version
 * (GNU ld gives it one, weak or not) makes an older glibc's loader
 * refuse the library: "version `GLIBC_2.32' not found"; the need made
 * weak, it prints "weak version ... not found" in every process, and
 * the symbol is a relocation error, missing from the file its version
 * names.  Unversioned, glibc binds it to its default version where it
 * exists, and an older glibc (and musl) leaves the weak reference null.
 *
 *     unversion LIBRARY SYMBOL...
 *
 * Only a weak undefined symbol is changed; any other is an error.  ELF
 * of either class, in the build host's byte order (all the library's
 * targets are little-endian, as are the hosts that build them). */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define EDIT(Ehdr, Shdr, Sym, ST_BIND)                                                        \
    static int edit_##Ehdr(unsigned char *m, size_t size, char **names, int count)           \
    {                                                                                         \
        Ehdr *eh = (Ehdr *)m;                                                                 \
        if (eh->e_shoff == 0 || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Shdr) > size)     \
            return fail("no section headers");                                                \
        Shdr *sh = (Shdr *)(m + eh->e_shoff);                                                 \
        Shdr *dynsym = NULL, *versym = NULL, *verneed = NULL;                                 \
        for (int i = 0; i < eh->e_shnum; i++) {                                               \
            if (sh[i].sh_offset + sh[i].sh_size > size)                                       \
                return fail("a section past the end");                                       \
            if (sh[i].sh_type == SHT_DYNSYM)                                                  \
                dynsym = &sh[i];                                                              \
            else if (sh[i].sh_type == SHT_GNU_versym)                                         \
                versym = &sh[i];                                                              \
            else if (sh[i].sh_type == SHT_GNU_verneed)                                        \
                verneed = &sh[i];                                                             \
        }                                                                                     \
        if (dynsym == NULL || versym == NULL || verneed == NULL || dynsym->sh_link >= eh->e_shnum) \
            return fail("no dynamic symbols or versions");                                    \
        const char *str = (const char *)m + sh[dynsym->sh_link].sh_offset;                    \
        Sym *syms = (Sym *)(m + dynsym->sh_offset);                                           \
        Elf32_Half *vs = (Elf32_Half *)(m + versym->sh_offset);                               \
        size_t n = dynsym->sh_size / sizeof(Sym);                                             \
        for (int k = 0; k < count; k++) {                                                     \
            size_t i;                                                                         \
            for (i = 1; i < n && strcmp(str + syms[i].st_name, names[k]) != 0; i++)           \
                ;                                                                             \
            if (i == n || syms[i].st_shndx != SHN_UNDEF || ST_BIND(syms[i].st_info) != STB_WEAK) \
                return fail2("not a weak undefined symbol", names[k]);                       \
            Elf32_Half ndx = vs[i] & 0x7fff;                                                  \
            vs[i] = VER_NDX_GLOBAL;                                                           \
            if (ndx <= VER_NDX_GLOBAL)                                                        \
                continue;                                                                     \
            size_t users = 0;                                                                 \
            for (size_t j = 1; j < n; j++)                                                    \
                users += syms[j].st_shndx == SHN_UNDEF && (vs[j] & 0x7fff) == ndx;            \
            if (users > 0)                                                                    \
                continue;                                                                     \
            /* Its version is needed by no reference now: dropped from   \
             * the needs (a weak need still makes glibc's loader print a \
             * line, "weak version ... not found", in every process).    \
             */                                                           \
            unsigned char *p = m + verneed->sh_offset;                                        \
            for (;;) {                                                                        \
                Elf32_Verneed *vn = (Elf32_Verneed *)p;                                       \
                Elf32_Vernaux *prev = NULL;                                                   \
                unsigned char *q = p + vn->vn_aux;                                            \
                for (int a = 0; a < vn->vn_cnt; a++) {                                        \
                    Elf32_Vernaux *va = (Elf32_Vernaux *)q;                                   \
                    if (va->vna_other == ndx) {                                               \
                        if (vn->vn_cnt == 1)                                                  \
                            return fail2("the only version needed of its file", names[k]);   \
                        if (prev != NULL)                                                     \
                            prev->vna_next = va->vna_next == 0 ? 0 : prev->vna_next + va->vna_next; \
                        else                                                                  \
                            vn->vn_aux += va->vna_next;                                       \
                        vn->vn_cnt--;                                                         \
                        break;                                                                \
                    }                                                                         \
                    if (va->vna_next == 0)                                                    \
                        break;                                                                \
                    prev = va;                                                                \
                    q += va->vna_next;                                                        \
                }                                                                             \
                if (vn->vn_next == 0)                                                         \
                    break;                                                                    \
                p += vn->vn_next;                                                             \
            }                                                                                 \
        }                                                                                     \
        return 0;                                                                             \
    }

static const char *file;

static int fail(const char *why)
{
    fprintf(stderr, "unversion: %s: %s\n", file, why);
    return 1;
}

static int fail2(const char *why, const char *name)
{
    fprintf(stderr, "unversion: %s: %s: %s\n", file, name, why);
    return 1;
}

EDIT(Elf64_Ehdr, Elf64_Shdr, Elf64_Sym, ELF64_ST_BIND)
EDIT(Elf32_Ehdr, Elf32_Shdr, Elf32_Sym, ELF32_ST_BIND)

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: unversion LIBRARY SYMBOL...\n");
        return 2;
    }
    file = argv[1];
    int fd = open(file, O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr))
        return fail("cannot open, or too short");
    unsigned char *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED || memcmp(m, ELFMAG, SELFMAG) != 0 || m[EI_DATA] != ELFDATA2LSB)
        return fail("not a little-endian ELF file");
    int rc = m[EI_CLASS] == ELFCLASS64 ? edit_Elf64_Ehdr(m, (size_t)st.st_size, argv + 2, argc - 2)
                                       : edit_Elf32_Ehdr(m, (size_t)st.st_size, argv + 2, argc - 2);
    if (munmap(m, (size_t)st.st_size) != 0 || close(fd) != 0)
        return fail("cannot write");
    return rc;
}
