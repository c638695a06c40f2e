/* runc's command line as runc itself reads it (urfave/cli over Go's
 * flag package): the global options, the subcommand, and for create and
 * run the bundle.  Pure: nothing is opened. */
#ifndef AFX_RUNCARGS_H
#define AFX_RUNCARGS_H

#include <stdbool.h>

struct afx_runc_args {
    int command;            /* argv index of the subcommand, -1 if none */
    bool creates;           /* create or run: a bundle to edit */
    const char *bundle;     /* its --bundle (the last given), "." if none */
    const char *id;         /* create's and run's container ID, NULL if none */
    const char *problem;    /* why the line is not one runc would run, NULL if it is */
};

/* Read argv[first..argc-1], the runtime's arguments after its name.
 * With a problem set the bundle is left alone: runc will say what is
 * wrong with the line itself. */
void afx_runc_args_read(int argc, char *const *argv, int first, struct afx_runc_args *a);

#endif
