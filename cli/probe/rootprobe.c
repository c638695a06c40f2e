/* The image is its owner's: every file of it is opened inside DIR (no
 * symlink leads out of it, openat2 RESOLVE_IN_ROOT or the same walk),
 * regular files only, never blocking, read in bounded pieces, and
 * nothing of it is ever executed: a glibc's state comes from its
 * banner's version alone. */
#include "rootprobe.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "enable/rootdir.h"
#include "escape.h"
#include "inspect/procreport.h"
#include "inspect/verdict.h"
#include "json.h"
#include "library.h"
#include "proc/mappedfile.h"

/* Where images keep glibc's libc.so.6: the multiarch directories
 * (Debian, Ubuntu), then lib64 (Fedora, RHEL, Amazon Linux), then lib
 * (32-bit and older trees). */
static const char *const multiarch[] = {
    "x86_64-linux-gnu", "aarch64-linux-gnu", "i386-linux-gnu", "arm-linux-gnueabihf",
    "powerpc64le-linux-gnu", "s390x-linux-gnu", "riscv64-linux-gnu",
};
static const char *const plain[] = { "usr/lib64", "lib64", "usr/lib", "lib" };

/* The oldest glibc libarenafix loads in (it asks for no symbol version
 * newer than GLIBC_2.17: make check-exports), and the first it does
 * anything in: before 2.34 it stands down, as on musl. */
#define NEEDED_MINOR 17
#define AFFECTED_MINOR 34

enum libc { LIBC_NONE, LIBC_GLIBC, LIBC_MUSL };

struct image {
    enum libc libc;
    char path[PATH_MAX];        /* inside DIR, "" if none */
    char version[32];           /* glibc's banner's; "" if none */
    char arch[32];              /* of its libc; "" if unknown */
    enum afx_glibc_state state;
    bool old;                   /* older than 2.34 */
};

/* ELF machine and class as a name; "" if not ELF or unknown. */
static void elf_arch(int fd, char *out, size_t size)
{
    unsigned char h[64];
    out[0] = '\0';
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
        return;
    bool wide = h[EI_CLASS] == ELFCLASS64;
    unsigned m = h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
    const char *name = m == EM_X86_64    ? (wide ? "x86_64" : "x32")
                       : m == EM_386     ? "i386"
                       : m == EM_AARCH64 ? "aarch64"
                       : m == EM_ARM     ? "arm"
                       : m == EM_PPC64   ? "ppc64"
                       : m == EM_S390    ? "s390x"
                       : m == EM_RISCV   ? (wide ? "riscv64" : "riscv32")
                                         : "";
    if (name[0] == '\0')
        snprintf(out, size, "ELF machine %u", m);
    else
        snprintf(out, size, "%s", name);
}

/* rel in the image, for reading: an fd, or -1. */
static int open_in(const struct afx_root *r, const char *rel)
{
    return afx_root_open_file(r, rel);
}

static bool find_glibc(const struct afx_root *r, struct image *im)
{
    char rel[PATH_MAX];
    for (size_t i = 0; i < 2 * (sizeof multiarch / sizeof multiarch[0]) + sizeof plain / sizeof plain[0]; i++) {
        size_t n = sizeof multiarch / sizeof multiarch[0];
        if (i < 2 * n)
            snprintf(rel, sizeof rel, "%s/%s/libc.so.6", i % 2 ? "lib" : "usr/lib", multiarch[i / 2]);
        else
            snprintf(rel, sizeof rel, "%s/libc.so.6", plain[i - 2 * n]);
        int fd = open_in(r, rel);
        if (fd < 0)
            continue;
        im->libc = LIBC_GLIBC;
        snprintf(im->path, sizeof im->path, "%s", rel);
        elf_arch(fd, im->arch, sizeof im->arch);
        if (!afx_glibc_version(fd, im->version, sizeof im->version))
            im->version[0] = '\0';
        close(fd);
        return true;
    }
    return false;
}

/* musl's loader, its libc: lib/ld-musl-ARCH.so.1. */
static bool find_musl(const struct afx_root *r, struct image *im)
{
    int dir = afx_root_opendir(r, "lib");
    DIR *d = dir >= 0 ? fdopendir(dir) : NULL;
    if (d == NULL) {
        if (dir >= 0)
            close(dir);
        return false;
    }
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n <= 8 || strncmp(e->d_name, "ld-musl-", 8) != 0 || n >= 64)
            continue;
        char rel[80];
        snprintf(rel, sizeof rel, "lib/%s", e->d_name);
        int fd = open_in(r, rel);
        if (fd < 0)
            continue;
        found = true;
        im->libc = LIBC_MUSL;
        snprintf(im->path, sizeof im->path, "%s", rel);
        elf_arch(fd, im->arch, sizeof im->arch);
        close(fd);
    }
    closedir(d);
    return found;
}

/* 2.NN's minor, -1 if not of that form. */
static long minor_of(const char *v)
{
    unsigned major, minor;
    return sscanf(v, "%u.%u", &major, &minor) == 2 && major == 2 ? (long)minor : -1;
}

