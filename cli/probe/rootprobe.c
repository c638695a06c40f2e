/* The image is its owner's: every file of it is opened inside DIR (no
 * symlink leads out of it, openat2 RESOLVE_IN_ROOT or the same walk),
 * regular files only, never blocking, read in bounded pieces, and
 * nothing of it is ever executed: a glibc's state comes from its
 * banner's version alone.  The facts are read here, judged by
 * rootjudge.c (pure), and printed here. */
#include "rootprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "escape.h"
#include "files/rootdir.h"
#include "json.h"
#include "libc/elfarch.h"
#include "libc/glibcversion.h"
#include "libc/rootlibc.h"
#include "library.h"
#include "rootjudge.h"

/* The image's libc, as the OCI hook finds it (libc/rootlibc.h), and
 * this host's library. */
static void read_facts(const struct afx_root *r, struct afx_image_root_facts *f)
{
    static struct afx_library lib;
    struct afx_root_libc l;
    int fd = afx_root_libc_find(r, &l);
    if (fd >= 0)
        close(fd);
    *f = (struct afx_image_root_facts){ .libc = l.kind };
    /* Said as a path in DIR: "usr/lib/x86_64-linux-gnu/libc.so.6". */
    snprintf(f->path, sizeof f->path, "%s", l.path + strspn(l.path, "/"));
    snprintf(f->version, sizeof f->version, "%s", l.version);
    snprintf(f->arch, sizeof f->arch, "%s", l.arch);
    snprintf(f->unreadable, sizeof f->unreadable, "%s", l.unreadable);
    f->found_lib = afx_find_library(&lib);
    if (!f->found_lib)
        return;
    snprintf(f->lib_file, sizeof f->lib_file, "%s", lib.file);
    int lib_fd = open(lib.file, O_RDONLY | O_CLOEXEC);
    struct afx_elf_id id;
    if (lib_fd >= 0 && afx_elf_id_read(lib_fd, &id))
        afx_elf_arch_name(&id, f->lib_arch, sizeof f->lib_arch);
    if (lib_fd >= 0)
        close(lib_fd);
}

static const char *libc_name(enum afx_root_libc_kind k)
{
    return k == AFX_ROOT_GLIBC ? "glibc" : k == AFX_ROOT_MUSL ? "musl" : "none";
}

static void print_json(const char *dir, const struct afx_image_root_facts *f, const struct afx_image_root_verdict *v)
{
    struct afx_json j;
    afx_json_begin(&j, stdout);
    afx_json_str(&j, "verdict", v->verdict);
    afx_json_long(&j, "exit_status", v->status);
    afx_json_str(&j, "reason", v->why);
    afx_json_str(&j, "root", dir);
    afx_json_str(&j, "libc", libc_name(f->libc));
    afx_json_str(&j, "libc_path", f->path[0] ? f->path : NULL);
    afx_json_str(&j, "glibc", f->version[0] ? f->version : NULL);
    afx_json_str(&j, "glibc_state", f->libc == AFX_ROOT_GLIBC ? afx_glibc_state_name(v->state) : NULL);
    afx_json_str(&j, "architecture", f->arch[0] ? f->arch : NULL);
    afx_json_str(&j, "library", f->found_lib ? f->lib_file : NULL);
    afx_json_str(&j, "library_loads", v->loads);
    afx_json_str(&j, "library_loads_reason", v->loads_why);
    afx_json_bool(&j, "executed", false);
    afx_json_end(&j);
}

static void print_text(const char *dir, const struct afx_image_root_facts *f, const struct afx_image_root_verdict *v)
{
    static char shown[AFX_ESCAPED_SIZE(PATH_MAX)], path[AFX_ESCAPED_SIZE(PATH_MAX)];
    afx_escape(dir, shown, sizeof shown);
    printf("image %s: ", shown);
    if (f->libc == AFX_ROOT_GLIBC)
        printf("glibc %s", f->version[0] ? f->version : "(version unknown)");
    else
        printf("%s", f->libc == AFX_ROOT_MUSL ? "musl" : "no libc found");
    /* A name in the image is its owner's: escaped. */
    printf("\n  libc:               %s%s%s\n", libc_name(f->libc), f->path[0] ? ", " : "",
           afx_escape(f->path, path, sizeof path));
    printf("  architecture:       %s\n", f->arch[0] ? f->arch : "unknown");
    printf("  libarenafix loads:  %s: %s\n", v->loads, v->loads_why);
    printf("  executed:           nothing (read only, inside the directory)\n");
    printf("verdict: %s: %s\n", v->verdict, v->why);
}

int afx_probe_root(const char *dir, bool json)
{
    static struct afx_image_root_facts f;
    static struct afx_image_root_verdict v;
    struct afx_root r = { .fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) };
    if (r.fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            afx_usage_error("probe: --root %s: no such directory; name an unpacked image or a container's "
                            "/proc/PID/root", dir);
        afx_error("probe: --root %s: %s", dir, strerror(errno));
        return AFX_EXIT_FAIL;
    }
    read_facts(&r, &f);
    close(r.fd);
    afx_image_root_judge(&f, &v);
    if (json)
        print_json(dir, &f, &v);
    else
        print_text(dir, &f, &v);
    return fflush(stdout) == 0 ? v.status : AFX_EXIT_FAIL;
}
