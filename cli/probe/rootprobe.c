/* The image is its owner's: every file of it is opened inside DIR (no
 * symlink leads out of it, openat2 RESOLVE_IN_ROOT or the same walk),
 * regular files only, never blocking, read in bounded pieces, and
 * nothing of it is ever executed: a glibc's state comes from its
 * banner's version alone. */
#include "rootprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "files/rootdir.h"
#include "escape.h"
#include "libc/elfarch.h"
#include "libc/glibcversion.h"
#include "libc/rootlibc.h"
#include "json.h"
#include "library.h"

/* The oldest glibc libarenafix loads in (it asks for no symbol version
 * newer than GLIBC_2.17: make check-exports), and the first it does
 * anything in: before 2.34 it stands down, as on musl. */
#define NEEDED_MINOR 17

enum libc { LIBC_NONE, LIBC_GLIBC, LIBC_MUSL };

struct image {
    enum libc libc;
    char path[PATH_MAX];        /* inside DIR, "" if none */
    char version[32];           /* glibc's banner's; "" if none */
    char arch[32];              /* of its libc; "" if unknown */
    char unreadable[160];       /* why its libc could not be read, "" if it was */
    enum afx_glibc_state state;
    bool old;                   /* older than 2.34 */
};

/* The image's libc, as the OCI hook finds it (libc/rootlibc.h). */
static void find_libc(const struct afx_root *r, struct image *im)
{
    struct afx_root_libc l;
    int fd = afx_root_libc_find(r, &l);
    if (fd >= 0)
        close(fd);
    im->libc = l.kind == AFX_ROOT_GLIBC ? LIBC_GLIBC : l.kind == AFX_ROOT_MUSL ? LIBC_MUSL : LIBC_NONE;
    /* Said as a path in DIR: "usr/lib/x86_64-linux-gnu/libc.so.6". */
    snprintf(im->path, sizeof im->path, "%s", l.path + strspn(l.path, "/"));
    snprintf(im->version, sizeof im->version, "%s", l.version);
    snprintf(im->arch, sizeof im->arch, "%s", l.arch);
    snprintf(im->unreadable, sizeof im->unreadable, "%s", l.unreadable);
}

/* 2.NN's minor, -1 if not of that form. */
static long minor_of(const char *v)
{
    unsigned major, minor;
    return afx_glibc_version_parse(v, &major, &minor) && major == 2 ? (long)minor : -1;
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
    find_libc(&r, &im);
    close(r.fd);

    bool found_lib = afx_find_library(&lib);
    lib_arch[0] = '\0';
    if (found_lib) {
        int fd = open(lib.file, O_RDONLY | O_CLOEXEC);
        struct afx_elf_id id;
        if (fd >= 0 && afx_elf_id_read(fd, &id))
            afx_elf_arch_name(&id, lib_arch, sizeof lib_arch);
        if (fd >= 0)
            close(fd);
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
        if (im.unreadable[0] != '\0') {
            verdict = "cannot tell";
            status = AFX_EXIT_UNKNOWN;
            snprintf(why, sizeof why, "its libc.so.6 cannot be read: %s", im.unreadable);
        } else if (im.version[0] == '\0') {
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
        else if (minor >= 0 && minor < AFX_GLIBC_FIRST_AFFECTED) {
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
