#define _POSIX_C_SOURCE 200809L
#include "rt_plot.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "rt_outdir.h"
#include "rt_plot_data.h"
#include "rt_plot_types.h"
#include "rt_plot_writer.h"
#include "rt_plot_where.h"
#include "rt_strutil.h"

static const char *const figure_types[] = {"line", "bars", "stacked", "box", "heatmap", "scaling"};
#define N_FIGURE_TYPES ((int)(sizeof figure_types / sizeof figure_types[0]))

static const char missing_message[] = "gnuplot not found: wrote data and scripts, skipped PNG/SVG";

typedef rt_plot_figure figure;
typedef rt_plot_job plot_job;

/* ------------------------------------------------------------------------------------------- */
/* Small helpers */

static void append(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t cap, const char *fmt, ...)
{
    const size_t used = strlen(buf);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, cap - used, fmt, ap);
    va_end(ap);
}

int rt_plot_is_power_of_two(double v)
{
    if (!(v >= 1.0) || v > 9007199254740992.0 || v != floor(v))
        return 0;
    const unsigned long long u = (unsigned long long)v;
    return (u & (u - 1)) == 0;
}

/* ------------------------------------------------------------------------------------------- */
/* Distinct values of a table, in axis order */

/* Indices of the rows that start a new x (sorted by x) or a new series (rows are sorted by
 * series already). */
typedef struct distinct {
    int n;
    int *row; /* row index of a representative */
} distinct;

static int distinct_series(const rt_plot_table *t, distinct *d, rt_err *err)
{
    d->n = 0;
    d->row = malloc((size_t)(t->n ? t->n : 1) * sizeof *d->row);
    if (!d->row)
        return rt_err_set(err, "out of memory arranging figure data");
    for (int r = 0; r < t->n; ++r)
        if (r == 0 || strcmp(t->rows[r].series, t->rows[r - 1].series) != 0)
            d->row[d->n++] = r;
    return 0;
}

/* Insertion into a sorted list: tables are small (points of one experiment), and qsort would need
 * the table as hidden state to compare row indices. */
static int distinct_x(const rt_plot_table *t, distinct *d, rt_err *err)
{
    d->n = 0;
    d->row = malloc((size_t)(t->n ? t->n : 1) * sizeof *d->row);
    if (!d->row)
        return rt_err_set(err, "out of memory arranging figure data");
    for (int r = 0; r < t->n; ++r) {
        int lo = 0, hi = d->n;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            const int c = rt_plot_data_compare_x(&t->rows[d->row[mid]], &t->rows[r]);
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < d->n && rt_plot_data_compare_x(&t->rows[d->row[lo]], &t->rows[r]) == 0)
            continue;
        memmove(d->row + lo + 1, d->row + lo, (size_t)(d->n - lo) * sizeof *d->row);
        d->row[lo] = r;
        ++d->n;
    }
    return 0;
}

