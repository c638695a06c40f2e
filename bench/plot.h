/* The plot: a gnuplot script (data inline, so it can be re-run or
 * edited alone) and gnuplot run on it. */
#ifndef AFB_PLOT_H
#define AFB_PLOT_H

#include <stdio.h>

#include "report.h"

/* Write the script that draws IMAGE (.svg or .png by its name): arena
 * count, lock waits and per-thread time for each scenario, system and
 * affected glibc side by side, for the first allocating workload in SEL. */
void afb_plot_script(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                     const char *image);

/* Run gnuplot on SCRIPT.  Returns 0, or -1 with ERR (gnuplot missing or
 * failed). */
int afb_plot_render(const char *script, char *err, size_t errlen);

#endif
