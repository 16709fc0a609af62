#define _POSIX_C_SOURCE 200809L
#include "rt_plot_writer.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "rt_plot_gnuplot.h"
#include "rt_strutil.h"

void rt_plot_note(rt_plot_job *job, const char *fmt, ...)
{
    const size_t used = strlen(job->notes);
    if (used + 1 >= sizeof job->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->notes + used, sizeof job->notes - used, fmt, ap);
    va_end(ap);
}

/* Comment lines in .dat and .gp files must stay on one line whatever the text holds. */
void rt_plot_write_comment(FILE *f, const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
        fputc(*c < 0x20 || *c == 0x7f ? ' ' : *c, f);
}

/* A text value as one whitespace-separated column that gnuplot reads as a single field. */
void rt_plot_write_data_text(FILE *f, const char *text)
{
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)text; *c; ++c)
        fputc(*c < 0x20 || *c == 0x7f || *c == '"' ? '_' : *c, f);
    fputc('"', f);
}

void rt_plot_write_value(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, " ?");
    else
        fprintf(f, " %.10g", v);
}

void rt_plot_write_quoted(FILE *f, const char *text)
{
    char quoted[2 * 256 + 4];
    rt_plot_quote(text, quoted, sizeof quoted);
    fputs(quoted, f);
}