static int x_index(const rt_plot_table *t, const distinct *xs, int r)
{
    int lo = 0, hi = xs->n - 1;
    while (lo <= hi) {
        const int mid = (lo + hi) / 2;
        const int c = rt_plot_data_compare_x(&t->rows[xs->row[mid]], &t->rows[r]);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* ------------------------------------------------------------------------------------------- */
/* Writing figures */

static void write_data_header(FILE *f, const plot_job *job, const figure *fig,
                              const rt_plot_table *t)
{
    rt_plot_write_data_intro(f, job, fig, t->query);
    fprintf(f, "# x = %s [", fig->x.name);
    rt_plot_write_comment(f, fig->x.label);
    fprintf(f, "], y = %s [", fig->y.name);
    rt_plot_write_comment(f, fig->y.label);
    fprintf(f, "], series = %s\n", fig->has_series ? fig->series.name : "(one series)");
    fprintf(f, "# each value is the best y (%s) of the status-ok points that share x and series\n",
            fig->y.lower_is_better ? "the minimum" : "the maximum");
}

static void axis_range_settings(FILE *gp, const rt_plot_table *t, int log_y)
{
    double min_y = INFINITY;
    for (int r = 0; r < t->n; ++r)
        min_y = t->rows[r].y < min_y ? t->rows[r].y : min_y;
    if (log_y)
        fprintf(gp, "set logscale y 10\n");
    else if (min_y >= 0) /* performance reads against zero; a floating origin exaggerates */
        fprintf(gp, "set yrange [0:*]\n");
}

/* The log base of the x axis (0: linear), or -1 with err set when logx cannot be honoured. */
static int line_log_x(const figure *fig, const rt_plot_table *t, int n_distinct_x, rt_err *err)
{
    int numeric_x = 1, all_pow2 = 1, positive_x = 1;
    for (int r = 0; r < t->n; ++r) {
        numeric_x &= t->rows[r].x_numeric;
        all_pow2 &= t->rows[r].x_numeric && rt_plot_is_power_of_two(t->rows[r].x);
        positive_x &= t->rows[r].x_numeric && t->rows[r].x > 0;
    }
    if (fig->logx > 0) {
        if (!numeric_x || !positive_x)
            return rt_err_set(err,
                              "logx needs x values that are positive numbers, but %s holds "
                              "%s",
                              fig->x.name, numeric_x ? "zero or negative values" : "text");
        return all_pow2 ? 2 : 10;
    }
    /* Tuning parameters swept as powers of two read best evenly spaced. */
    return fig->logx == 0 && numeric_x && all_pow2 && n_distinct_x >= 2 ? 2 : 0;
}

static int positive_y(const rt_plot_table *t)
{
    for (int r = 0; r < t->n; ++r)
        if (!(t->rows[r].y > 0))
            return 0;
    return 1;
}

static int write_line(plot_job *job, const figure *fig, const rt_plot_table *t, rt_err *err)
{
    distinct xs = {0}, ss = {0};
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command command = {0};
    int rc = -1;

    if (distinct_x(t, &xs, err) != 0 || distinct_series(t, &ss, err) != 0)
        goto done;
    int numeric_x = 1;
    for (int r = 0; r < t->n; ++r)
        numeric_x &= t->rows[r].x_numeric;
    const int log_x = line_log_x(fig, t, xs.n, err);
    if (log_x < 0)
        goto done;
    if (fig->logy > 0 && !positive_y(t)) {
        rt_err_set(err, "logy needs y values above zero, but %s has zero or negative values",
                   fig->y.name);
        goto done;
    }

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    write_data_header(dat, job, fig, t);
    if (numeric_x)
        fprintf(dat, "# columns: %s %s n_points\n", fig->x.name, fig->y.name);
    else
        fprintf(dat,
                "# columns: x_index %s %s n_points (x is text: x_index is its position on "
                "the axis)\n",
                fig->x.name, fig->y.name);
    fprintf(dat, "# one block per series, separated by two blank lines (gnuplot: index N)\n");
    for (int s = 0; s < ss.n; ++s) {
        const int first = ss.row[s], last = s + 1 < ss.n ? ss.row[s + 1] : t->n;
        fprintf(dat, "%s# index %d: %s = ", s ? "\n\n" : "\n", s,
                fig->has_series ? fig->series.name : "series");
        rt_plot_write_comment(dat, t->rows[first].series);
        fputc('\n', dat);
        for (int r = first; r < last; ++r) {
            const rt_plot_row *row = &t->rows[r];
            if (numeric_x) {
                fprintf(dat, "%.10g %.10g %lld\n", row->x, row->y, (long long)row->n_points);
            } else {
                fprintf(dat, "%d ", x_index(t, &xs, r));
                rt_plot_write_data_text(dat, row->x_text);
                fprintf(dat, " %.10g %lld\n", row->y, (long long)row->n_points);
            }
        }
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    char what[300];
    snprintf(what, sizeof what, "%s against %s, one line per %s", fig->y.name, fig->x.name,
             fig->has_series ? fig->series.name : "figure");
    rt_plot_write_gp_header(gp, job, fig, what);
    if (log_x)
        fprintf(gp, "set logscale x %d\nset format x '%%g'\n", log_x);
    if (!numeric_x) {
        rt_plot_write_text_xtics(gp, t->rows, sizeof t->rows[0], 0, xs.row, xs.n);
    } else {
        /* Keep the first and last points off the frame, without rounding out to tics. */
        fprintf(gp, "set autoscale xfix\nset offsets graph 0.03, graph 0.03, graph 0.05, 0\n");
    }
    axis_range_settings(gp, t, fig->logy > 0);
    if (!fig->has_series)
        fprintf(gp, "unset key\n");

    if (rt_plot_command_open(&command, gp_out.path, err) != 0)
        goto done;
    FILE *const cmd = command.f;
    for (int s = 0; s < ss.n; ++s) {
        rt_plot_write_series_item(cmd, fig->stem, s,
                                  numeric_x ? "1:2 with linespoints" : "1:3 with linespoints",
                                  t->rows[ss.row[s]].series);
    }
    fputc('\n', cmd);
    rc = rt_plot_command_finish(job, fig, &gp_out, &command, err);
    gp = NULL;
done:
    rt_plot_release_figure(&dat_out, &gp_out, &command);
    free(xs.row);
    free(ss.row);
    return rc;
}

static int write_bars(plot_job *job, const figure *fig, const rt_plot_table *t, rt_err *err)
{
    distinct xs = {0}, ss = {0};
    double *cells = NULL;
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command command = {0};
    int rc = -1;

    if (distinct_x(t, &xs, err) != 0 || distinct_series(t, &ss, err) != 0)
        goto done;
    cells = malloc((size_t)xs.n * (size_t)ss.n * sizeof *cells);
    if (!cells) {
        rt_err_set(err, "out of memory arranging figure data");
        goto done;
    }
    for (int c = 0; c < xs.n * ss.n; ++c)
        cells[c] = NAN;
    for (int s = 0; s < ss.n; ++s) {
        const int last = s + 1 < ss.n ? ss.row[s + 1] : t->n;
        for (int r = ss.row[s]; r < last; ++r)
            cells[x_index(t, &xs, r) * ss.n + s] = t->rows[r].y;
    }
    if (fig->logy > 0 && !positive_y(t)) {
        rt_err_set(err, "logy needs y values above zero, but %s has zero or negative values",
                   fig->y.name);
        goto done;
    }
    /* Speedup labels: each bar against the baseline's bar of the same group. */
    int base = -1;
    if (fig->baseline[0]) {
        for (int s = 0; s < ss.n; ++s)
            if (strcmp(t->rows[ss.row[s]].series, fig->baseline) == 0)
                base = s;
        if (base < 0) {
            char listing[600] = "";
            for (int s = 0; s < ss.n; ++s)
                append(listing, sizeof listing, "%s'%s'", s ? ", " : "", t->rows[ss.row[s]].series);
            rt_err_set(err,
                       "baseline: '%s' is not a value of %s among the status-ok points; "
                       "the values are %s",
                       fig->baseline, fig->series.name, listing);
            goto done;
        }
    }

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    write_data_header(dat, job, fig, t);
    fprintf(dat, "# rows: one per %s; columns: %s, then the value per %s: ", fig->x.name,
            fig->x.name, fig->has_series ? fig->series.name : "series");
    for (int s = 0; s < ss.n; ++s) {
        fputs(s ? " " : "", dat);
        rt_plot_write_data_text(dat, t->rows[ss.row[s]].series);
    }
    if (base >= 0) {
        fprintf(dat, "\n# then the speedup of each over '");
        rt_plot_write_comment(dat, fig->baseline);
        fprintf(dat, "' in the same group (%s), in the same order",
                fig->y.lower_is_better ? "baseline / value, since lower is better"
                                       : "value / baseline");
    }
    fprintf(dat, "\n# '?' marks a combination without a status-ok point\n");
    for (int g = 0; g < xs.n; ++g) {
        rt_plot_write_data_text(dat, t->rows[xs.row[g]].x_text);
        for (int s = 0; s < ss.n; ++s)
            rt_plot_write_value(dat, cells[g * ss.n + s]);
        for (int s = 0; base >= 0 && s < ss.n; ++s) {
            const double v = cells[g * ss.n + s], b = cells[g * ss.n + base];
            const double speedup = fig->y.lower_is_better ? b / v : v / b;
            /* No bar to compare with, or a zero one: the label is missing, not inf or 0. */
            const int shown = !isnan(v) && !isnan(b) && isfinite(speedup) && speedup > 0;
            rt_plot_write_value(dat, shown ? speedup : NAN);
        }
        fputc('\n', dat);
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    char what[300];
    snprintf(what, sizeof what, "best %s per %s, one bar per %s%s%s", fig->y.name, fig->x.name,
             fig->has_series ? fig->series.name : "group",
             base >= 0 ? ", labelled with the speedup over " : "", base >= 0 ? fig->baseline : "");
    rt_plot_write_gp_header(gp, job, fig, what);
    /* The bars of a group fill 80% of its slot, leaving a gap between groups. */
    const double width = 0.8 / ss.n;
    fprintf(gp, "set style fill solid 0.85 border lc rgb '#404040'\n");
    fprintf(gp, "set boxwidth %.6g absolute\n", width);
    fprintf(gp, "set grid noxtics\n");
    rt_plot_write_text_xtics(gp, t->rows, sizeof t->rows[0], 0, xs.row, xs.n);
    axis_range_settings(gp, t, fig->logy > 0);
    fprintf(gp, "set offsets 0, 0, graph 0.08, 0\n"); /* room for the value labels */
    if (!fig->has_series)
        fprintf(gp, "unset key\n");

    if (rt_plot_command_open(&command, gp_out.path, err) != 0)
        goto done;
    FILE *const cmd = command.f;
    const int rotate_labels = ss.n * xs.n > 24;
    for (int pass = 0; pass < 2; ++pass) { /* boxes first, then their labels on top */
        for (int s = 0; s < ss.n; ++s) {
            const double offset = (s - (ss.n - 1) / 2.0) * width;
            rt_plot_write_plot_item(cmd, fig->stem, pass * ss.n + s);
            if (pass == 0) {
                fprintf(cmd, "using ($0%+.6g):%d with boxes ", offset, s + 2);
                rt_plot_write_series_style(cmd, s);
                fprintf(cmd, " title ");
                rt_plot_write_quoted(cmd, t->rows[ss.row[s]].series);
            } else if (base >= 0) {
                /* The speedup column sits ss.n columns after the value column. */
                fprintf(cmd,
                        "using ($0%+.6g):%d:(sprintf('%%.2fx', column(%d))) with labels %s "
                        "font ',9' notitle",
                        offset, s + 2, s + 2 + ss.n,
                        rotate_labels ? "rotate by 90 left offset 0,0.3" : "center offset 0,0.7");
            } else {
                fprintf(cmd,
                        "using ($0%+.6g):%d:(gprintf('%%.4g', column(%d))) with labels %s "
                        "font ',9' notitle",
                        offset, s + 2, s + 2,
                        rotate_labels ? "rotate by 90 left offset 0,0.3" : "center offset 0,0.7");
            }
        }
    }
    fputc('\n', cmd);
    rc = rt_plot_command_finish(job, fig, &gp_out, &command, err);
    gp = NULL;
done:
    rt_plot_release_figure(&dat_out, &gp_out, &command);
    free(cells);
    free(xs.row);
    free(ss.row);
    return rc;
}

static int draw_figure(plot_job *job, const figure *fig, rt_err *err)
{
    /* The other figure types read their own data (best points, samples, metric families). */
    int (*const other)(plot_job *, const figure *, rt_err *) =
        strcmp(fig->type, "stacked") == 0   ? rt_plot_draw_stacked
        : strcmp(fig->type, "box") == 0     ? rt_plot_draw_box
        : strcmp(fig->type, "heatmap") == 0 ? rt_plot_draw_heatmap
        : strcmp(fig->type, "scaling") == 0 ? rt_plot_draw_scaling
                                            : NULL;
    if (other) {
        if (other(job, fig, err) != 0)
            return rt_err_prefix(err, "%s", fig->context);
        return 0;
    }
    rt_plot_table t;
    if (rt_plot_data_fetch(job->db, job->experiment, &fig->x, &fig->y,
                           fig->has_series ? &fig->series : NULL, fig->matrix, &t, err) != 0) {
        rt_plot_data_table_free(&t);
        return rt_err_prefix(err, "%s", fig->context);
    }
    int rc = 0;
    if (t.n == 0) {
        append(job->notes, sizeof job->notes, "; skipped %s: no status-ok point has both %s and %s",
               fig->stem, fig->x.name, fig->y.name);
    } else {
        rc = strcmp(fig->type, "bars") == 0 ? write_bars(job, fig, &t, err)
                                            : write_line(job, fig, &t, err);
        if (rc != 0)
            rt_err_prefix(err, "%s", fig->context);
    }
    rt_plot_data_table_free(&t);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Figures from the config, and the default set */

static void cfg_context(const rt_plot_cfg *cfg, int index, char *out, size_t len)
{
    out[0] = '\0';
    if (cfg->loc.file[0])
        append(out, len, "%s:%d:%d: ", cfg->loc.file, cfg->loc.line, cfg->loc.col);
    append(out, len, "plots[%d]", index);
    if (cfg->name[0])
        append(out, len, " (%s)", cfg->name);
}

static int cfg_stem(const rt_plot_cfg *cfg, char *stem, size_t len)
{
    char raw[256];
    if (cfg->name[0])
        snprintf(raw, sizeof raw, "%s", cfg->name);
    else if (strcmp(cfg->type, "heatmap") == 0) /* one point's matrix: no x */
        snprintf(raw, sizeof raw, "heatmap-%s", cfg->y[0] ? cfg->y : "comm_bytes");
    else
        snprintf(raw, sizeof raw, "%s-%s-%s", cfg->type[0] ? cfg->type : "line",
                 cfg->x[0]                           ? cfg->x
                 : strcmp(cfg->type, "scaling") == 0 ? "ranks"
                                                     : "matrix",
                 cfg->y[0]                           ? cfg->y
                 : strcmp(cfg->type, "scaling") == 0 ? "time_median_s"
                                                     : "gflops");
    return rt_plot_sanitize_name(raw, stem, len);
}

static int resolve_field(const plot_job *job, const char *context, const char *key,
                         const char *name, rt_plot_field *out, rt_err *err)
{
    if (rt_plot_data_resolve(job->db, job->experiment, name, out, err) != 0)
        return rt_err_prefix(err, "%s: %s", context, key);
    return 0;
}

/* The y of a scaling figure may name what is derived from the time instead of a column. */
static rt_plot_scaling_mode scaling_mode_of(const char *y)
{
    if (strcmp(y, "speedup") == 0)
        return RT_PLOT_SCALE_SPEEDUP;
    if (strcmp(y, "parallel_efficiency") == 0)
        return RT_PLOT_SCALE_EFFICIENCY;
    return RT_PLOT_SCALE_RAW;
}

/* Checks the keys that only some figure types take, for specs built in code as well as those the
 * config stage has already checked. */
static int check_type_keys(const rt_plot_cfg *cfg, const figure *fig, rt_err *err)
{
    const char *type = fig->type;
    if (cfg->baseline[0] && strcmp(type, "bars") != 0)
        return rt_err_set(err, "%s: baseline: only bars take a baseline, not %s figures",
                          fig->context, type);
    if (cfg->baseline[0] && !cfg->series[0])
        return rt_err_set(err,
                          "%s: baseline: '%s' names a series value, so the figure needs a "
                          "series (e.g. series: kernel)",
                          fig->context, cfg->baseline);
    if (cfg->n_stack < 0 || cfg->n_stack > RT_PLOT_STACK_MAX)
        return rt_err_set(err, "%s: stack: %d values (1 to %d can be stacked)", fig->context,
                          cfg->n_stack, RT_PLOT_STACK_MAX);
    if (cfg->n_stack > 0 && strcmp(type, "stacked") != 0)
        return rt_err_set(err,
                          "%s: stack: only stacked figures take a stack list, not %s "
                          "figures",
                          fig->context, type);
    if (cfg->n_stack == 0 && strcmp(type, "stacked") == 0)
        return rt_err_set(err,
                          "%s: stack: a stacked figure needs the values to stack (e.g. "
                          "stack: [compute_s, comm_s])",
                          fig->context);
    if (strcmp(type, "heatmap") == 0 && (cfg->x[0] || cfg->series[0]))
        return rt_err_set(err,
                          "%s: %s: a heatmap draws the matrix of one point and takes no "
                          "%s (y names its metric family)",
                          fig->context, cfg->x[0] ? "x" : "series", cfg->x[0] ? "x" : "series");
    return 0;
}

static int figure_from_cfg(const plot_job *job, const rt_plot_cfg *cfg, int index, figure *fig,
                           rt_err *err)
{
    memset(fig, 0, sizeof *fig);
    cfg_context(cfg, index, fig->context, sizeof fig->context);
    const char *type = cfg->type[0] ? cfg->type : "line";
    int known = 0;
    for (int k = 0; k < N_FIGURE_TYPES; ++k)
        known |= strcmp(type, figure_types[k]) == 0;
    if (!known) {
        const char *nearest = rt_suggest(type, figure_types, N_FIGURE_TYPES);
        return rt_err_set(err,
                          "%s: type: unknown figure type '%s'%s%s%s; known types: line, "
                          "bars, stacked, box, heatmap, scaling",
                          fig->context, type, nearest ? " (did you mean '" : "",
                          nearest ? nearest : "", nearest ? "'?)" : "");
    }
    snprintf(fig->type, sizeof fig->type, "%s", type);
    if (cfg_stem(cfg, fig->stem, sizeof fig->stem) != 0)
        return rt_err_set(err, "%s: name: the file name '%s' is longer than %d characters",
                          fig->context, fig->stem, RT_PLOT_STEM_MAX - 1);
    if (check_type_keys(cfg, fig, err) != 0)
        return -1;
    const int bars = strcmp(type, "bars") == 0;
    const int line = strcmp(type, "line") == 0;
    const int heatmap = strcmp(type, "heatmap") == 0;
    const int scaling = strcmp(type, "scaling") == 0;
    fig->logx = cfg->logx;
    fig->logy = cfg->logy;

    fig->title_given = cfg->title[0] != '\0';
    if (heatmap) {
        /* y is a family of metrics, not one name: rt_plot_draw_heatmap looks it up. */
        snprintf(fig->family, sizeof fig->family, "%s", cfg->y[0] ? cfg->y : "comm_bytes");
        snprintf(fig->y.name, sizeof fig->y.name, "%s", fig->family);
        if (cfg->title[0])
            snprintf(fig->title, sizeof fig->title, "%s", cfg->title);
        else
            snprintf(fig->title, sizeof fig->title, "%s: %s_<i>_<j>", job->experiment, fig->family);
        return 0;
    }

    if (!cfg->x[0] && line)
        return rt_err_set(err,
                          "%s: x: a line figure needs x (a parameter such as the swept "
                          "block size, or a column such as ranks)",
                          fig->context);
    const char *x = cfg->x[0] ? cfg->x : scaling ? "ranks" : "matrix";
    const char *y = cfg->y[0] ? cfg->y : scaling ? "time_median_s" : "gflops";
    if (scaling) {
        fig->scaling = scaling_mode_of(y);
        if (fig->scaling != RT_PLOT_SCALE_RAW)
            y = "time_median_s"; /* speedup and efficiency are derived from the median time */
    }
    if (resolve_field(job, fig->context, "x", x, &fig->x, err) != 0 ||
        resolve_field(job, fig->context, "y", y, &fig->y, err) != 0)
        return -1;
    if (cfg->series[0]) {
        if (resolve_field(job, fig->context, "series", cfg->series, &fig->series, err) != 0)
            return -1;
        fig->has_series = 1;
    }
    for (int k = 0; k < cfg->n_stack; ++k) {
        char key[32];
        snprintf(key, sizeof key, "stack[%d]", k);
        if (resolve_field(job, fig->context, key, cfg->stack[k], &fig->stack[k], err) != 0)
            return -1;
    }
    fig->n_stack = cfg->n_stack;
    snprintf(fig->baseline, sizeof fig->baseline, "%s", cfg->baseline);
    if (cfg->title[0])
        snprintf(fig->title, sizeof fig->title, "%s", cfg->title);
    else if (bars)
        snprintf(fig->title, sizeof fig->title, "%s: best %s per %s%s%s%s%s", job->experiment,
                 fig->y.name, fig->x.name, fig->has_series ? " and " : "",
                 fig->has_series ? fig->series.name : "", fig->baseline[0] ? ", speedup over " : "",
                 fig->baseline);
    else if (strcmp(type, "stacked") == 0)
        snprintf(fig->title, sizeof fig->title, "%s: breakdown of the best point per %s%s%s",
                 job->experiment, fig->x.name, fig->has_series ? " and " : "",
                 fig->has_series ? fig->series.name : "");
    else if (strcmp(type, "box") == 0)
        snprintf(fig->title, sizeof fig->title,
                 "%s: %s of every repetition of the best point "
                 "per %s",
                 job->experiment, fig->y.lower_is_better ? "time" : fig->y.name, fig->x.name);
    else if (scaling)
        snprintf(fig->title, sizeof fig->title, "%s: %s vs %s", job->experiment,
                 fig->scaling == RT_PLOT_SCALE_SPEEDUP      ? "speedup"
                 : fig->scaling == RT_PLOT_SCALE_EFFICIENCY ? "parallel efficiency"
                                                            : fig->y.name,
                 fig->x.name);
    else
        snprintf(fig->title, sizeof fig->title, "%s: %s vs %s", job->experiment, fig->y.name,
                 fig->x.name);
    return 0;
}

static int draw_configured(plot_job *job, const rt_plot_cfg *plots, int n_plots, rt_err *err)
{
    /* Two figures writing one file would silently keep only the last: refuse before drawing. */
    for (int i = 0; i < n_plots; ++i) {
        char stem_i[RT_PLOT_STEM_MAX];
        cfg_stem(&plots[i], stem_i, sizeof stem_i);
        for (int j = i + 1; j < n_plots; ++j) {
            char stem_j[RT_PLOT_STEM_MAX];
            cfg_stem(&plots[j], stem_j, sizeof stem_j);
            if (strcmp(stem_i, stem_j) == 0) {
                char context[700];
                cfg_context(&plots[j], j, context, sizeof context);
                return rt_err_set(err,
                                  "%s: name: plots[%d] and plots[%d] both write '%s' (give "
                                  "one of them another name)",
                                  context, i, j, stem_i);
            }
        }
    }
    figure fig;
    for (int i = 0; i < n_plots; ++i) {
        if (figure_from_cfg(job, &plots[i], i, &fig, err) != 0)
            return -1;
        char where[4096];
        if (plots[i].n_where > 0) {
            if (rt_plot_where_apply(job->db, job->experiment, plots[i].where, plots[i].n_where,
                                    where, sizeof where, err) != 0)
                return rt_err_prefix(err, "%s", fig.context);
            fig.where = where;
        }
        const int rc = draw_figure(job, &fig, err);
        if (plots[i].n_where > 0)
            rt_plot_where_clear(job->db);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static int draw_defaults(plot_job *job, rt_err *err)
{
    figure fig;
    memset(&fig, 0, sizeof fig);
    snprintf(fig.context, sizeof fig.context, "default figures");
    if (rt_plot_data_resolve(job->db, job->experiment, "gflops", &fig.y, err) != 0 ||
        rt_plot_data_resolve(job->db, job->experiment, "kernel", &fig.series, err) != 0)
        return rt_err_prefix(err, "default figures");
    fig.has_series = 1;

    char param[RT_PLOT_TEXT_MAX];
    int varies = 0;
    if (rt_plot_data_first_varying(job->db, job->experiment, param, sizeof param, &varies, err))
        return rt_err_prefix(err, "default figures");
    if (varies) {
        if (rt_plot_data_resolve(job->db, job->experiment, param, &fig.x, err) != 0)
            return rt_err_prefix(err, "default figures");
        rt_plot_names matrices;
        if (rt_plot_data_matrices(job->db, job->experiment, &matrices, err) != 0)
            return rt_err_prefix(err, "default figures");
        snprintf(fig.type, sizeof fig.type, "line");
        for (int m = 0; m < matrices.n; ++m) {
            char raw[300];
            snprintf(raw, sizeof raw, "gflops-vs-%s-%s", param, matrices.items[m]);
            rt_plot_sanitize_name(raw, fig.stem, sizeof fig.stem);
            snprintf(fig.title, sizeof fig.title, "%s: GFLOP/s vs %s on %s", job->experiment, param,
                     matrices.items[m]);
            snprintf(fig.context, sizeof fig.context, "default figure %s", fig.stem);
            fig.matrix = matrices.items[m];
            if (draw_figure(job, &fig, err) != 0) {
                rt_plot_data_names_free(&matrices);
                return -1;
            }
        }
        rt_plot_data_names_free(&matrices);
        fig.matrix = NULL;
    } else {
        append(job->notes, sizeof job->notes,
               "; no parameter varies, so no default line figure was drawn");
    }

    if (rt_plot_data_resolve(job->db, job->experiment, "matrix", &fig.x, err) != 0)
        return rt_err_prefix(err, "default figures");
    snprintf(fig.type, sizeof fig.type, "bars");
    snprintf(fig.stem, sizeof fig.stem, "best-gflops-per-matrix");
    snprintf(fig.title, sizeof fig.title, "%s: best GFLOP/s per matrix and kernel",
             job->experiment);
    snprintf(fig.context, sizeof fig.context, "default figure %s", fig.stem);
    return draw_figure(job, &fig, err);
}

int rt_plot_experiment(struct sqlite3 *db, const char *experiment, const rt_plot_cfg *plots,
                       int n_plots, const char *out_dir, rt_plot_result *res, rt_err *err)
{
    if (!res)
        return rt_err_set(err, "rt_plot_experiment: res must not be NULL");
    memset(res, 0, sizeof *res);
    if (!db)
        return rt_err_set(err, "rt_plot_experiment: no result store is open");
    if (!experiment || !*experiment)
        return rt_err_set(err, "rt_plot_experiment: the experiment name is empty");
    if (!out_dir || !*out_dir)
        return rt_err_set(err, "rt_plot_experiment: the plot folder is empty");
    if (n_plots < 0 || (n_plots > 0 && !plots))
        return rt_err_set(err, "rt_plot_experiment: %d plot specs given without a list", n_plots);

    plot_job job = {.db = db, .experiment = experiment, .out_dir = out_dir, .res = res};
    int64_t total = 0, ok = 0;
    if (rt_plot_data_count(db, experiment, &total, &ok, err) != 0)
        return -1;
    rt_outdir made;
    if (rt_plot_job_begin(&job, &made, err) != 0)
        return -1;

    int rc = 0;
    if (ok == 0)
        append(job.notes, sizeof job.notes,
               "; none of the experiment's %lld points has status ok, so there is nothing to "
               "draw",
               (long long)total);
    else
        rc = n_plots > 0 ? draw_configured(&job, plots, n_plots, err) : draw_defaults(&job, err);
    if (rc != 0)
        rt_outdir_undo(&made); /* a folder made for this call and left empty goes again */

    if (res->gnuplot_missing)
        snprintf(res->message, sizeof res->message, "%s (%d figure%s in %s)%s", missing_message,
                 res->n_figures, res->n_figures == 1 ? "" : "s", out_dir, job.notes);
    else
        snprintf(res->message, sizeof res->message,
                 "wrote %d figure%s (.dat, .gp, .png, .svg) "
                 "to %s%s",
                 res->n_figures, res->n_figures == 1 ? "" : "s", out_dir, job.notes);
    return rc;
}
