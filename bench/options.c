/* Command-line parsing (options.h).  Hand-written rather than getopt so
 * that it is pure (no globals, no printing) and its errors are ours. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char afb_usage[] =
    "usage: arenafix-bench [OPTIONS]              run the scenario matrix\n"
    "       arenafix-bench [OPTIONS] repro NR_CPU PIN FIX\n"
    "                                             the upstream reproducer (glibc bug 30945)\n"
    "       arenafix-bench --show-placement [--topology XML] [-t N]\n"
    "\n"
    "  -t, --threads N        worker threads (default: one per PU or core, at least 16)\n"
    "  -i, --iterations N     per-thread operations for every workload\n"
    "                         (default: each workload's own)\n"
    "  -w, --workloads LIST   repro,mixed,threads,exec,conn or all\n"
    "  -s, --scenarios LIST   unpinned,pinned,infix,tunable,shim-mallopt,\n"
    "                         shim-touch,shim-both or all\n"
    "  -g, --glibc LIST       system,affected or all\n"
    "  -r, --repeat N         runs of each scenario, interleaved; medians reported (3)\n"
    "                         (times as median [min-max]; they mean something only\n"
    "                         with 8 or more CPUs and no more threads than CPUs)\n"
    "      --placement P      spread (across packages, default) or compact\n"
    "      --unit U           pu (default) or core: one thread per PU or per core\n"
    "      --pin PATH         self, pthread, attr, inherit or hwloc (default self)\n"
    "  -o, --out-dir DIR      write DIR/results.csv, .json and .svg\n"
    "      --csv FILE, --json FILE, --plot FILE.svg|FILE.png\n"
    "      --topology XML     plan against an hwloc XML topology instead of this host\n"
    "      --show-placement   print the placement plan and exit\n"
    "      --affected-glibc DIR   default $ARENAFIX_AFFECTED_GLIBC\n"
    "                         (of a list DIR:DIR..., the first)\n"
    "      --preload LIB      the libarenafix.so to test (default $ARENAFIX_TESTLIB,\n"
    "                         else the installed one)\n"
    "  -q, --quiet            no progress on stderr\n"
    "  -h, --help, --version\n";

void afb_options_default(struct afb_options *o)
{
    memset(o, 0, sizeof *o);
    o->command = AFB_CMD_MATRIX;
    o->workloads = (1u << AFB_W_COUNT) - 1;
    o->scenarios = (1u << AFB_S_COUNT) - 1;
    o->glibcs = (1u << AFB_G_COUNT) - 1;
    o->repeat = 3;
    o->spread = AFB_SPREAD;
    o->unit = AFB_UNIT_PU;
    o->pin = AFB_P_SELF;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A whole-string decimal in [lo, hi]. */
static int parse_long(const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

long afb_parse_set(const char *text, const char *const *names, int n, const char *what,
                   char *err, size_t errlen)
{
    if (strcmp(text, "all") == 0)
        return (1L << n) - 1;
    long set = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char name[64];
        if (len == 0 || len >= sizeof name)
            return fail(err, errlen, "empty or overlong name in %s list '%s'", what, text);
        memcpy(name, p, len);
        name[len] = '\0';
        int i = afb_lookup(names, n, name);
        if (i < 0)
            return fail(err, errlen, "unknown %s '%s'", what, name);
        set |= 1L << i;
        if (p[len] == '\0')
            return set;
        p += len + 1;
    }
}

