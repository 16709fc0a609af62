#include "rt_plot_pareto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_point(FILE *dat, const rt_pareto_point *p)
{
    fprintf(dat, "%.10g %.10g %lld ", p->a, p->b, (long long)p->point_id);
    rt_plot_write_data_text(dat, p->params);
    fputc('\n', dat);
}

/* The data: every point (index 0), then the front along the first objective (index 1). Written
 * whole or not at all (rt_outfile). */
static int write_data(const rt_plot_job *job, const rt_plot_figure *fig, const rt_pareto_set *set,
                      const rt_pareto_sweep *w, const int *order, int m, rt_err *err)
{
    rt_outfile out;
    if (rt_plot_open_output(job, fig->stem, "dat", &out, err) != 0)
        return -1;
    FILE *dat = out.f;
    char query[900];
    snprintf(query, sizeof query,
             "verified ok points of kernel %s, device %s, problem %s: %s and %s (the newest of "
             "each point)",
             w->kernel, w->device, w->problem, set->objective[0], set->objective[1]);
    rt_plot_write_data_intro(dat, job, fig, query);
    fprintf(dat, "# index 0: every point (%s %s point_id params); index 1: the front, along %s\n",
            set->objective[0], set->objective[1], set->objective[0]);
    for (int i = 0; i < w->n; ++i)
        write_point(dat, &w->points[i]);
    fprintf(dat, "\n\n");
    for (int k = 0; k < m; ++k)
        write_point(dat, &w->points[order[k]]);
    return rt_plot_close_output(&out, err);
}

/* One sweep's figure. */
static int draw_sweep(rt_plot_job *job, const rt_pareto_set *set, const rt_pareto_sweep *w,
                      int number, rt_err *err)
{
    rt_plot_figure fig;
    memset(&fig, 0, sizeof fig);
    snprintf(fig.stem, sizeof fig.stem, "pareto-%.40s-%.40s-%d", set->objective[0],
             set->objective[1], number);
    /* Metric names may hold characters a file name should not (likwid:spmm:EVENT). */
    for (char *c = fig.stem; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '-' || *c == '_' || *c == '.'))
            *c = '_';
    snprintf(fig.type, sizeof fig.type, "pareto");
    snprintf(fig.x.name, sizeof fig.x.name, "%s", set->objective[0]);
    snprintf(fig.y.name, sizeof fig.y.name, "%s", set->objective[1]);
    snprintf(fig.x.label, sizeof fig.x.label, "%s (lower is better)", set->objective[0]);
    snprintf(fig.y.label, sizeof fig.y.label, "%s (lower is better)", set->objective[1]);
    snprintf(fig.title, sizeof fig.title, "%.60s on %.40s: %d on the front of %d", w->kernel,
             w->matrix, w->n_front, w->n);
    fig.matrix = w->matrix;
    int *order = malloc((size_t)(w->n_front + 1) * sizeof *order);
    if (!order)
        return rt_err_set(err, "out of memory for the front of %s", w->kernel);
    const int m = rt_pareto_front_order(w, order);
    const int rc = write_data(job, &fig, set, w, order, m, err);
    free(order);
    if (rc != 0)
        return -1;
    rt_outfile gp;
    if (rt_plot_open_output(job, fig.stem, "gp", &gp, err) != 0)
        return -1;
    rt_plot_write_gp_header(gp.f, job, &fig, "every point of the sweep and its Pareto front");
    char command[512];
    snprintf(
        command, sizeof command,
        "plot '%s.dat' index 0 using 1:2 with points pt 7 ps 0.6 lc rgb '#999999' title "
        "'points', '' index 1 using 1:2 with linespoints lw 2 pt 7 ps 1.0 title 'Pareto front'",
        fig.stem);
    return rt_plot_finish_figure(job, &fig, &gp, command, err); /* commits or abandons gp */
}

int rt_plot_pareto(const rt_pareto_set *set, const char *out_dir, rt_plot_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_plot_job job = {.db = NULL, .experiment = "", .out_dir = out_dir, .res = res};
    if (set->n > 0)
        job.experiment = set->sweeps[0].experiment;
    rt_outdir made;
    if (rt_plot_job_begin(&job, &made, err) != 0)
        return -1;
    for (int k = 0; k < set->n; ++k)
        if (set->sweeps[k].n > 0 && draw_sweep(&job, set, &set->sweeps[k], k + 1, err) != 0) {
            rt_outdir_undo(&made); /* a folder made for this call and left empty goes again */
            return -1;
        }
    snprintf(res->message, sizeof res->message, "%d figure(s) in %s%s", res->n_figures, out_dir,
             res->gnuplot_missing ? " (.dat and .gp only: gnuplot is not on PATH)" : "");
    return 0;
}
