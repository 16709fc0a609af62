#define _POSIX_C_SOURCE 200809L
#include "rt_plot_writer.h"

#include <errno.h>
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

void rt_plot_write_quoted(FILE *f, const char *text)
{
    char quoted[2 * 256 + 4];
    rt_plot_quote(text, quoted, sizeof quoted);
    fputs(quoted, f);
}

int rt_plot_make_dirs(const char *dir, rt_err *err)
{
    char path[RT_PLOT_PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return rt_err_set(err, "plot folder '%.200s...' is too long", dir);
    /* Create each missing ancestor in turn, as `mkdir -p` does. */
    for (char *slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
        if (slash)
            *slash = '\0';
        if (path[0] && mkdir(path, 0777) != 0 && errno != EEXIST)
            return rt_err_set(err, "cannot create plot folder '%s': %s", path, strerror(errno));
        if (!slash)
            break;
        *slash = '/';
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return rt_err_set(err, "cannot write figures into '%s': it exists and is not a folder",
                          dir);
    return 0;
}

int rt_plot_open_output(const rt_plot_job *job, const char *stem, const char *ext, FILE **f,
                        char *path, size_t len, rt_err *err)
{
    if (snprintf(path, len, "%s/%s.%s", job->out_dir, stem, ext) >= (int)len)
        return rt_err_set(err, "figure path %s/%s.%s is too long", job->out_dir, stem, ext);
    errno = 0; /* close_output reports errno: start from a clean one */
    *f = fopen(path, "w");
    if (!*f)
        return rt_err_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

int rt_plot_close_output(FILE *f, const char *path, rt_err *err)
{
    const int failed = ferror(f);
    const int close_failed = fclose(f);
    if (failed || close_failed) {
        const int saved = errno;
        /* A cut or empty file (a full disk) would pass for a figure's data or script. */
        unlink(path);
        return rt_err_set(err, "cannot write %s: %s (the partial file is removed)", path,
                          saved ? strerror(saved) : "write error");
    }
    return 0;
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

void rt_plot_write_series_style(FILE *cmd, int k)
{
    /* The palette has 8 colours; past them the dash pattern keeps series apart. */
    fprintf(cmd, "lt %d dt %d", k % 8 + 1, k / 8 % 5 + 1);
}

/* gnuplot may exit 0 after writing an empty image when the disk is full: such a file is removed
 * and the figure fails. */
static int check_rendered(const char *dir, const char *stem, rt_err *err)
{
    static const char *const exts[] = {"svg", "png"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; ++i) {
        char path[RT_PLOT_PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s.%s", dir, stem, exts[i]) >= (int)sizeof path)
            return rt_err_set(err, "figure path %s/%s.%s is too long", dir, stem, exts[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
            unlink(path);
            return rt_err_set(err, "gnuplot wrote an empty %s (is the disk full?); removed", path);
        }
    }
    return 0;
}

/* Finishes a figure: the script's render tail, closing files, running gnuplot. */
int rt_plot_finish_figure(rt_plot_job *job, const rt_plot_figure *fig, FILE *gp,
                          const char *gp_path, const char *plot_command, rt_err *err)
{
    rt_plot_write_render(gp, fig->stem, plot_command);
    if (rt_plot_close_output(gp, gp_path, err) != 0)
        return -1;
    if (job->have_gnuplot) {
        char script[RT_PLOT_STEM_MAX + 4];
        snprintf(script, sizeof script, "%s.gp", fig->stem);
        if (rt_plot_run_gnuplot(job->out_dir, script, err) != 0 ||
            check_rendered(job->out_dir, fig->stem, err) != 0)
            return -1;
    }
    ++job->res->n_figures;
    return 0;
}
