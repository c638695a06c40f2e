/* Command-line parsing (options.h), with getopt_long as the arenafix
 * command parses its own: "-t4", "-qt 4", "--threads=4" and an
 * unambiguous prefix ("--thr 4") mean what they mean to every GNU tool.
 * getopt's diagnostics are off (opterr): each error is one line of ours,
 * in err; nothing is printed.  optind is reset on every call, so the
 * tests may parse again. */
#include "options.h"

#include <errno.h>
#include <getopt.h>
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

/* The options; those without a letter have a code past any letter's. */
enum { OPT_PLACEMENT = 256, OPT_UNIT, OPT_PIN, OPT_CSV, OPT_JSON, OPT_PLOT, OPT_TOPOLOGY, OPT_AFFECTED,
       OPT_PRELOAD, OPT_SHOW_PLACEMENT, OPT_VERSION };
static const struct option long_options[] = {
    { "threads", required_argument, NULL, 't' },
    { "iterations", required_argument, NULL, 'i' },
    { "workloads", required_argument, NULL, 'w' },
    { "scenarios", required_argument, NULL, 's' },
    { "glibc", required_argument, NULL, 'g' },
    { "repeat", required_argument, NULL, 'r' },
    { "placement", required_argument, NULL, OPT_PLACEMENT },
    { "unit", required_argument, NULL, OPT_UNIT },
    { "pin", required_argument, NULL, OPT_PIN },
    { "out-dir", required_argument, NULL, 'o' },
    { "csv", required_argument, NULL, OPT_CSV },
    { "json", required_argument, NULL, OPT_JSON },
    { "plot", required_argument, NULL, OPT_PLOT },
    { "topology", required_argument, NULL, OPT_TOPOLOGY },
    { "affected-glibc", required_argument, NULL, OPT_AFFECTED },
    { "preload", required_argument, NULL, OPT_PRELOAD },
    { "show-placement", no_argument, NULL, OPT_SHOW_PLACEMENT },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { 0 },
};

/* The long name of option code c (for messages), or NULL. */
static const char *option_name(int c)
{
    for (const struct option *o = long_options; o->name != NULL; o++)
        if (o->val == c)
            return o->name;
    return NULL;
}

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

/* getopt_long's '?' (unknown, ambiguous, or a value given to a switch)
 * or ':' (a value missing) as our message. */
static int option_error(int c, int argc, char **argv, char *err, size_t errlen)
{
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
    const char *name = option_name(optopt);
    if (c == ':')
        return fail(err, errlen, "--%s needs a value", name != NULL ? name : "?");
    if (strncmp(arg, "--", 2) == 0 && strchr(arg, '=') != NULL && name != NULL)
        return fail(err, errlen, "--%s takes no value", name);
    if (strncmp(arg, "--", 2) != 0 && optopt != 0)
        return fail(err, errlen, "unknown option '-%c' (see --help)", optopt);
    size_t len = strcspn(arg + 2, "="), matches = 0;
    for (const struct option *l = long_options; len > 0 && l->name != NULL; l++)
        matches += strncmp(l->name, arg + 2, len) == 0;
    return fail(err, errlen, "%s option '%s' (see --help)", matches > 1 ? "ambiguous" : "unknown", arg);
}

int afb_options_parse(struct afb_options *o, int argc, char **argv, char *err, size_t errlen)
{
    int c;
    optind = 0;     /* glibc: start afresh, as a first call would */
    opterr = 0;
    /* "+": the first word that is not an option ends them (repro, run-one). */
    while ((c = getopt_long(argc, argv, "+:t:i:w:s:g:r:o:qh", long_options, NULL)) != -1) {
        if (c == '?' || c == ':')
            return option_error(c, argc, argv, err, errlen);
        if (c == 'q')
            o->quiet = true;
        else if (c == 'h')
            o->command = AFB_CMD_HELP;
        else if (c == OPT_VERSION)
            o->command = AFB_CMD_VERSION;
        else if (c == OPT_SHOW_PLACEMENT)
            o->command = AFB_CMD_PLACEMENT;
        else if (set_value(o, option_name(c), optarg, err, errlen) != 0)
            return -1;
    }
    if (optind < argc) {
        const char *word = argv[optind];
        if (strcmp(word, "repro") == 0)
            return parse_repro(o, argc - optind - 1, argv + optind + 1, err, errlen);
        if (strcmp(word, "run-one") != 0)
            return fail(err, errlen, "unexpected argument '%s' (see --help)", word);
        o->command = AFB_CMD_CHILD;
        o->child_argc = argc - optind - 1;
        o->child_argv = argv + optind + 1;
        return 0;
    }
    if (o->command == AFB_CMD_MATRIX && (o->workloads == 0 || o->scenarios == 0 || o->glibcs == 0))
        return fail(err, errlen, "nothing to run: empty workload, scenario or glibc list");
    return 0;
}