int afx_probe_root(const char *dir, bool json)
{
    static struct afx_root r;
    static struct image im;
    static struct afx_library lib;
    static char lib_arch[32], why[400], loads_why[300 + PATH_MAX], shown[AFX_ESCAPED_SIZE(PATH_MAX)],
        path[AFX_ESCAPED_SIZE(PATH_MAX)];
    r = (struct afx_root){ .fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) };
    if (r.fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            afx_usage_error("probe: --root %s: no such directory; name an unpacked image or a container's "
                            "/proc/PID/root", dir);
        afx_error("probe: --root %s: %s", dir, strerror(errno));
        return AFX_EXIT_FAIL;
    }
    im = (struct image){ .state = AFX_GLIBC_UNKNOWN };
    if (!find_glibc(&r, &im))
        find_musl(&r, &im);
    close(r.fd);

    bool found_lib = afx_find_library(&lib);
    lib_arch[0] = '\0';
    if (found_lib) {
        int fd = open(lib.file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            elf_arch(fd, lib_arch, sizeof lib_arch);
            close(fd);
        }
    }
    int status;
    const char *verdict, *loads = "no";
    long minor = minor_of(im.version);
    switch (im.libc) {
    case LIBC_MUSL:
        verdict = "not affected";
        status = AFX_EXIT_OK;
        snprintf(why, sizeof why, "its libc is musl, which has no malloc arenas: glibc bug 30945 does not apply");
        loads = "stands down";
        snprintf(loads_why, sizeof loads_why, "libarenafix loads on musl and does nothing there: the programs "
                 "run as without it");
        break;
    case LIBC_GLIBC:
        im.state = afx_glibc_state_by_version(im.version);
        im.old = minor >= 0 && minor < NEEDED_MINOR;
        if (im.version[0] == '\0') {
            verdict = "cannot tell";
            status = AFX_EXIT_UNKNOWN;
            snprintf(why, sizeof why, "its libc.so.6 names no glibc version");
        } else if (im.state == AFX_GLIBC_FIXED) {
            verdict = "not affected";
            status = AFX_EXIT_OK;
            snprintf(why, sizeof why, "glibc %s counts the online CPUs (the bug is in 2.34 to 2.38)", im.version);
        } else {
            verdict = "cannot tell";
            status = AFX_EXIT_UNKNOWN;
            snprintf(why, sizeof why, "glibc %s is of the affected releases (2.34 to 2.38), fixed only where its "
                     "distribution backported the fix; nothing of the image is run: probe a running process of it "
                     "(arenafix inspect PID), or its glibc where you trust it (arenafix probe --glibc DIR)",
                     im.version);
        }
        if (im.old)
            snprintf(loads_why, sizeof loads_why, "libarenafix needs glibc 2.%d or later and this glibc is %s: "
                     "injected, it would stop every program of the image", NEEDED_MINOR, im.version);
        else if (im.version[0] == '\0')
            snprintf(loads_why, sizeof loads_why, "its glibc version is unknown; libarenafix needs glibc 2.%d or "
                     "later", NEEDED_MINOR);
        else if (!found_lib) {
            loads = "cannot tell";
            snprintf(loads_why, sizeof loads_why, "no libarenafix.so found on this host");
        } else if (strcmp(lib_arch, im.arch) != 0)
            snprintf(loads_why, sizeof loads_why, "the image is %s, %s is %s", im.arch[0] ? im.arch : "of "
                     "an unknown architecture", lib.file, lib_arch[0] ? lib_arch : "of an unknown one");
        else if (minor >= 0 && minor < AFFECTED_MINOR) {
            loads = "stands down";
            snprintf(loads_why, sizeof loads_why, "libarenafix loads on glibc %s and does nothing there (the bug "
                     "is in 2.34 to 2.38): the programs run as without it", im.version);
        } else {
            loads = "yes";
            snprintf(loads_why, sizeof loads_why, "glibc %s, of the releases it acts in, on %s", im.version,
                     im.arch);
        }
        break;
    default:
        verdict = "cannot tell";
        status = AFX_EXIT_UNKNOWN;
        snprintf(why, sizeof why, "no libc.so.6 nor musl loader found in it (static programs only, or a libc "
                 "elsewhere)");
        snprintf(loads_why, sizeof loads_why, "no dynamic loader found to preload it");
        break;
    }
    const char *libc = im.libc == LIBC_GLIBC ? "glibc" : im.libc == LIBC_MUSL ? "musl" : "none";
    if (json) {
        struct afx_json j;
        afx_json_begin(&j, stdout);
        afx_json_str(&j, "verdict", verdict);
        afx_json_long(&j, "exit_status", status);
        afx_json_str(&j, "reason", why);
        afx_json_str(&j, "root", dir);
        afx_json_str(&j, "libc", libc);
        afx_json_str(&j, "libc_path", im.path[0] ? im.path : NULL);
        afx_json_str(&j, "glibc", im.version[0] ? im.version : NULL);
        afx_json_str(&j, "glibc_state", im.libc == LIBC_GLIBC ? afx_glibc_state_name(im.state) : NULL);
        afx_json_str(&j, "architecture", im.arch[0] ? im.arch : NULL);
        afx_json_str(&j, "library", found_lib ? lib.file : NULL);
        afx_json_str(&j, "library_loads", loads);
        afx_json_str(&j, "library_loads_reason", loads_why);
        afx_json_bool(&j, "executed", false);
        afx_json_end(&j);
    } else {
        afx_escape(dir, shown, sizeof shown);
        printf("image %s: ", shown);
        if (im.libc == LIBC_GLIBC)
            printf("glibc %s", im.version[0] ? im.version : "(version unknown)");
        else
            printf("%s", im.libc == LIBC_MUSL ? "musl" : "no libc found");
        /* A name in the image is its owner's: escaped. */
        printf("\n  libc:               %s%s%s\n", libc, im.path[0] ? ", " : "", afx_escape(im.path, path, sizeof path));
        printf("  architecture:       %s\n", im.arch[0] ? im.arch : "unknown");
        printf("  libarenafix loads:  %s: %s\n", loads, loads_why);
        printf("  executed:           nothing (read only, inside the directory)\n");
        printf("verdict: %s: %s\n", verdict, why);
    }
    return fflush(stdout) == 0 ? status : AFX_EXIT_FAIL;
}
