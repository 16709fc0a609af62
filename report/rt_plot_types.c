/* rt_plot_types: the figure types beyond line and grouped bars (rt_plot.c): stacked breakdown
 * bars, Tukey box plots of the raw samples, heat maps of a P x P metric family and scaling
 * figures over the rank count. They share the look, the file layout and the number format of the
 * other figures (rt_plot_writer.h); docs/guides/figures.md describes what each one draws. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_plot_types.h"
#include "rt_plot_query.h"
#include "rt_store_read.h"

typedef rt_plot_figure figure;
typedef rt_plot_job plot_job;

/* Heat maps larger than this are almost certainly a misnamed metric, not a rank count. */
#define HEATMAP_MAX_RANKS 4096
/* Cell values are printed on heat maps up to this size; beyond, they would overlap. */
#define HEATMAP_MAX_LABELLED 16

/* ------------------------------------------------------------------------------------------- */
/* Best point per (series, x), with its id: the figures below need more of the point than the
 * one value rt_plot_data_fetch returns (its samples, its breakdown). */

typedef rt_plot_point best_point;

typedef struct best_set {
    int n;
    int cap;
    best_point *items;
    char *query; /* malloc'd */
} best_set;

static void best_set_free(best_set *b)
{
    free(b->items);
    free(b->query);
    memset(b, 0, sizeof *b);
}

/* Numbers before text, numbers by value, text byte-wise: the order of rt_plot_data. */
static int compare_series(const rt_plot_row *a, const rt_plot_row *b)
{
    if (a->series_numeric && b->series_numeric)
        return (a->series_value > b->series_value) - (a->series_value < b->series_value);
    if (a->series_numeric != b->series_numeric)
        return a->series_numeric ? -1 : 1;
    return strcmp(a->series, b->series);
}

/* Sort keys: series, x, then the better y first, then the lower id, so that the first row of a
 * (series, x) run is the chosen point and ties always resolve the same way. One comparison, two
 * comparators, because qsort cannot carry whether lower is better. */

static int compare_best(const void *pa, const void *pb, int lower_is_better)
{
    const best_point *a = pa, *b = pb;
    int c = compare_series(&a->row, &b->row);
    if (!c)
        c = rt_plot_data_compare_x(&a->row, &b->row);
    if (!c)
        c = lower_is_better ? (a->row.y > b->row.y) - (a->row.y < b->row.y)
                            : (a->row.y < b->row.y) - (a->row.y > b->row.y);
    if (!c)
        c = (a->id > b->id) - (a->id < b->id);
    return c;
}

static int compare_best_lower(const void *pa, const void *pb)
{
    return compare_best(pa, pb, 1);
}

static int compare_best_higher(const void *pa, const void *pb)
{
    return compare_best(pa, pb, 0);
}

/* The best status-ok point per (series, x) by fig->y: the smallest y for times, the largest
 * otherwise; ties go to the lowest point id. n_points says how many points each was chosen from. */
static int fetch_best(const plot_job *job, const figure *fig, best_set *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    rt_plot_field one_series;
    const rt_plot_field *series = &fig->series;
    if (!fig->has_series) {
        rt_plot_data_constant(fig->y.name, &one_series);
        series = &one_series;
    }
    if (rt_plot_query_points(job->db, job->experiment, &fig->x, &fig->y, series, fig->matrix,
                             &out->items, &out->n, &out->cap, &out->query, err) != 0)
        return -1;
    if (out->n > 1)
        qsort(out->items, (size_t)out->n, sizeof *out->items,
              fig->y.lower_is_better ? compare_best_lower : compare_best_higher);
    /* Keep the first of each (series, x) run and count the run. */
    int kept = 0;
    for (int r = 0; r < out->n; ++r) {
        if (kept > 0 && compare_series(&out->items[kept - 1].row, &out->items[r].row) == 0 &&
            rt_plot_data_compare_x(&out->items[kept - 1].row, &out->items[r].row) == 0) {
            ++out->items[kept - 1].row.n_points;
            continue;
        }
        out->items[kept] = out->items[r];
        out->items[kept].row.n_points = 1;
        ++kept;
    }
    out->n = kept;
    return 0;
}

/* Distinct x values of a best set in axis order (indices of representatives), and the distinct
 * series (rows are sorted by series). */
typedef struct index_list {
    int n;
    int *at;
} index_list;

static int distinct_x(const best_set *b, index_list *xs, rt_err *err)
{
    xs->n = 0;
    xs->at = malloc((size_t)(b->n > 0 ? b->n : 1) * sizeof *xs->at);
    if (!xs->at)
        return rt_err_set(err, "out of memory arranging figure data");
    for (int r = 0; r < b->n; ++r) {
        int lo = 0, hi = xs->n;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (rt_plot_data_compare_x(&b->items[xs->at[mid]].row, &b->items[r].row) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < xs->n && rt_plot_data_compare_x(&b->items[xs->at[lo]].row, &b->items[r].row) == 0)
            continue;
        memmove(xs->at + lo + 1, xs->at + lo, (size_t)(xs->n - lo) * sizeof *xs->at);
        xs->at[lo] = r;
        ++xs->n;
    }
    return 0;
}

