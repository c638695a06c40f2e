/* arenafix probe [--json] [--glibc DIR]: does this glibc have bug 30945? */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "elfinfo.h"
#include "hostinfo.h"
#include "json.h"
#include "library.h"
#include "glibcprobe/probe.h"
#include "rootprobe.h"
#include "selfexe.h"

static const char *const verdict_names[] = {
    [AFX_NOT_AFFECTED] = "not affected",
    [AFX_AFFECTED] = "affected",
    [AFX_CANNOT_TELL] = "cannot tell",
};

static const char probe_usage[] =
    "Usage: arenafix probe [--json] [--glibc DIR | --root DIR]\n"
    "Run threads pinned to one CPU under this host's glibc (or the one in DIR) and\n"
    "say whether it takes their malloc arena limit from their affinity (bug 30945).\n"
    "\n"
    "Options:\n"
    "      --glibc DIR  probe the glibc whose ld.so and libc.so.6 are in DIR\n"
    "      --root DIR   judge an image (unpacked, or a container's /proc/PID/root)\n"
    "                   by its libc, read only: glibc version, musl or none, its\n"
    "                   architecture, whether libarenafix can load; runs nothing\n"
    "      --json       one JSON object on stdout, for scripts\n"
    "  -h, --help       print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix probe                         is this host's glibc affected?\n"
    "  arenafix probe --json                  the same, for a script\n"
    "  arenafix probe --glibc /opt/glibc/lib  another glibc than the system's\n"
    "  arenafix probe --root /proc/1234/root  the image a container runs\n"
    "\n"
    "Exit status: 0 not affected; 3 affected; 5 cannot tell on this host (one CPU,\n"
    "or something else limits the arenas); 1 failure; 2 usage error.\n"
    "See arenafix-probe(1).\n";

static int verdict_status(enum afx_verdict v)
{
    return v == AFX_AFFECTED ? AFX_EXIT_AFFECTED : v == AFX_CANNOT_TELL ? AFX_EXIT_UNKNOWN : AFX_EXIT_OK;
}

/* --glibc DIR: its loader has the name ours has. */
static void glibc_from_dir(const char *dir, char *loader, size_t size)
{
    char interp[PATH_MAX], self[32];
    int fd = afx_self_open();
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    bool known = fd >= 0 && afx_exe_interp(self, interp, sizeof interp);
    if (fd >= 0)
        close(fd);
    if (!known) {
        afx_error("cannot read this program's ELF interpreter; --glibc needs a dynamic arenafix");
        exit(AFX_EXIT_FAIL);
    }
    const char *base = strrchr(interp, '/') ? strrchr(interp, '/') + 1 : interp;
    int n = snprintf(loader, size, "%s/%s", dir, base);
    if (n < 0 || (size_t)n >= size || access(loader, X_OK) != 0)
        afx_usage_error("--glibc %s: no executable %s there; name the directory that holds "
                        "the glibc's %s and libc.so.6", dir, base, base);
}

static void print_text(const struct afx_probe *p, const struct afx_host *h, const struct afx_glibc *g,
                       const char *shim)
{
    printf("glibc %s%s%s: %s by glibc bug 30945\n", p->pinned_run.glibc,
           g->loader ? " in " : "", g->loader ? g->libdir : "",
           p->verdict == AFX_CANNOT_TELL ? "cannot tell whether it is affected"
           : p->verdict == AFX_AFFECTED  ? "affected"
                                         : "not affected");
    printf("  online CPUs:        %ld (%s)\n", h->online, h->online_list);
    printf("  process affinity:   %ld (%s)\n", h->allowed, h->allowed_list);
    printf("  isolated CPUs:      %s\n", h->isolated_list[0] ? h->isolated_list : "none");
    if (h->nohz_full_list[0])
        printf("  nohz_full CPUs:     %s\n", h->nohz_full_list);
    printf("  threads:            %d, each pinned to one CPU before its first malloc\n", p->threads);
    printf("  arenas expected:    %ld (one per thread and main's, at most %d x %ld online CPUs)\n",
           p->expected, (int)(sizeof(long) == 4 ? 2 : 8), p->online);
    printf("  arenas, unpinned:   %d\n", p->free_run.arenas);
    printf("  arenas, pinned:     %d\n", p->pinned_run.arenas);
    if (p->shim_tried)
        printf("  with libarenafix:   %d (%s)\n", p->shim_run.arenas, shim);
    else
        printf("  with libarenafix:   not measured (library not found)\n");
    /* A verdict on the shared glibc was read as one on static programs,
     * which carry whichever libc.a they were linked with. */
    printf("  static programs:    not run: each holds the glibc it was linked with; "
           "arenafix inspect PID judges a running one by its arenas\n");
    printf("verdict: %s: %s\n", verdict_names[p->verdict], p->reason);
    if (p->verdict == AFX_AFFECTED) {
        if (p->shim_tried && p->shim_run.arenas >= p->expected)
            printf("fix: run programs that pin threads with `arenafix CMD`; see arenafix(1)\n");
        else
            printf("fix: set MALLOC_ARENA_MAX to 8 x online CPUs, or update glibc\n");
    }
}