int rt_plot_open_output(const rt_plot_job *job, const char *stem, const char *ext, rt_outfile *o,
                        rt_err *err)
{
    char path[RT_PLOT_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s.%s", job->out_dir, stem, ext) >= (int)sizeof path)
        return rt_err_set(err, "figure path %s/%s.%s is too long", job->out_dir, stem, ext);
    return rt_outfile_open(o, path, err);
}

int rt_plot_close_output(rt_outfile *o, rt_err *err)
{
    /* A cut or empty file (a full disk) would pass for a figure's data or script: commit renames
     * the new file into place only when every byte reached it. */
    return rt_outfile_commit(o, err);
}

int rt_plot_data_to_script(const rt_plot_job *job, const char *stem, rt_outfile *dat,
                           rt_outfile *gp, rt_err *err)
{
    if (rt_plot_close_output(dat, err) != 0)
        return -1;
    return rt_plot_open_output(job, stem, "gp", gp, err);
}

void rt_plot_write_data_intro(FILE *f, const rt_plot_job *job, const rt_plot_figure *fig,
                              const char *query)
{
    fprintf(f, "# rooftune figure data: %s (%s) of experiment '", fig->stem, fig->type);
    rt_plot_write_comment(f, job->experiment);
    fputc('\'', f);
    if (fig->matrix) {
        fprintf(f, ", matrix '");
        rt_plot_write_comment(f, fig->matrix);
        fputc('\'', f);
    }
    if (fig->where) {
        fprintf(f, "\n# points: only those where ");
        rt_plot_write_comment(f, fig->where);
    }
    fprintf(f, "\n# query: ");
    rt_plot_write_comment(f, query);
    fputc('\n', f);
}

void rt_plot_write_gp_header(FILE *gp, const rt_plot_job *job, const rt_plot_figure *fig,
                             const char *what)
{
    fprintf(gp, "# rooftune figure '%s' (%s): %s\n", fig->stem, fig->type, what);
    fprintf(gp, "# Reads %s.dat from this folder and writes %s.png and %s.svg next to it.\n",
            fig->stem, fig->stem, fig->stem);
    fprintf(gp, "# Regenerate: cd ");
    rt_plot_write_comment(gp, job->out_dir);
    fprintf(gp, " && gnuplot %s.gp\n\nreset\n", fig->stem);
    rt_plot_write_style(gp);
    fprintf(gp, "set datafile missing '?'\n");
    fprintf(gp, "set title ");
    rt_plot_write_quoted(gp, fig->title);
    fprintf(gp, "\nset xlabel ");
    rt_plot_write_quoted(gp, fig->x.label);
    fprintf(gp, "\nset ylabel ");
    rt_plot_write_quoted(gp, fig->y.label);
    fputc('\n', gp);
}

void rt_plot_write_text_xtics(FILE *gp, const void *records, size_t stride, size_t row_offset,
                              const int *at, int n)
{
    int longest = 0;
    fprintf(gp, "set xtics (");
    for (int g = 0; g < n; ++g) {
        const char *record = (const char *)records + stride * (size_t)at[g];
        const rt_plot_row *row = (const rt_plot_row *)(record + row_offset);
        const int len = (int)strlen(row->x_text);
        longest = len > longest ? len : longest;
        if (g)
            fprintf(gp, ", ");
        rt_plot_write_quoted(gp, row->x_text);
        fprintf(gp, " %d", g);
    }
    fprintf(gp, ")\n");
    /* Long or many labels overlap when horizontal. */
    if (n * (longest + 2) > 90)
        fprintf(gp, "set xtics rotate by 30 right\n");
    fprintf(gp, "set xrange [-0.6:%g]\n", n - 0.4);
}

void rt_plot_write_series_style(FILE *cmd, int k)
{
    /* The palette has 8 colours; past them the dash pattern keeps series apart. */
    fprintf(cmd, "lt %d dt %d", k % 8 + 1, k / 8 % 5 + 1);
}

void rt_plot_write_plot_item(FILE *cmd, const char *stem, int k)
{
    if (k == 0)
        fprintf(cmd, "plot '%s.dat' ", stem);
    else
        fprintf(cmd, ", \\\n     '' ");
}

void rt_plot_write_series_item(FILE *cmd, const char *stem, int k, const char *how,
                               const char *title)
{
    rt_plot_write_plot_item(cmd, stem, k);
    fprintf(cmd, "index %d using %s ", k, how);
    rt_plot_write_series_style(cmd, k);
    fprintf(cmd, " title ");
    rt_plot_write_quoted(cmd, title);
}

int rt_plot_command_open(rt_plot_command *c, const char *path, rt_err *err)
{
    memset(c, 0, sizeof *c);
    c->f = open_memstream(&c->text, &c->len);
    if (!c->f)
        return rt_err_set(err, "out of memory writing %s", path);
    return 0;
}

static void command_close(rt_plot_command *c)
{
    if (c->f)
        fclose(c->f);
    c->f = NULL;
}

int rt_plot_command_finish(rt_plot_job *job, const rt_plot_figure *fig, rt_outfile *gp,
                           rt_plot_command *c, rt_err *err)
{
    command_close(c);
    return rt_plot_finish_figure(job, fig, gp, c->text, err);
}

void rt_plot_release_figure(rt_outfile *dat, rt_outfile *gp, rt_plot_command *cmd)
{
    rt_outfile_abort(dat);
    rt_outfile_abort(gp);
    command_close(cmd);
    free(cmd->text);
    cmd->text = NULL;
}

/* Finishes a figure: the script's render tail, committing it, drawing the images. */
int rt_plot_finish_figure(rt_plot_job *job, const rt_plot_figure *fig, rt_outfile *gp,
                          const char *plot_command, rt_err *err)
{
    rt_plot_write_render(gp->f, fig->stem, plot_command);
    if (rt_plot_close_output(gp, err) != 0)
        return -1;
    if (job->have_gnuplot && rt_plot_render(job->out_dir, fig->stem, err) != 0)
        return -1;
    ++job->res->n_figures;
    return 0;
}

int rt_plot_job_begin(rt_plot_job *job, rt_outdir *made, rt_err *err)
{
    if (rt_outdir_make(made, job->out_dir, err) != 0)
        return -1;
    char gnuplot[RT_PLOT_PATH_MAX];
    job->have_gnuplot = rt_plot_find_gnuplot(gnuplot, sizeof gnuplot) == 0;
    job->res->gnuplot_missing = !job->have_gnuplot;
    return 0;
}