static int distinct_series(const best_set *b, index_list *ss, rt_err *err)
{
    ss->n = 0;
    ss->at = malloc((size_t)(b->n > 0 ? b->n : 1) * sizeof *ss->at);
    if (!ss->at)
        return rt_err_set(err, "out of memory arranging figure data");
    for (int r = 0; r < b->n; ++r)
        if (r == 0 || compare_series(&b->items[r].row, &b->items[r - 1].row) != 0)
            ss->at[ss->n++] = r;
    return 0;
}

static int x_position(const best_set *b, const index_list *xs, int r)
{
    for (int g = 0; g < xs->n; ++g)
        if (rt_plot_data_compare_x(&b->items[xs->at[g]].row, &b->items[r].row) == 0)
            return g;
    return -1;
}

static int series_position(const best_set *b, const index_list *ss, int r)
{
    for (int s = 0; s < ss->n; ++s)
        if (compare_series(&b->items[ss->at[s]].row, &b->items[r].row) == 0)
            return s;
    return -1;
}

/* "time (seconds)" -> "seconds": the unit in a field's label, for combined axis labels. */
static void label_unit(const char *label, char *unit, size_t len)
{
    unit[0] = '\0';
    const char *open = strrchr(label, '(');
    const char *close = strrchr(label, ')');
    if (open && close && close > open + 1 && close[1] == '\0')
        snprintf(unit, len, "%.*s", (int)(close - open - 1), open + 1);
}

/* ------------------------------------------------------------------------------------------- */
/* Stacked breakdown bars */

/* The stack values of one point, NAN where a value is missing. */
static int read_stack(const plot_job *job, const figure *fig, int64_t id, double *values,
                      rt_err *err)
{
    int text_col = -1, found = 0;
    char text[RT_PLOT_TEXT_MAX];
    if (rt_plot_query_values(job->db, fig->stack, fig->n_stack, id, values, &text_col, text,
                             sizeof text, &found, err) != 0)
        return -1;
    if (text_col >= 0)
        return rt_err_set(err,
                          "stack[%d]: '%s' cannot be stacked: it holds text such as "
                          "'%s'",
                          text_col, fig->stack[text_col].name, text);
    if (!found)
        return rt_err_set(err, "point %lld vanished while the figure was drawn", (long long)id);
    return 0;
}

