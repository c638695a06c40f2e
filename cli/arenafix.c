/* arenafix: run programs with libarenafix, and diagnose glibc bug 30945
 * on a host or in a running process.  This file only dispatches. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "library.h"

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
    "See arenafix(1).\n";

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

/* The subcommands, by the word that names them. */
static int dispatch(const char *word, int argc, char **argv, bool *found)
{
    *found = true;
    if (strcmp(word, "probe") == 0)
        return afx_cmd_probe(argc, argv);
    if (strcmp(word, "inspect") == 0)
        return afx_cmd_inspect(argc, argv);
    if (strcmp(word, "enable") == 0)
        return afx_cmd_enable(argc, argv, true);
    if (strcmp(word, "disable") == 0)
        return afx_cmd_enable(argc, argv, false);
    if (strcmp(word, "status") == 0)
        return afx_cmd_status(argc, argv);
    if (strcmp(word, "path") == 0)
        return afx_cmd_path(argc, argv);
    if (strcmp(word, "oci-hook") == 0)
        return afx_cmd_oci_hook(argc, argv);
    if (strcmp(word, "cdi") == 0)
        return afx_cmd_cdi(argc, argv);
    *found = false;
    return AFX_EXIT_USAGE;
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
    return found ? status : afx_cmd_wrap(argc, argv);
}