static void print_json(const struct afx_probe *p, const struct afx_host *h, const struct afx_glibc *g,
                       const char *shim)
{
    struct afx_json j;
    afx_json_begin(&j, stdout);
    afx_json_str(&j, "verdict", verdict_names[p->verdict]);
    afx_json_long(&j, "exit_status", verdict_status(p->verdict));
    afx_json_str(&j, "reason", p->reason);
    afx_json_str(&j, "glibc", p->pinned_run.glibc);
    afx_json_str(&j, "glibc_dir", g->libdir);
    afx_json_long(&j, "online_cpus", h->online);
    afx_json_str(&j, "online_list", h->online_list);
    afx_json_long(&j, "affinity_cpus", h->allowed);
    afx_json_str(&j, "affinity_list", h->allowed_list);
    afx_json_str(&j, "isolated_list", h->isolated_list);
    afx_json_str(&j, "nohz_full_list", h->nohz_full_list);
    afx_json_long(&j, "threads", p->threads);
    afx_json_long(&j, "pinned_to_cpus", p->pinned_run.sees);
    afx_json_long(&j, "arenas_expected", p->expected);
    afx_json_long(&j, "arenas_unpinned", p->free_run.arenas);
    afx_json_long(&j, "arenas_pinned", p->pinned_run.arenas);
    if (p->shim_tried)
        afx_json_long(&j, "arenas_pinned_with_library", p->shim_run.arenas);
    else
        afx_json_raw(&j, "arenas_pinned_with_library", "null");
    afx_json_str(&j, "library", shim);
    afx_json_end(&j);
}

int afx_cmd_probe(int argc, char **argv)
{
    static const struct option options[] = {
        { "json", no_argument, NULL, 'j' },
        { "glibc", required_argument, NULL, 'g' },
        { "root", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    bool json = false;
    const char *root = NULL;
    char loader[PATH_MAX];
    struct afx_glibc g = { 0 };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'h':
            fputs(probe_usage, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        case 'r':
            root = optarg;
            break;
        case 'g':
            glibc_from_dir(optarg, loader, sizeof loader);
            g.loader = loader;
            g.libdir = optarg;
            break;
        case ':':
            afx_usage_error("probe: %s needs a value; usage: arenafix probe [--json] [--glibc DIR | --root DIR]",
                            argv[optind - 1]);
        default:
            afx_usage_error("probe: unknown option %s; usage: arenafix probe [--json] [--glibc DIR | --root DIR]",
                            argv[optind - 1]);
        }
    }
    if (optind < argc)
        afx_usage_error("probe: unexpected argument %s; usage: arenafix probe [--json] [--glibc DIR | --root DIR]",
                        argv[optind]);
    if (root != NULL && g.loader != NULL)
        afx_usage_error("probe: --glibc and --root exclude each other: --root runs nothing");
    if (root != NULL)
        return afx_probe_root(root, json);

    struct afx_host h;
    afx_host_read(&h);
    if (h.online < 1) {
        afx_error("cannot read /sys/devices/system/cpu/online; mount sysfs and retry");
        return AFX_EXIT_FAIL;
    }
    /* The concrete file, not a $LIB entry: another glibc's loader may
     * expand $LIB differently. */
    struct afx_library lib;
    const char *shim = afx_find_library(&lib) ? lib.file : NULL;

    struct afx_probe p;
    char err[512];
    if (!afx_probe_glibc(&g, h.online, shim, &p, err, sizeof err)) {
        afx_error("probe: %s", err);
        return AFX_EXIT_FAIL;
    }
    if (json)
        print_json(&p, &h, &g, shim);
    else
        print_text(&p, &h, &g, shim);
    return fflush(stdout) == 0 ? verdict_status(p.verdict) : AFX_EXIT_FAIL;
}
