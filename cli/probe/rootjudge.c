#include "rootjudge.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The oldest glibc libarenafix loads in (it asks for no symbol version
 * newer than GLIBC_2.17: make check-exports), and the first it does
 * anything in: before 2.34 it stands down, as on musl. */
#define NEEDED_MINOR 17

/* 2.NN's minor, -1 if not of that form. */
static long minor_of(const char *v)
{
    unsigned major, minor;
    return afx_glibc_version_parse(v, &major, &minor) && major == 2 ? (long)minor : -1;
}

/* Bug 30945's verdict on a glibc image. */
static void judge_glibc(const struct afx_image_root_facts *f, struct afx_image_root_verdict *v)
{
    v->state = afx_glibc_state_by_version(f->version);
    v->verdict = "cannot tell";
    v->status = AFX_EXIT_UNKNOWN;
    if (f->unreadable[0] != '\0') {
        snprintf(v->why, sizeof v->why, "its libc.so.6 cannot be read: %s", f->unreadable);
    } else if (f->version[0] == '\0') {
        snprintf(v->why, sizeof v->why, "its libc.so.6 names no glibc version");
    } else if (v->state == AFX_GLIBC_FIXED) {
        v->verdict = "not affected";
        v->status = AFX_EXIT_OK;
        snprintf(v->why, sizeof v->why, "glibc %s counts the online CPUs (the bug is in 2.34 to 2.38)", f->version);
    } else {
        snprintf(v->why, sizeof v->why, "glibc %s is of the affected releases (2.34 to 2.38), fixed only where its "
                 "distribution backported the fix; nothing of the image is run: probe a running process of it "
                 "(arenafix inspect PID), or its glibc where you trust it (arenafix probe --glibc DIR)",
                 f->version);
    }
}

/* Whether libarenafix would load in a glibc image, and why. */
static void judge_loads(const struct afx_image_root_facts *f, struct afx_image_root_verdict *v)
{
    long minor = minor_of(f->version);
    v->loads = "no";
    if (minor >= 0 && minor < NEEDED_MINOR)
        snprintf(v->loads_why, sizeof v->loads_why, "libarenafix needs glibc 2.%d or later and this glibc is %s: "
                 "injected, it would stop every program of the image", NEEDED_MINOR, f->version);
    else if (f->version[0] == '\0')
        snprintf(v->loads_why, sizeof v->loads_why, "its glibc version is unknown; libarenafix needs glibc 2.%d or "
                 "later", NEEDED_MINOR);
    else if (!f->found_lib) {
        v->loads = "cannot tell";
        snprintf(v->loads_why, sizeof v->loads_why, "no libarenafix.so found on this host");
    } else if (strcmp(f->lib_arch, f->arch) != 0)
        snprintf(v->loads_why, sizeof v->loads_why, "the image is %s, %s is %s", f->arch[0] ? f->arch : "of "
                 "an unknown architecture", f->lib_file, f->lib_arch[0] ? f->lib_arch : "of an unknown one");
    else if (minor >= 0 && minor < AFX_GLIBC_FIRST_AFFECTED) {
        v->loads = "stands down";
        snprintf(v->loads_why, sizeof v->loads_why, "libarenafix loads on glibc %s and does nothing there (the bug "
                 "is in 2.34 to 2.38): the programs run as without it", f->version);
    } else {
        v->loads = "yes";
        snprintf(v->loads_why, sizeof v->loads_why, "glibc %s, of the releases it acts in, on %s", f->version,
                 f->arch);
    }
}

void afx_image_root_judge(const struct afx_image_root_facts *f, struct afx_image_root_verdict *v)
{
    *v = (struct afx_image_root_verdict){ .state = AFX_GLIBC_UNKNOWN };
    switch (f->libc) {
    case AFX_ROOT_MUSL:
        v->verdict = "not affected";
        v->status = AFX_EXIT_OK;
        snprintf(v->why, sizeof v->why, "its libc is musl, which has no malloc arenas: glibc bug 30945 does not apply");
        v->loads = "stands down";
        snprintf(v->loads_why, sizeof v->loads_why, "libarenafix loads on musl and does nothing there: the programs "
                 "run as without it");
        break;
    case AFX_ROOT_GLIBC:
        judge_glibc(f, v);
        judge_loads(f, v);
        break;
    default:
        v->verdict = "cannot tell";
        v->status = AFX_EXIT_UNKNOWN;
        snprintf(v->why, sizeof v->why, "no libc.so.6 nor musl loader found in it (static programs only, or a libc "
                 "elsewhere)");
        v->loads = "no";
        snprintf(v->loads_why, sizeof v->loads_why, "no dynamic loader found to preload it");
        break;
    }
}
