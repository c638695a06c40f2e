/* The top-level help: what "arenafix --help", "arenafix help" and the
 * wrapper's own -h print. */
#include <stdio.h>

#include "cli.h"

/* Every description in a block starts at one column (test/cli/test_help.c
 * checks it): keep them lined up when a line is added. */
static const char usage[] =
    "Usage: arenafix [OPTIONS] [--] CMD [ARGS...]\n"
    "       arenafix SUBCOMMAND [OPTIONS...]\n"
    "Run CMD with libarenafix, which gives threads pinned to a few CPUs the malloc\n"
    "arenas a fixed glibc gives them (glibc bug 30945); or check a host for the bug.\n"
    "A first word an edit or two from a subcommand's (inpsect, stat) runs nothing:\n"
    "arenafix -- WORD runs the program of that name.\n"
    "\n"
    "Subcommands:\n"
    "  arenafix probe [--json] [--glibc DIR]         is this host's glibc affected?\n"
    "  arenafix inspect [--json] [--no-probe] PID    diagnose a running process\n"
    "  arenafix inspect --all [--json] [--no-probe]  every process on this host\n"
    "  arenafix enable [OPTIONS] UNIT                add it to a systemd service\n"
    "  arenafix disable [OPTIONS] UNIT               take it out again\n"
    "  arenafix status [--root DIR] [--json]         what arenafix changed here\n"
    "  arenafix path [--preload]                     print the library's path\n"
    "  arenafix oci-hook                             the containers' OCI hook\n"
    "  arenafix cdi [--output FILE]                  the containers' CDI spec\n"
    "  arenafix help [SUBCOMMAND]                    this help, or a subcommand's\n"
    "\n"
    "Options for CMD:\n"
    "  -m, --mode MODE      mallopt (default), touch, both or off (ARENAFIX_MODE)\n"
    "  -a, --arena-max N    set the arena limit to N instead of 8 x online CPUs\n"
    "  -v, --verbose        the library says on stderr what it decided\n"
    "  -e, --eager          decide when the library loads, not at the first thread\n"
    "  -h, --help           print this help and exit\n"
    "  -V, --version        print the version and exit\n"
    "\n"
    "Examples:\n"
    "  arenafix -v ./server           run ./server with the fix; say what it decided\n"
    "  arenafix probe                 is this host's glibc affected?\n"
    "  arenafix inspect --all         which running processes are hit or at risk?\n"
    "  arenafix enable nginx.service  give a service the library (then restart it)\n"
    "  arenafix status                what arenafix changed on this host\n"
    "  arenafix help probe            probe's own options\n"
    "\n"
    "Exit status: CMD's own; 126 CMD not executable; 127 CMD not found.\n"
    "probe: 0 not affected, 3 affected, 5 cannot tell.  inspect: 0 fine, 3 hit,\n"
    "4 at risk (--all: the worst there).  All: 1 failure, 2 usage error.\n"
    "See arenafix(1).\n";

void afx_print_usage(void)
{
    fputs(usage, stdout);
}
