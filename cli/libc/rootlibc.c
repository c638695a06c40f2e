#include "rootlibc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/mappedfile.h"

#if defined(__x86_64__)
#define TRIPLET "x86_64-linux-gnu"
#define LIBDIR64 "lib64"
#define MUSL "ld-musl-x86_64.so.1"
#elif defined(__aarch64__)
#define TRIPLET "aarch64-linux-gnu"
#define LIBDIR64 "lib64"
#define MUSL "ld-musl-aarch64.so.1"
#elif defined(__i386__)
#define TRIPLET "i386-linux-gnu"
#define LIBDIR64 "lib"
#define MUSL "ld-musl-i386.so.1"
#else
#error "no libc directories known for this architecture"
#endif

const char *const afx_libc_dirs[] = {
    "/usr/lib/" TRIPLET, "/lib/" TRIPLET, "/usr/" LIBDIR64, "/" LIBDIR64, NULL,
};

/* Where other architectures keep libc.so.6 (Debian's multiarch, then
 * Fedora's and RHEL's, then the 32-bit or older trees' lib): an image
 * with none of its own but one of these is named by its architecture,
 * not as libc-less. */
static const char *const other_dirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu",
    "/usr/lib/i386-linux-gnu", "/lib/i386-linux-gnu", "/usr/lib/arm-linux-gnueabihf", "/lib/arm-linux-gnueabihf",
    "/usr/lib/powerpc64le-linux-gnu", "/lib/powerpc64le-linux-gnu", "/usr/lib/s390x-linux-gnu", "/lib/s390x-linux-gnu",
    "/usr/lib/riscv64-linux-gnu", "/lib/riscv64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/lib", NULL,
};

static bool own_dir(const char *dir)
{
    for (const char *const *d = afx_libc_dirs; *d != NULL; d++)
        if (strcmp(*d, dir) == 0)
            return true;
    return false;
}

/* The file dir/name as l's libc: its fd, or -1 (none there, or
 * unreadable: then l->unreadable says why, and it counts as found). */
static int take(const struct afx_root *r, const char *dir, const char *name, enum afx_root_libc_kind kind,
                struct afx_root_libc *l)
{
    char path[sizeof l->path];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = afx_root_open_file(r, path);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
        return -1;
    l->kind = kind;
    snprintf(l->path, sizeof l->path, "%s", path);
    snprintf(l->dir, sizeof l->dir, "%s", dir);
    if (fd < 0) {
        snprintf(l->unreadable, sizeof l->unreadable, "%s", errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    l->elf = afx_elf_id_read(fd, &l->id);
    if (l->elf)
        afx_elf_arch_name(&l->id, l->arch, sizeof l->arch);
    if (kind == AFX_ROOT_GLIBC && !afx_glibc_version(fd, l->version, sizeof l->version))
        l->version[0] = '\0';
    return fd;
}

/* The first libc.so.6 in dirs (own: this architecture's; else the
 * others, this architecture's skipped). */
static int find_glibc(const struct afx_root *r, const char *const *dirs, bool own, struct afx_root_libc *l)
{
    for (const char *const *dir = dirs; *dir != NULL && l->kind == AFX_ROOT_NO_LIBC; dir++) {
        if (!own && own_dir(*dir))
            continue;
        int fd = take(r, *dir, "libc.so.6", AFX_ROOT_GLIBC, l);
        if (fd >= 0)
            return fd;
    }
    return -1;
}

/* musl's loader, its libc: this architecture's, else the first
 * /lib/ld-musl-*.so.1 of another. */
static int find_musl(const struct afx_root *r, struct afx_root_libc *l)
{
    int fd = take(r, "/lib", MUSL, AFX_ROOT_MUSL, l);
    if (fd >= 0 || l->kind != AFX_ROOT_NO_LIBC)
        return fd;
    int dir = afx_root_opendir(r, "/lib");
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (d == NULL) {
        if (dir >= 0)
            close(dir);
        return -1;
    }
    for (struct dirent *e; l->kind == AFX_ROOT_NO_LIBC && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 8 && n < 48 && strncmp(e->d_name, "ld-musl-", 8) == 0)
            fd = take(r, "/lib", e->d_name, AFX_ROOT_MUSL, l);
    }
    closedir(d);
    return fd;
}

int afx_root_libc_find(const struct afx_root *r, struct afx_root_libc *l)
{
    *l = (struct afx_root_libc){ .kind = AFX_ROOT_NO_LIBC };
    int fd = find_glibc(r, afx_libc_dirs, true, l);
    if (l->kind == AFX_ROOT_NO_LIBC)
        fd = find_glibc(r, other_dirs, false, l);
    if (l->kind == AFX_ROOT_NO_LIBC)
        fd = find_musl(r, l);
    return fd;
}
