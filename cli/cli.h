/* What the parts of the arenafix command share: exit statuses, the
 * error line, the subcommands' entry points. */
#ifndef AFX_CLI_H
#define AFX_CLI_H

#include <stdbool.h>

/* Exit statuses, documented in arenafix(1). */
enum {
    AFX_EXIT_OK = 0,          /* done; probe: not affected; inspect: fine */
    AFX_EXIT_FAIL = 1,        /* could not do it (no such PID, permission, I/O) */
    AFX_EXIT_USAGE = 2,       /* bad option or argument */
    AFX_EXIT_AFFECTED = 3,    /* probe: affected; inspect: hit */
    AFX_EXIT_AT_RISK = 4,     /* inspect: at risk */
    AFX_EXIT_UNKNOWN = 5,     /* probe: cannot tell on this host */
    AFX_EXIT_CANNOT_EXEC = 126,
    AFX_EXIT_NOT_FOUND = 127,
};

/* "arenafix: <message>\n" on stderr, one line. */
void afx_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The same, then exit with the usage status. */
_Noreturn void afx_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int afx_cmd_wrap(int argc, char **argv);
int afx_cmd_probe(int argc, char **argv);
int afx_cmd_probe_child(int argc, char **argv);
int afx_cmd_inspect(int argc, char **argv);
int afx_cmd_enable(int argc, char **argv, bool enable);
int afx_cmd_path(int argc, char **argv);
int afx_cmd_status(int argc, char **argv);
int afx_cmd_oci_hook(int argc, char **argv);
int afx_cmd_cdi(int argc, char **argv);
/* arenafix-runtime, the OCI runtime shim: a program of its own. */
int afx_runtime_main(int argc, char **argv);

/* The top-level help on stdout (usage.c). */
void afx_print_usage(void);

/* The hidden subcommand probe runs in its children. */
#define AFX_PROBE_CHILD "__probe-child"

#endif