int afb_parse_bool(const char *text)
{
    static const char *const yes[] = { "true", "yes", "1", "y" };
    static const char *const no[] = { "false", "no", "0", "n" };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcasecmp(text, yes[i]) == 0)
            return 1;
        if (strcasecmp(text, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* Flags that take a value; the rest are switches. */
static const char *const valued[] = {
    "threads", "iterations", "workloads", "scenarios", "glibc", "repeat", "placement",
    "unit", "pin", "out-dir", "csv", "json", "plot", "topology", "affected-glibc",
    "preload",
};
static const struct { char c; const char *name; } shorts[] = {
    { 't', "threads" }, { 'i', "iterations" }, { 'w', "workloads" }, { 's', "scenarios" },
    { 'g', "glibc" }, { 'r', "repeat" }, { 'o', "out-dir" }, { 'q', "quiet" }, { 'h', "help" },
};

static int set_value(struct afb_options *o, const char *name, const char *v, char *err,
                     size_t errlen)
{
    long n;
    if (strcmp(name, "threads") == 0) {
        if (parse_long(v, 1, 4096, &n) != 0)
            return fail(err, errlen, "--threads wants a number from 1 to 4096, not '%s'", v);
        o->threads = (int)n;
    } else if (strcmp(name, "iterations") == 0) {
        if (parse_long(v, 1, 1000000000L, &n) != 0)
            return fail(err, errlen, "--iterations wants a positive number, not '%s'", v);
        o->iterations = n;
    } else if (strcmp(name, "repeat") == 0) {
        if (parse_long(v, 1, 1000, &n) != 0)
            return fail(err, errlen, "--repeat wants a number from 1 to 1000, not '%s'", v);
        o->repeat = (int)n;
    } else if (strcmp(name, "workloads") == 0) {
        if ((n = afb_parse_set(v, afb_workload_names, AFB_W_COUNT, "workload", err, errlen)) < 0)
            return -1;
        o->workloads = (unsigned)n;
    } else if (strcmp(name, "scenarios") == 0) {
        if ((n = afb_parse_set(v, afb_scenario_names, AFB_S_COUNT, "scenario", err, errlen)) < 0)
            return -1;
        o->scenarios = (unsigned)n;
    } else if (strcmp(name, "glibc") == 0) {
        if ((n = afb_parse_set(v, afb_glibc_names, AFB_G_COUNT, "glibc", err, errlen)) < 0)
            return -1;
        o->glibcs = (unsigned)n;
    } else if (strcmp(name, "placement") == 0) {
        if (strcmp(v, "spread") == 0)
            o->spread = AFB_SPREAD;
        else if (strcmp(v, "compact") == 0)
            o->spread = AFB_COMPACT;
        else
            return fail(err, errlen, "--placement is spread or compact, not '%s'", v);
    } else if (strcmp(name, "unit") == 0) {
        if (strcmp(v, "pu") == 0)
            o->unit = AFB_UNIT_PU;
        else if (strcmp(v, "core") == 0)
            o->unit = AFB_UNIT_CORE;
        else
            return fail(err, errlen, "--unit is pu or core, not '%s'", v);
    } else if (strcmp(name, "pin") == 0) {
        int p = afb_lookup(afb_pinpath_names, AFB_P_COUNT, v);
        if (p <= AFB_P_NONE)
            return fail(err, errlen, "--pin is self, pthread, attr, inherit or hwloc, not '%s'", v);
        o->pin = (enum afb_pinpath)p;
    } else {
        const char **slot = strcmp(name, "out-dir") == 0 ? &o->out_dir
                          : strcmp(name, "csv") == 0 ? &o->csv
                          : strcmp(name, "json") == 0 ? &o->json
                          : strcmp(name, "plot") == 0 ? &o->plot
                          : strcmp(name, "topology") == 0 ? &o->topology
                          : strcmp(name, "affected-glibc") == 0 ? &o->affected
                          : &o->preload;
        if (*v == '\0')
            return fail(err, errlen, "--%s wants a non-empty path", name);
        *slot = v;
    }
    return 0;
}

static int set_switch(struct afb_options *o, const char *name, char *err, size_t errlen)
{
    if (strcmp(name, "quiet") == 0)
        o->quiet = true;
    else if (strcmp(name, "help") == 0)
        o->command = AFB_CMD_HELP;
    else if (strcmp(name, "version") == 0)
        o->command = AFB_CMD_VERSION;
    else if (strcmp(name, "show-placement") == 0)
        o->command = AFB_CMD_PLACEMENT;
    else
        return fail(err, errlen, "unknown option '--%s' (see --help)", name);
    return 0;
}

static bool takes_value(const char *name)
{
    for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
        if (strcmp(valued[i], name) == 0)
            return true;
    return false;
}

static int parse_repro(struct afb_options *o, int argc, char **argv, char *err, size_t errlen)
{
    long n;
    if (argc != 3)
        return fail(err, errlen, "repro takes exactly NR_CPU PIN FIX, e.g. 'repro 32 true false'");
    if (parse_long(argv[0], 1, 4096, &n) != 0)
        return fail(err, errlen, "repro: NR_CPU wants a number from 1 to 4096, not '%s'", argv[0]);
    int pin = afb_parse_bool(argv[1]), fix = afb_parse_bool(argv[2]);
    if (pin < 0 || fix < 0)
        return fail(err, errlen, "repro: PIN and FIX are true/false (or yes/no, 1/0), not '%s'",
                    pin < 0 ? argv[1] : argv[2]);
    o->command = AFB_CMD_REPRO;
    o->repro_nr_cpu = (int)n;
    o->repro_pin = pin;
    o->repro_fix = fix;
    return 0;
}

int afb_options_parse(struct afb_options *o, int argc, char **argv, char *err, size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        char name[32];
        const char *value = NULL;
        if (strcmp(arg, "repro") == 0)
            return parse_repro(o, argc - i - 1, argv + i + 1, err, errlen);
        if (strcmp(arg, "run-one") == 0) {
            o->command = AFB_CMD_CHILD;
            o->child_argc = argc - i - 1;
            o->child_argv = argv + i + 1;
            return 0;
        }
        if (arg[0] == '-' && arg[1] == '-' && arg[2] != '\0') {
            size_t len = strcspn(arg + 2, "=");
            if (len >= sizeof name)
                return fail(err, errlen, "unknown option '%s' (see --help)", arg);
            memcpy(name, arg + 2, len);
            name[len] = '\0';
            if (arg[2 + len] == '=')
                value = arg + 3 + len;
        } else if (arg[0] == '-' && arg[1] != '\0' && arg[2] == '\0') {
            size_t k = 0;
            while (k < sizeof shorts / sizeof *shorts && shorts[k].c != arg[1])
                k++;
            if (k == sizeof shorts / sizeof *shorts)
                return fail(err, errlen, "unknown option '%s' (see --help)", arg);
            snprintf(name, sizeof name, "%s", shorts[k].name);
        } else {
            return fail(err, errlen, "unexpected argument '%s' (see --help)", arg);
        }
        if (!takes_value(name)) {
            if (value != NULL)
                return fail(err, errlen, "--%s takes no value", name);
            if (set_switch(o, name, err, errlen) != 0)
                return -1;
            continue;
        }
        if (value == NULL) {
            if (i + 1 >= argc)
                return fail(err, errlen, "--%s needs a value", name);
            value = argv[++i];
        }
        if (set_value(o, name, value, err, errlen) != 0)
            return -1;
    }
    if (o->command == AFB_CMD_MATRIX && (o->workloads == 0 || o->scenarios == 0 || o->glibcs == 0))
        return fail(err, errlen, "nothing to run: empty workload, scenario or glibc list");
    return 0;
}
