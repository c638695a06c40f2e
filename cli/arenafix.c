/* arenafix: run programs with libarenafix, and diagnose glibc bug 30945
 * on a host or in a running process.  This file only dispatches. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "library.h"

#ifndef AFX_VERSION
#define AFX_VERSION "unknown"
#endif

static const char usage[] =
    "Usage: arenafix [OPTIONS] [--] CMD [ARGS...]   run CMD with libarenafix\n"
    "       arenafix probe [--json] [--glibc DIR]    does this host's glibc have the bug?\n"
    "       arenafix inspect [--json] [--no-probe] PID   diagnose a running process\n"
    "       arenafix inspect --all [--json] [--no-probe] every process on this host\n"
    "       arenafix enable [--dry-run] [--root DIR] UNIT    add it to a systemd service\n"
    "       arenafix disable [--dry-run] [--root DIR] UNIT   take it out again\n"
    "       arenafix path [--preload]                print the library's path\n"
    "       arenafix --help | --version\n"
    "\n"
    "Options for CMD:\n"
    "  -m, --mode MODE      mallopt (default), touch, both or off (ARENAFIX_MODE)\n"
    "  -a, --arena-max N    set the arena limit to N instead of 8 x online CPUs\n"
    "  -v, --verbose        the library says on stderr what it decided\n"
    "  -e, --eager          decide when the library loads, not at the first thread\n"
    "\n"
    "Exit status: CMD's own; 126 CMD not executable; 127 CMD not found.\n"
    "probe: 0 not affected, 3 affected, 5 cannot tell.  inspect: 0 fine, 3 hit,\n"
    "4 at risk (--all: the worst there).  All: 1 failure, 2 usage error.\n"
    "See arenafix(1).\n";

int afx_cmd_path(int argc, char **argv)
{
    bool preload = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--preload") == 0)
            preload = true;
        else
            afx_usage_error("path: unknown argument %s; usage: arenafix path [--preload]", argv[i]);
    }
    struct afx_library lib;
    if (!afx_find_library(&lib))
        return AFX_EXIT_FAIL;
    printf("%s\n", preload ? lib.preload : lib.file);
    return fflush(stdout) == 0 ? AFX_EXIT_OK : AFX_EXIT_FAIL;
}

int main(int argc, char **argv)
{
    const char *first = argc > 1 ? argv[1] : "";

    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        fputs(usage, stdout);
        return AFX_EXIT_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("arenafix %s\n", AFX_VERSION);
        return AFX_EXIT_OK;
    }
    /* Subcommands come first; a program of the same name runs with
     * "arenafix -- probe". */
    if (strcmp(first, "probe") == 0)
        return afx_cmd_probe(argc - 1, argv + 1);
    if (strcmp(first, AFX_PROBE_CHILD) == 0)
        return afx_cmd_probe_child(argc - 1, argv + 1);
    if (strcmp(first, "inspect") == 0)
        return afx_cmd_inspect(argc - 1, argv + 1);
    if (strcmp(first, "enable") == 0)
        return afx_cmd_enable(argc - 1, argv + 1, true);
    if (strcmp(first, "disable") == 0)
        return afx_cmd_enable(argc - 1, argv + 1, false);
    if (strcmp(first, "status") == 0)
        return afx_cmd_status(argc - 1, argv + 1);
    if (strcmp(first, "path") == 0)
        return afx_cmd_path(argc - 1, argv + 1);
    return afx_cmd_wrap(argc, argv);
}