int rt_plot_draw_stacked(plot_job *job, const figure *fig, rt_err *err)
{
    best_set b;
    double *values = NULL;
    int *order = NULL;
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command cmd = {0};
    int rc = -1;
    if (fetch_best(job, fig, &b, err) != 0)
        goto done;
    if (b.n == 0) {
        rt_plot_note(job, "; skipped %s: no status-ok point has both %s and %s", fig->stem,
                     fig->x.name, fig->y.name);
        rc = 0;
        goto done;
    }
    values = malloc((size_t)b.n * (size_t)fig->n_stack * sizeof *values);
    if (!values) {
        rt_err_set(err, "out of memory arranging figure data");
        goto done;
    }
    int any_missing = 0;
    for (int r = 0; r < b.n; ++r) {
        if (read_stack(job, fig, b.items[r].id, values + (size_t)r * (size_t)fig->n_stack, err))
            goto done;
        for (int k = 0; k < fig->n_stack; ++k) {
            const double v = values[(size_t)r * (size_t)fig->n_stack + (size_t)k];
            any_missing |= isnan(v);
            if (v < 0) {
                rt_err_set(err,
                           "stack[%d]: %s is negative (%g) for a chosen point: stacked bars "
                           "need values >= 0",
                           k, fig->stack[k].name, v);
                goto done;
            }
        }
    }

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    rt_plot_write_data_intro(dat, job, fig, b.query);
    fprintf(dat,
            "# one bar per %s%s%s: the status-ok point with the best %s (%s), its values "
            "stacked bottom first\n",
            fig->x.name, fig->has_series ? " and " : "", fig->has_series ? fig->series.name : "",
            fig->y.name, fig->y.lower_is_better ? "the minimum" : "the maximum");
    fprintf(dat, "# columns: bar label, total, point id, n_points,");
    for (int k = 0; k < fig->n_stack; ++k)
        fprintf(dat, " %s", fig->stack[k].name);
    fprintf(dat, "\n# '?' marks a value the point does not have (drawn as nothing)\n");
    /* Bars grouped by x, then series within a group (the set is sorted by series, then x). */
    order = malloc((size_t)b.n * sizeof *order);
    if (!order) {
        rt_err_set(err, "out of memory arranging figure data");
        goto done;
    }
    int n_order = 0, longest = 0;
    for (int pass_x = 0; pass_x < b.n; ++pass_x) {
        int first_of_x = 1;
        for (int r = 0; r < pass_x; ++r)
            first_of_x &= rt_plot_data_compare_x(&b.items[r].row, &b.items[pass_x].row) != 0;
        if (!first_of_x)
            continue;
        for (int r = 0; r < b.n; ++r)
            if (rt_plot_data_compare_x(&b.items[r].row, &b.items[pass_x].row) == 0)
                order[n_order++] = r;
    }
    /* ... and the groups themselves in axis order. */
    for (int i = 1; i < n_order; ++i)
        for (int j = i; j > 0 && rt_plot_data_compare_x(&b.items[order[j - 1]].row,
                                                        &b.items[order[j]].row) > 0;
             --j) {
            const int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (int o = 0; o < n_order; ++o) {
        const int r = order[o];
        const best_point *p = &b.items[r];
        char label[2 * RT_PLOT_TEXT_MAX + 4];
        if (fig->has_series)
            snprintf(label, sizeof label, "%s %s", p->row.x_text, p->row.series);
        else
            snprintf(label, sizeof label, "%s", p->row.x_text);
        longest = (int)strlen(label) > longest ? (int)strlen(label) : longest;
        rt_plot_write_data_text(dat, label);
        double total = 0;
        for (int k = 0; k < fig->n_stack; ++k) {
            const double v = values[(size_t)r * (size_t)fig->n_stack + (size_t)k];
            total += isnan(v) ? 0 : v;
        }
        fprintf(dat, " %.10g %lld %lld", total, (long long)p->id, (long long)p->row.n_points);
        for (int k = 0; k < fig->n_stack; ++k) {
            const double v = values[(size_t)r * (size_t)fig->n_stack + (size_t)k];
            rt_plot_write_value(dat, v);
        }
        fputc('\n', dat);
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    char what[300];
    snprintf(what, sizeof what, "breakdown of the best point (by %s) per %s, %d stacked values",
             fig->y.name, fig->x.name, fig->n_stack);
    /* The axis shows the stacked values, not y: label it with their common unit. */
    figure shown = *fig;
    char unit[64] = "", other[64];
    int same_unit = 1;
    label_unit(fig->stack[0].label, unit, sizeof unit);
    for (int k = 1; k < fig->n_stack; ++k) {
        label_unit(fig->stack[k].label, other, sizeof other);
        same_unit &= strcmp(unit, other) == 0;
    }
    if (fig->n_stack == 1)
        snprintf(shown.y.label, sizeof shown.y.label, "%s", fig->stack[0].label);
    else if (same_unit && unit[0])
        snprintf(shown.y.label, sizeof shown.y.label, "stacked values (%s)", unit);
    else
        snprintf(shown.y.label, sizeof shown.y.label, "stacked values");
    snprintf(shown.x.label, sizeof shown.x.label, "%s%s%s", fig->x.label,
             fig->has_series ? " and " : "", fig->has_series ? fig->series.label : "");
    rt_plot_write_gp_header(gp, job, &shown, what);
    fprintf(gp, "set style data histograms\nset style histogram rowstacked\n");
    fprintf(gp, "set style fill solid 0.85 border lc rgb '#404040'\nset boxwidth 0.7 relative\n");
    fprintf(gp, "set grid noxtics\nset yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n");
    if (b.n * (longest + 4) > 80) /* long or many labels overlap when horizontal */
        fprintf(gp, "set xtics rotate by 30 right\n");
    if (any_missing)
        fprintf(gp, "# '?' cells stack nothing\n");
    if (rt_plot_command_open(&cmd, gp_out.path, err) != 0)
        goto done;
    for (int k = 0; k < fig->n_stack; ++k) {
        if (k == 0)
            fprintf(cmd.f, "plot '%s.dat' using %d:xtic(1) ", fig->stem, 5 + k);
        else
            fprintf(cmd.f, ", \\\n     '' using %d ", 5 + k);
        rt_plot_write_series_style(cmd.f, k);
        fprintf(cmd.f, " title ");
        rt_plot_write_quoted(cmd.f, fig->stack[k].name);
    }
    /* The total above each bar. */
    fprintf(cmd.f, ", \\\n     '' using 0:2:(gprintf('%%.4g', $2)) with labels center "
                   "offset 0,0.7 font ',9' notitle\n");
    rc = rt_plot_command_finish(job, fig, &gp_out, &cmd, err);
    gp = NULL;
done:
    rt_plot_release_figure(&dat_out, &gp_out, &cmd);
    free(values);
    free(order);
    best_set_free(&b);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Tukey box plots of the samples */

/* The sample quantile at p by linear interpolation between order statistics (Hyndman and Fan's
 * type 7, the default of R and NumPy), on sorted data. */
static double quantile(const double *sorted, int n, double p)
{
    const double h = (n - 1) * p;
    const int lo = (int)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

static int compare_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

typedef struct box_stats {
    double q1, median, q3, whisker_lo, whisker_hi;
    int n;
} box_stats;

/* Tukey's box: quartiles, whiskers at the most extreme samples within 1.5 IQR of the box; the
 * samples beyond are outliers (sorted must be sorted). */
static void tukey(const double *sorted, int n, box_stats *b)
{
    b->n = n;
    b->q1 = quantile(sorted, n, 0.25);
    b->median = quantile(sorted, n, 0.5);
    b->q3 = quantile(sorted, n, 0.75);
    const double iqr = b->q3 - b->q1;
    const double lo_fence = b->q1 - 1.5 * iqr, hi_fence = b->q3 + 1.5 * iqr;
    b->whisker_lo = b->q1;
    b->whisker_hi = b->q3;
    for (int i = 0; i < n; ++i)
        if (sorted[i] >= lo_fence) {
            b->whisker_lo = sorted[i] < b->q1 ? sorted[i] : b->q1;
            break;
        }
    for (int i = n - 1; i >= 0; --i)
        if (sorted[i] <= hi_fence) {
            b->whisker_hi = sorted[i] > b->q3 ? sorted[i] : b->q3;
            break;
        }
}

/* The values a box shows for one point: its samples in seconds, or as a rate. */
static int read_box_values(const plot_job *job, const best_point *p, int rate, double **values,
                           int *n, rt_err *err)
{
    *values = NULL;
    *n = 0;
    double median = NAN;
    if (rt_store_point_time_median(job->db, p->id, &median, err) != 0)
        return -1;
    int cap = 0;
    if (rt_store_samples(job->db, p->id, values, n, &cap, err) != 0)
        return -1;
    int kept = 0;
    for (int k = 0; k < *n; ++k) {
        double v = (*values)[k];
        /* A rate per sample: the point's rate at its median, scaled by median / sample. */
        if (rate)
            v = p->row.y * median / v;
        if (!isfinite(v))
            continue;
        (*values)[kept++] = v;
    }
    *n = kept;
    if (rate && !(median > 0))
        *n = 0; /* no median to scale by: nothing honest to draw */
    return 0;
}

int rt_plot_draw_box(plot_job *job, const figure *fig, rt_err *err)
{
    /* A box shows samples, so y must be something every sample has: the time, or a rate that is
     * the point's rate scaled by its median over the sample. */
    static const char *const times[] = {"time_median_s", "time_min_s", "time_max_s"};
    static const char *const rates[] = {"gflops", "gnnz_s"};
    int is_time = 0, is_rate = 0;
    for (size_t k = 0; k < sizeof times / sizeof times[0]; ++k)
        is_time |= strcmp(fig->y.name, times[k]) == 0;
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; ++k)
        is_rate |= strcmp(fig->y.name, rates[k]) == 0;
    if (!is_time && !is_rate)
        return rt_err_set(err,
                          "y: a box plot draws every repetition, so y must be a time "
                          "(time_median_s, time_min_s, time_max_s) or a rate (gflops, "
                          "gnnz_s), not '%s'",
                          fig->y.name);

    best_set b;
    index_list xs = {0}, ss = {0};
    box_stats *boxes = NULL;
    double **values = NULL;
    int *counts = NULL;
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command cmd = {0};
    int rc = -1;
    if (fetch_best(job, fig, &b, err) != 0)
        goto done;
    boxes = calloc((size_t)(b.n > 0 ? b.n : 1), sizeof *boxes);
    values = calloc((size_t)(b.n > 0 ? b.n : 1), sizeof *values);
    counts = calloc((size_t)(b.n > 0 ? b.n : 1), sizeof *counts);
    if (!boxes || !values || !counts) {
        rt_err_set(err, "out of memory arranging figure data");
        goto done;
    }
    int n_boxes = 0, n_outliers = 0;
    for (int r = 0; r < b.n; ++r) {
        if (read_box_values(job, &b.items[r], is_rate, &values[r], &counts[r], err) != 0)
            goto done;
        if (counts[r] == 0)
            continue;
        qsort(values[r], (size_t)counts[r], sizeof *values[r], compare_double);
        tukey(values[r], counts[r], &boxes[r]);
        ++n_boxes;
        for (int i = 0; i < counts[r]; ++i)
            n_outliers += values[r][i] < boxes[r].whisker_lo || values[r][i] > boxes[r].whisker_hi;
    }
    if (n_boxes == 0) {
        rt_plot_note(job, "; skipped %s: no status-ok point has samples", fig->stem);
        rc = 0;
        goto done;
    }
    if (distinct_x(&b, &xs, err) != 0 || distinct_series(&b, &ss, err) != 0)
        goto done;
    const double slot = 0.8 / ss.n;

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    rt_plot_write_data_intro(dat, job, fig, b.query);
    fprintf(dat, "# one box per %s%s%s: every sample of the status-ok point with the best %s%s\n",
            fig->x.name, fig->has_series ? " and " : "", fig->has_series ? fig->series.name : "",
            fig->y.name, is_rate ? " (a sample's rate = the point's rate x median / sample)" : "");
    fprintf(dat, "# Tukey: quartiles by linear interpolation (type 7), whiskers at the most "
                 "extreme samples within 1.5 IQR of the box\n");
    fprintf(dat,
            "# columns: position label q1 whisker_lo whisker_hi q3 median n_samples point_id "
            "n_points\n# one block per %s (gnuplot index N); the last block holds the "
            "outliers (position value)\n",
            fig->has_series ? fig->series.name : "series");
    for (int s = 0; s < ss.n; ++s) {
        const int first = ss.at[s], last = s + 1 < ss.n ? ss.at[s + 1] : b.n;
        fprintf(dat, "%s# index %d: %s = ", s ? "\n\n" : "\n", s,
                fig->has_series ? fig->series.name : "series");
        rt_plot_write_comment(dat, b.items[first].row.series);
        fputc('\n', dat);
        for (int r = first; r < last; ++r) {
            if (counts[r] == 0)
                continue;
            const double pos = x_position(&b, &xs, r) + (s - (ss.n - 1) / 2.0) * slot;
            const box_stats *bx = &boxes[r];
            fprintf(dat, "%.10g ", pos);
            rt_plot_write_data_text(dat, b.items[r].row.x_text);
            fprintf(dat, " %.10g %.10g %.10g %.10g %.10g %d %lld %lld\n", bx->q1, bx->whisker_lo,
                    bx->whisker_hi, bx->q3, bx->median, bx->n, (long long)b.items[r].id,
                    (long long)b.items[r].row.n_points);
        }
    }
    if (n_outliers > 0) {
        fprintf(dat, "\n\n# index %d: outliers\n", ss.n);
        for (int r = 0; r < b.n; ++r) {
            const int s = series_position(&b, &ss, r);
            const double pos = x_position(&b, &xs, r) + (s - (ss.n - 1) / 2.0) * slot;
            for (int i = 0; i < counts[r]; ++i)
                if (values[r][i] < boxes[r].whisker_lo || values[r][i] > boxes[r].whisker_hi)
                    fprintf(dat, "%.10g %.10g\n", pos, values[r][i]);
        }
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    figure shown = *fig;
    if (is_time)
        snprintf(shown.y.label, sizeof shown.y.label, "time of one repetition (seconds)");
    char what[300];
    snprintf(what, sizeof what, "Tukey box plots of the samples of the best point per %s",
             fig->x.name);
    rt_plot_write_gp_header(gp, job, &shown, what);
    fprintf(gp, "set style fill solid 0.35 border\nset boxwidth %.6g absolute\n", slot * 0.8);
    fprintf(gp, "set grid noxtics\n");
    rt_plot_write_text_xtics(gp, b.items, sizeof b.items[0], offsetof(best_point, row), xs.at,
                             xs.n);
    /* Like every other figure, times and rates read against zero unless a log axis is asked for
     * (the tail of a skewed distribution can then be read too). */
    if (fig->logy > 0)
        fprintf(gp, "set logscale y 10\nset offsets 0, 0, graph 0.05, graph 0.05\n");
    else
        fprintf(gp, "set yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n");
    if (!fig->has_series)
        fprintf(gp, "unset key\n");
    if (rt_plot_command_open(&cmd, gp_out.path, err) != 0)
        goto done;
    for (int s = 0; s < ss.n; ++s) {
        rt_plot_write_series_item(cmd.f, fig->stem, s,
                                  "1:3:4:5:6 with candlesticks whiskerbars 0.5",
                                  b.items[ss.at[s]].row.series);
        fprintf(cmd.f,
                ", \\\n     '' index %d using 1:7:7:7:7 with candlesticks lt -1 lw 2 "
                "notitle",
                s);
    }
    if (n_outliers > 0)
        fprintf(cmd.f,
                ", \\\n     '' index %d using 1:2 with points pt 6 ps 0.8 lc rgb "
                "'#404040' title 'outliers'",
                ss.n);
    fputc('\n', cmd.f);
    rc = rt_plot_command_finish(job, fig, &gp_out, &cmd, err);
    gp = NULL;
done:
    rt_plot_release_figure(&dat_out, &gp_out, &cmd);
    for (int r = 0; values && r < b.n; ++r)
        free(values[r]);
    free(values);
    free(counts);
    free(boxes);
    free(xs.at);
    free(ss.at);
    best_set_free(&b);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Heat maps of a metric family <family>_<i>_<j> */

/* Parses "<i>_<j>" (decimal digits only) after the family prefix. */
static int parse_pair(const char *suffix, int *i, int *j)
{
    char *end;
    if (*suffix < '0' || *suffix > '9')
        return 0;
    const long a = strtol(suffix, &end, 10);
    if (*end != '_' || end[1] < '0' || end[1] > '9')
        return 0;
    const long b = strtol(end + 1, &end, 10);
    if (*end != '\0' || a >= HEATMAP_MAX_RANKS || b >= HEATMAP_MAX_RANKS)
        return 0;
    *i = (int)a;
    *j = (int)b;
    return 1;
}

int rt_plot_draw_heatmap(plot_job *job, const figure *fig, rt_err *err)
{
    const char *family = fig->family;
    const size_t flen = strlen(family);
    if (flen == 0)
        return rt_err_set(err, "y: a heatmap needs a metric family (e.g. comm_bytes for "
                               "comm_bytes_<i>_<j>)");
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s_", family);

    double *cells = NULL;
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command cmd = {0};
    int rc = -1;
    char *query = NULL;
    rt_store_metric *metrics = NULL;

    /* Is the family there at all? An unknown family is a mistake; one without an ok point is a
     * figure with nothing to show. */
    int64_t family_rows = 0;
    if (rt_plot_query_family_count(job->db, job->experiment, prefix, &family_rows, err) != 0)
        goto done;
    if (family_rows == 0) {
        char listing[900];
        rt_plot_query_metric_names(job->db, job->experiment, listing, sizeof listing);
        rt_err_set(err,
                   "y: no metric of the family %s_<i>_<j> in experiment '%s'; its metrics "
                   "are: %s",
                   family, job->experiment, listing[0] ? listing : "(none)");
        goto done;
    }

    rt_plot_family_point fp;
    int have_point = 0;
    if (rt_plot_query_family_point(job->db, job->experiment, fig->matrix, prefix, &fp, &have_point,
                                   &query, err) != 0)
        goto done;
    if (!have_point) {
        rt_plot_note(job, "; skipped %s: no status-ok point has %s_<i>_<j> values", fig->stem,
                     family);
        rc = 0;
        goto done;
    }
    const int64_t id = fp.id;
    char kernel[128], matrix[128], params[1024], problem[512];
    snprintf(kernel, sizeof kernel, "%s", fp.kernel);
    snprintf(matrix, sizeof matrix, "%s", fp.matrix);
    snprintf(params, sizeof params, "%s", fp.params);
    snprintf(problem, sizeof problem, "%s", fp.problem);
    const int ranks = fp.ranks;

    /* Its cells. */
    int n_metrics = 0, metrics_cap = 0;
    if (rt_store_metrics(job->db, id, prefix, &metrics, &n_metrics, &metrics_cap, err) != 0) {
        rt_err_prefix(err, "cannot read the heat map");
        goto done;
    }
    typedef struct cell {
        int i, j;
        double v;
    } cell;
    cell *found = NULL;
    int n_found = 0, cap = 0, size = 0;
    char unit[32] = "";
    for (int k = 0; k < n_metrics; ++k) {
        const rt_store_metric *m = &metrics[k];
        if (!m->has_value)
            continue;
        const char *name = m->name;
        int i, j;
        if (!parse_pair(name + strlen(prefix), &i, &j))
            continue; /* e.g. comm_bytes_total: same prefix, not a cell */
        if (n_found == cap) {
            cap = cap ? 2 * cap : 64;
            void *grown = realloc(found, (size_t)cap * sizeof *found);
            if (!grown) {
                free(found);
                rt_err_set(err, "out of memory reading the heat map");
                goto done;
            }
            found = grown;
        }
        found[n_found++] = (cell){i, j, m->value};
        size = i + 1 > size ? i + 1 : size;
        size = j + 1 > size ? j + 1 : size;
        if (!unit[0])
            snprintf(unit, sizeof unit, "%s", m->unit);
    }
    if (n_found == 0) {
        free(found);
        rt_plot_note(job,
                     "; skipped %s: point %lld has no metric named %s<i>_<j> with numbers "
                     "i and j",
                     fig->stem, (long long)id, prefix);
        rc = 0;
        goto done;
    }
    cells = malloc((size_t)size * (size_t)size * sizeof *cells);
    if (!cells) {
        free(found);
        rt_err_set(err, "out of memory arranging the heat map");
        goto done;
    }
    for (int c = 0; c < size * size; ++c)
        cells[c] = NAN;
    for (int c = 0; c < n_found; ++c)
        cells[found[c].i * size + found[c].j] = found[c].v;
    free(found);

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    rt_plot_write_data_intro(dat, job, fig, query);
    fprintf(dat, "# metric family %s<i>_<j> [%s] of point %lld: kernel ", prefix,
            unit[0] ? unit : "no unit", (long long)id);
    rt_plot_write_comment(dat, kernel);
    fprintf(dat, ", matrix ");
    rt_plot_write_comment(dat, matrix);
    fprintf(dat, ", params ");
    rt_plot_write_comment(dat, params);
    fprintf(dat, ", problem ");
    rt_plot_write_comment(dat, problem);
    fprintf(dat,
            ", %d ranks\n# the status-ok point with the shortest median time that has the "
            "family\n# columns: i j value (row i, column j; '?' where the point has no "
            "value); a blank line after each row\n",
            ranks);
    for (int i = 0; i < size; ++i) {
        for (int j = 0; j < size; ++j) {
            const double v = cells[i * size + j];
            if (isnan(v))
                fprintf(dat, "%d %d ?\n", i, j);
            else
                fprintf(dat, "%d %d %.10g\n", i, j, v);
        }
        fputc('\n', dat);
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    figure shown = *fig;
    if (!fig->title_given) /* say whose matrix it is */
        snprintf(shown.title, sizeof shown.title,
                 "%s: %s<i>_<j> of %s on %s, %d ranks (the "
                 "fastest point)",
                 job->experiment, prefix, kernel, matrix, ranks);
    snprintf(shown.x.label, sizeof shown.x.label, "j (second index of %s<i>_<j>)", prefix);
    snprintf(shown.y.label, sizeof shown.y.label, "i (first index)");
    char what[300];
    snprintf(what, sizeof what, "%s<i>_<j> of one point as a %d x %d matrix", prefix, size, size);
    rt_plot_write_gp_header(gp, job, &shown, what);
    /* Row 0 at the top, as a matrix is read; one cell per unit square. */
    fprintf(gp, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", size - 0.5, size - 0.5);
    fprintf(gp, "set xtics 1 out\nset ytics 1 out\nset grid noxtics noytics\nunset key\n");
    if (size > HEATMAP_MAX_LABELLED)
        fprintf(gp, "set xtics %d\nset ytics %d\n", (size + 15) / 16, (size + 15) / 16);
    fprintf(gp, "set size ratio -1\n");
    /* Sequential, perceptually ordered and readable in grey (viridis' end points). */
    fprintf(gp, "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', "
                "4 '#fde725')\n");
    fprintf(gp, "set cbrange [0:*]\nset cblabel ");
    char cb[160];
    snprintf(cb, sizeof cb, "%s<i>_<j>%s%s%s", prefix, unit[0] ? " (" : "", unit,
             unit[0] ? ")" : "");
    rt_plot_write_quoted(gp, cb);
    fprintf(gp, "\n");
    if (rt_plot_command_open(&cmd, gp_out.path, err) != 0)
        goto done;
    fprintf(cmd.f,
            "plot '%s.dat' using 2:1:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder "
            "fc palette notitle",
            fig->stem);
    if (size <= HEATMAP_MAX_LABELLED)
        fprintf(cmd.f, ", \\\n     '' using 2:1:(gprintf('%%.3g', $3)) with labels font ',8' "
                       "tc rgb '#808080' notitle");
    fputc('\n', cmd.f);
    rc = rt_plot_command_finish(job, fig, &gp_out, &cmd, err);
    gp = NULL;
done:
    free(metrics);
    rt_plot_release_figure(&dat_out, &gp_out, &cmd);
    free(cells);
    free(query);
    return rc;
}

/* ------------------------------------------------------------------------------------------- */
/* Scaling over ranks */

int rt_plot_draw_scaling(plot_job *job, const figure *fig, rt_err *err)
{
    const int mode = fig->scaling;
    if (mode != RT_PLOT_SCALE_RAW && !fig->y.lower_is_better)
        return rt_err_set(err, "y: speedup and parallel efficiency are computed from a time");
    rt_plot_table t;
    if (rt_plot_data_fetch(job->db, job->experiment, &fig->x, &fig->y,
                           fig->has_series ? &fig->series : NULL, fig->matrix, &t, err) != 0) {
        rt_plot_data_table_free(&t);
        return -1;
    }
    rt_outfile dat_out = RT_OUTFILE_NONE, gp_out = RT_OUTFILE_NONE;
    FILE *dat = NULL, *gp = NULL;
    rt_plot_command cmd = {0};
    int rc = -1;
    double *shown_y = NULL, *ideal = NULL;
    index_list ss = {0};
    if (t.n == 0) {
        rt_plot_note(job, "; skipped %s: no status-ok point has both %s and %s", fig->stem,
                     fig->x.name, fig->y.name);
        rc = 0;
        goto done;
    }
    for (int r = 0; r < t.n; ++r) {
        if (!t.rows[r].x_numeric || !(t.rows[r].x > 0)) {
            rt_err_set(err,
                       "x: a scaling figure needs positive numbers on x (e.g. ranks), but "
                       "%s holds '%s'",
                       fig->x.name, t.rows[r].x_text);
            goto done;
        }
        if (!(t.rows[r].y > 0) && (mode != RT_PLOT_SCALE_RAW || fig->logy >= 0)) {
            rt_err_set(err,
                       "y: %s must be above zero on a scaling figure (log axis, ratios), "
                       "got %g",
                       fig->y.name, t.rows[r].y);
            goto done;
        }
    }
    /* Series boundaries (the table is sorted by series, then x). */
    ss.at = malloc((size_t)t.n * sizeof *ss.at);
    shown_y = malloc((size_t)t.n * sizeof *shown_y);
    ideal = malloc((size_t)t.n * sizeof *ideal);
    if (!ss.at || !shown_y || !ideal) {
        rt_err_set(err, "out of memory arranging figure data");
        goto done;
    }
    for (int r = 0; r < t.n; ++r)
        if (r == 0 || strcmp(t.rows[r].series, t.rows[r - 1].series) != 0)
            ss.at[ss.n++] = r;
    /* The ideal of a rate only when y is known to be one (points columns); of a time always. */
    const int is_rate = strcmp(fig->y.name, "gflops") == 0 || strcmp(fig->y.name, "gnnz_s") == 0;
    for (int s = 0; s < ss.n; ++s) {
        const int first = ss.at[s], last = s + 1 < ss.n ? ss.at[s + 1] : t.n;
        const double p0 = t.rows[first].x, y0 = t.rows[first].y;
        for (int r = first; r < last; ++r) {
            const double p = t.rows[r].x, y = t.rows[r].y;
            switch (mode) {
            case RT_PLOT_SCALE_SPEEDUP:
                shown_y[r] = y0 / y;
                ideal[r] = p / p0;
                break;
            case RT_PLOT_SCALE_EFFICIENCY:
                shown_y[r] = y0 * p0 / (y * p);
                ideal[r] = 1.0;
                break;
            default:
                shown_y[r] = y;
                ideal[r] = fig->y.lower_is_better ? y0 * p0 / p : is_rate ? y0 * p / p0 : NAN;
                break;
            }
        }
    }

    if (rt_plot_open_output(job, fig->stem, "dat", &dat_out, err) != 0)
        goto done;
    dat = dat_out.f;
    rt_plot_write_data_intro(dat, job, fig, t.query);
    const char *what_y = mode == RT_PLOT_SCALE_SPEEDUP      ? "speedup T(p0) / T(p)"
                         : mode == RT_PLOT_SCALE_EFFICIENCY ? "parallel efficiency T(p0) p0 / "
                                                              "(T(p) p)"
                                                            : fig->y.name;
    fprintf(dat,
            "# x = %s, y = %s (from the best %s per %s and x); p0 = the smallest %s of each "
            "series\n",
            fig->x.name, what_y, fig->y.name, fig->has_series ? fig->series.name : "series",
            fig->x.name);
    fprintf(dat,
            "# columns: %s value ideal n_points ('?' where there is no ideal)\n# one block "
            "per series, separated by two blank lines (gnuplot: index N)\n",
            fig->x.name);
    for (int s = 0; s < ss.n; ++s) {
        const int first = ss.at[s], last = s + 1 < ss.n ? ss.at[s + 1] : t.n;
        fprintf(dat, "%s# index %d: %s = ", s ? "\n\n" : "\n", s,
                fig->has_series ? fig->series.name : "series");
        rt_plot_write_comment(dat, t.rows[first].series);
        fputc('\n', dat);
        for (int r = first; r < last; ++r) {
            fprintf(dat, "%.10g %.10g ", t.rows[r].x, shown_y[r]);
            if (isnan(ideal[r]))
                fprintf(dat, "?");
            else
                fprintf(dat, "%.10g", ideal[r]);
            fprintf(dat, " %lld\n", (long long)t.rows[r].n_points);
        }
    }
    dat = NULL;
    if (rt_plot_data_to_script(job, fig->stem, &dat_out, &gp_out, err) != 0)
        goto done;
    gp = gp_out.f;
    figure shown = *fig;
    if (mode == RT_PLOT_SCALE_SPEEDUP)
        snprintf(shown.y.label, sizeof shown.y.label, "speedup over the smallest %s", fig->x.name);
    else if (mode == RT_PLOT_SCALE_EFFICIENCY)
        snprintf(shown.y.label, sizeof shown.y.label, "parallel efficiency (1 = ideal)");
    char what[300];
    snprintf(what, sizeof what, "%s against %s (log2), with the ideal dashed", what_y, fig->x.name);
    rt_plot_write_gp_header(gp, job, &shown, what);
    fprintf(gp, "set logscale x 2\nset format x '%%g'\n");
    fprintf(gp, "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
    /* Speedups read on log2 like the ranks; times and rates span decades, where powers of two
     * would make unreadable tics (2^-16 s), so they get log10. Efficiency is linear around 1. */
    if (mode == RT_PLOT_SCALE_EFFICIENCY ? fig->logy > 0 : fig->logy >= 0)
        fprintf(gp, "set logscale y %d\nset format y '%%g'\n",
                mode == RT_PLOT_SCALE_SPEEDUP ? 2 : 10);
    else
        fprintf(gp, "set yrange [0:*]\n");
    if (rt_plot_command_open(&cmd, gp_out.path, err) != 0)
        goto done;
    for (int s = 0; s < ss.n; ++s) {
        rt_plot_write_series_item(cmd.f, fig->stem, s, "1:2 with linespoints",
                                  t.rows[ss.at[s]].series);
        int has_ideal = 0;
        const int last = s + 1 < ss.n ? ss.at[s + 1] : t.n;
        for (int r = ss.at[s]; r < last; ++r)
            has_ideal |= !isnan(ideal[r]);
        if (has_ideal)
            fprintf(cmd.f, ", \\\n     '' index %d using 1:3 with lines lt %d dt 2 lw 1 %s", s,
                    s % 8 + 1, s == 0 ? "title 'ideal (dashed)'" : "notitle");
    }
    fputc('\n', cmd.f);
    rc = rt_plot_command_finish(job, fig, &gp_out, &cmd, err);
    gp = NULL;
done:
    rt_plot_release_figure(&dat_out, &gp_out, &cmd);
    free(shown_y);
    free(ideal);
    free(ss.at);
    rt_plot_data_table_free(&t);
    return rc;
}
