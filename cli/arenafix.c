/* arenafix: run programs with libarenafix, and diagnose glibc bug 30945
 * on a host or in a running process.  This file only dispatches. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "library.h"
#include "suggest.h"

#ifndef AFX_VERSION
#define AFX_VERSION "unknown"
#endif

static const char path_usage[] =
    "Usage: arenafix path [--preload]\n"
    "Print the path of the libarenafix.so that the wrapper and enable use.\n"
    "\n"
    "Options:\n"
    "      --preload  the entry as it goes into LD_PRELOAD (with $LIB where\n"
    "                 the library sits in the multiarch directory)\n"
    "  -h, --help     print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix path                                 the library's file\n"
    "  LD_PRELOAD=\"$(arenafix path --preload)\" CMD   preload it by hand\n"
    "\n"
    "Exit status: 0 printed; 1 no library found; 2 usage error.\n"
    "See arenafix-path(1).\n";

int afx_cmd_path(int argc, char **argv)
{
    static const struct option options[] = {
        { "preload", no_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { 0 },
    };
    bool preload = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (c == 'h') {
            fputs(path_usage, stdout);
            return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
        }
        if (c != 'p')
            afx_usage_error("path: unknown option %s; usage: arenafix path [--preload]", argv[optind - 1]);
        preload = true;
    }
    if (optind < argc)
        afx_usage_error("path: unexpected argument %s; usage: arenafix path [--preload]", argv[optind]);
    struct afx_library lib;
    if (!afx_find_library(&lib))
        return AFX_EXIT_FAIL;
    printf("%s\n", preload ? lib.preload : lib.file);
    return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
}

static int enable(int argc, char **argv)
{
    return afx_cmd_enable(argc, argv, true);
}

static int disable(int argc, char **argv)
{
    return afx_cmd_enable(argc, argv, false);
}

/* The subcommands, by the word that names them (help, and the probe's
 * hidden child, are main's). */
static const char *const names[] = {
    "probe", "inspect", "enable", "disable", "status", "path", "oci-hook", "cdi", "help",
};
static int (*const commands[])(int, char **) = {
    afx_cmd_probe, afx_cmd_inspect, enable, disable, afx_cmd_status, afx_cmd_path, afx_cmd_oci_hook, afx_cmd_cdi, NULL,
};
#define SUBCOMMANDS (sizeof names / sizeof names[0])

static int dispatch(const char *word, int argc, char **argv, bool *found)
{
    for (size_t i = 0; i < SUBCOMMANDS; i++)
        if (commands[i] != NULL && strcmp(word, names[i]) == 0) {
            *found = true;
            return commands[i](argc, argv);
        }
    *found = false;
    return AFX_EXIT_USAGE;
}

/* The subcommand word misspells, or NULL. */
static const char *meant(const char *word)
{
    int i = afx_misspelt(word, names, SUBCOMMANDS);
    return i < 0 ? NULL : names[i];
}

static const char help_usage[] =
    "Usage: arenafix help [SUBCOMMAND]\n"
    "Print arenafix's help, or SUBCOMMAND's own (as arenafix SUBCOMMAND --help does).\n"
    "\n"
    "Options:\n"
    "  -h, --help  print this help and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix help        the subcommands and the wrapper's options\n"
    "  arenafix help probe  probe's options\n"
    "\n"
    "Exit status: 0 printed; 2 no such subcommand.\n"
    "See arenafix(1).\n";

/* arenafix help [SUBCOMMAND], as git and systemctl users expect: the
 * subcommand's own --help. */
static int help(int argc, char **argv)
{
    if (argc > 2)
        afx_usage_error("help: one subcommand at a time; usage: arenafix help [SUBCOMMAND]");
    if (argc < 2)
        afx_print_usage();
    else if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        fputs(help_usage, stdout);
    else {
        char *sub_argv[] = { argv[1], (char *)"--help", NULL };
        bool found;
        int status = dispatch(argv[1], 2, sub_argv, &found);
        if (!found && meant(argv[1]) != NULL)
            afx_usage_error("help: no subcommand %s; did you mean %s?", argv[1], meant(argv[1]));
        if (!found)
            afx_usage_error("help: no subcommand %s; arenafix --help lists them", argv[1]);
        return status;
    }
    return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
}

int main(int argc, char **argv)
{
    const char *first = argc > 1 ? argv[1] : "";

    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        afx_print_usage();
        return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("arenafix %s\n", AFX_VERSION);
        return AFX_EXIT_OK;
    }
    /* Subcommands come first; a program of the same name runs with
     * "arenafix -- probe". */
    if (strcmp(first, AFX_PROBE_CHILD) == 0)
        return afx_cmd_probe_child(argc - 1, argv + 1);
    if (strcmp(first, "help") == 0)
        return help(argc - 1, argv + 1);
    bool found;
    int status = dispatch(first, argc - 1, argv + 1, &found);
    if (found)
        return status;
    /* A misspelt subcommand runs nothing, even where a program has
     * that name: "arenafix stat" as root is more likely "status" than
     * stat(1).  A path, or a word after "--" or an option, is CMD. */
    if (first[0] != '-' && strchr(first, '/') == NULL && meant(first) != NULL)
        afx_usage_error("%s: no such subcommand; did you mean %s? (a program named %s runs with "
                        "arenafix -- %s)", first, meant(first), first, first);
    return afx_cmd_wrap(argc, argv);
}
