/* The plot (plot.h). */
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int plotted_workload(const struct afb_selection *sel)
{
    static const int order[] = { AFB_W_REPRO, AFB_W_MIXED, AFB_W_CONN, AFB_W_THREADS, AFB_W_EXEC };
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (sel->workloads >> order[i] & 1)
            return order[i];
    return AFB_W_REPRO;
}

static void value(FILE *out, const struct afb_cell *c, int metric)
{
    struct afb_metrics m = c->median;
    if (c->status == AFB_OK)
        fprintf(out, " %.6g", *afb_metric_at(&m, metric));
    else
        fputs(" NaN", out); /* gnuplot leaves the bar out */
}

void afb_plot_script(FILE *out, const struct afb_results *r, const struct afb_selection *sel,
                     const char *image)
{
    int w = plotted_workload(sel);
    const char *dot = strrchr(image, '.');
    int png = dot != NULL && strcmp(dot, ".png") == 0;
    fprintf(out, "# arenafix-bench: %s workload, %d threads; medians.\n", afb_workload_names[w],
            r->threads);
    fprintf(out, "# Re-draw with: gnuplot THIS_FILE\n");
    fprintf(out, "$data << EOD\n# scenario");
    /* arenas, lock waits, wall time: on a small host the threads take turns,
     * so contention shows in the wall time rather than in each thread's. */
    static const int metrics[] = { 3, 4, 0 };
    for (int i = 0; i < 3; i++)
        fprintf(out, " system_%s affected_%s", afb_metric_names[metrics[i]],
                afb_metric_names[metrics[i]]);
    fputc('\n', out);
    for (int s = 0; s < AFB_S_COUNT; s++) {
        if (!(sel->scenarios >> s & 1))
            continue;
        fprintf(out, "%s", afb_scenario_names[s]);
        for (int i = 0; i < 3; i++)
            for (int g = 0; g < AFB_G_COUNT; g++)
                value(out, (sel->glibcs >> g & 1) ? &r->cell[w][g][s] : &(struct afb_cell){ 0 },
                      metrics[i]);
        fputc('\n', out);
    }
    fprintf(out, "EOD\n");
    fprintf(out, "set terminal %s size 1350,450 font 'sans,11'\n",
            png ? "png" : "svg dynamic enhanced");
    fprintf(out, "set output '%s'\n", image);
    fprintf(out, "set style data histograms\nset style histogram clustered gap 1\n"
                 "set style fill solid 0.85 border -1\nset boxwidth 0.9\n"
                 "set key top center horizontal\nset grid ytics\n"
                 "set bmargin 4\n"
                 "set yrange [0:*]\nset offsets 0, 0, graph 0.15, 0\n");
    /* Labels from the script, not the data, so "shim-mallopt" can break
     * into two lines: rotated labels render badly in some SVG viewers. */
    fprintf(out, "set xtics nomirror (");
    int x = 0;
    for (int s = 0; s < AFB_S_COUNT; s++) {
        if (!(sel->scenarios >> s & 1))
            continue;
        const char *name = afb_scenario_names[s], *dash = strchr(name, '-');
        if (dash != NULL)
            fprintf(out, "%s\"%.*s\\n%s\" %d", x ? ", " : "", (int)(dash - name), name, dash + 1, x);
        else
            fprintf(out, "%s\"%s\" %d", x ? ", " : "", name, x);
        x++;
    }
    fprintf(out, ")\n");
    fprintf(out, "set multiplot layout 1,3 title '%s workload, %d threads: system glibc (fixed) vs "
                 "affected glibc (bug 30945)'\n", afb_workload_names[w], r->threads);
    static const char *const titles[] = {
        "malloc arenas", "lock waits per thread (voluntary switches)", "wall time (ms)",
    };
    /* A glibc with no runs gets no bars: gnuplot refuses a histogram
     * series without a single valid point. */
    int have[AFB_G_COUNT] = { 0 };
    for (int g = 0; g < AFB_G_COUNT; g++)
        for (int s = 0; s < AFB_S_COUNT; s++)
            have[g] |= (sel->glibcs >> g & 1) && (sel->scenarios >> s & 1) &&
                       r->cell[w][g][s].status == AFB_OK;
    static const char *const colour[AFB_G_COUNT] = { "#4477aa", "#cc6677" };
    for (int i = 0; i < 3; i++) {
        fprintf(out, "set title '%s'\nplot", titles[i]);
        int series = 0;
        for (int g = 0; g < AFB_G_COUNT; g++)
            if (have[g])
                fprintf(out, "%s $data using %d title '%s' lc rgb '%s'", series++ ? "," : "",
                        2 + 2 * i + g, afb_glibc_names[g], colour[g]);
        if (series == 0)
            fprintf(out, " NaN notitle");
        fputc('\n', out);
    }
    fprintf(out, "unset multiplot\n");
}

int afb_plot_render(const char *script, char *err, size_t errlen)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(errno == ENOENT ? 126 : 127);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        snprintf(err, errlen, "cannot run gnuplot: %s", strerror(errno));
        return -1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
        snprintf(err, errlen, "gnuplot is not installed (apt-get install gnuplot-nox); "
                              "the script is %s", script);
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen, "gnuplot failed on %s", script);
        return -1;
    }
    return 0;
}
