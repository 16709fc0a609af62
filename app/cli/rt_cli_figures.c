/* rooftune figures: every committed figure, regenerated from the committed result stores. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_figures.h"
#include "rt_outfile.h"
#include "rt_path.h"
#include "rt_timeline_csv.h"
#include "rt_timeline_plot.h"
#include "rt_timeline_stats.h"

#define MAX_TIMELINES 16

static void figures_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune figures [--results DIR] [--out DIR] [--no-roofline]\n"
            "       rooftune figures --timeline FILE.csv [--timeline FILE2.csv ...] [--out DIR]\n"
            "\n"
            "Redraws the figures of every committed store, DIR/baselines/<device>/<name>.db\n"
            "(default DIR: results), into OUT/<device>/<experiment>/ (default OUT: DIR/figures),\n"
            "with the plots of the store's plots file DIR/baselines/<device>/<name>.plots.yaml\n"
            "(figures declared after the run) or else of its recorded config (the default set\n"
            "when neither declares any) and the roofline figure. The .dat files are\n"
            "byte-for-byte stable.\n"
            "results/figures/README.md says which paper figure each one reproduces.\n"
            "\n"
            "With --timeline, draws the GPU timeline a `rooftune run --timeline` wrote instead:\n"
            "a Gantt chart (one lane per GPU and engine: kernels, H2D, D2H, P2P/D2D) into\n"
            "OUT/<name>.{dat,gp,png,svg} (default OUT: the CSV's folder; <name>: the CSV's\n"
            "name without .csv), and the overlap numbers per point and GPU (busy time of each\n"
            "engine, kernels running while a copy is in flight, overlap share) printed and\n"
            "written to OUT/<name>-summary.txt.\n");
}

/* One timeline CSV: its figure and its summary (docs/guides/figures.md). Returns 0, -1 when the
 * CSV is bad input, or -2 when the output could not be written (err says why). */
static int draw_timeline(const char *csv, const char *out, rt_err *err)
{
    char dir[PATH_MAX], stem[256], summary[PATH_MAX];
    const char *base = strrchr(csv, '/');
    base = base ? base + 1 : csv;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".csv") == 0)
        n -= 4;
    if (rt_path_format(stem, sizeof stem, err, "%.*s", (int)n, base) != 0)
        return -1;
    if (out)
        snprintf(dir, sizeof dir, "%s", out);
    else if (base == csv)
        snprintf(dir, sizeof dir, ".");
    else if (rt_path_format(dir, sizeof dir, err, "%.*s", (int)(base - csv - 1), csv) != 0)
        return -1;
    if (!dir[0])
        snprintf(dir, sizeof dir, "/"); /* a CSV at the root */
    rt_timeline_list l = {0};
    rt_timeline_gpu_stats *st = NULL;
    int n_st = 0;
    rt_timeline_plot_result pr;
    const rt_timeline_plot_opts po = {.out_dir = dir, .stem = stem, .run_gnuplot = 1};
    int rc = rt_timeline_csv_load(csv, &l, err);
    if (rc == 0 && l.n == 0)
        rc = rt_err_set(err,
                        "%s holds no record (did the traced run measure on a GPU, or were its "
                        "points all resumed from its store, which are not traced?)",
                        csv);
    const int bad_input = rc != 0;
    if (rc == 0)
        rc = rt_timeline_stats_compute(&l, &st, &n_st, err);
    if (rc == 0)
        rc = rt_timeline_plot(&l, &po, &pr, err);
    if (rc == 0)
        rc = rt_path_format(summary, sizeof summary, err, "%s/%s-summary.txt", dir, pr.stem);
    rt_outfile o = RT_OUTFILE_NONE;
    if (rc == 0)
        rc = rt_outfile_open(&o, summary, err);
    if (rc == 0) {
        rt_timeline_stats_write(o.f, csv, st, n_st);
        rc = rt_outfile_commit(&o, err);
    }
    if (rc == 0) {
        rt_timeline_stats_write(stdout, csv, st, n_st);
        printf("\ntimeline: %d record(s) on %d GPU(s): %s/%s.{dat,gp%s}, %s\n", pr.n_records,
               pr.n_devices, dir, pr.stem, pr.gnuplot_missing ? "" : ",png,svg", summary);
        if (pr.gnuplot_missing)
            printf("gnuplot not found: wrote data and script, skipped PNG/SVG\n");
    }
    free(st);
    rt_timeline_free(&l);
    return rc == 0 ? 0 : bad_input ? -1 : -2;
}

/* The roofline figure beside each experiment's figures, as `rooftune plot` draws it. The ceilings
 * are those of the machine file named like the store's device folder (OUT/<device>/<experiment>:
 * baselines/h200-x4/ -> roofline/machines/h200-x4.yaml) when there is one: a device name alone
 * does not tell a 2-GPU H200 host from a 4-GPU one. Otherwise `auto` picks by device name. */
static int roofline_extra(void *ctx, struct sqlite3 *db, const char *experiment,
                          const char *out_dir, rt_err *err)
{
    (void)ctx;
    char dir[PATH_MAX], device[256] = "", path[PATH_MAX];
    if (rt_path_format(dir, sizeof dir, err, "%s", out_dir) != 0)
        return -1;
    size_t n = strlen(dir);
    while (n > 0 && dir[n - 1] == '/')
        dir[--n] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        const char *base = strrchr(dir, '/');
        snprintf(device, sizeof device, "%s", base ? base + 1 : dir);
    }
    char machines[PATH_MAX];
    if (rt_cli_machine_dir(machines, sizeof machines, err) != 0 ||
        rt_path_format(path, sizeof path, err, "%s/%s.yaml", machines, device) != 0)
        return -1;
    FILE *f = device[0] ? fopen(path, "r") : NULL;
    if (f)
        fclose(f);
    /* A store the machine file cannot draw (e.g. emulated nodes sharing one GPU, whose host has
     * no inter-node tier) keeps its other figures: the reason is printed, not fatal. */
    rt_err why;
    rt_err_clear(&why);
    if (rt_cli_roofline_figure(db, experiment, f ? path : NULL, out_dir, &why) != 0)
        fprintf(stderr, "rooftune figures: %s: no roofline figure: %s\n", experiment, why.msg);
    return 0;
}

int rt_cli_figures(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"results", required_argument, 0, 'r'}, {"out", required_argument, 0, 'o'},
        {"no-roofline", no_argument, 0, 'n'},   {"timeline", required_argument, 0, 't'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *results = NULL, *out = NULL;
    const char *timelines[MAX_TIMELINES];
    int roofline = 1, n_timelines = 0;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'r': results = optarg; break;
        case 'o': out = optarg; break;
        case 'n': roofline = 0; break;
        case 't':
            if (n_timelines == MAX_TIMELINES) {
                fprintf(stderr, "rooftune figures: at most %d --timeline files\n", MAX_TIMELINES);
                return RT_EXIT_USAGE;
            }
            timelines[n_timelines++] = optarg;
            break;
        case 'h': figures_usage(stdout); return RT_EXIT_OK;
        default: figures_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "rooftune figures: unexpected argument '%s'\n\n", argv[optind]);
        figures_usage(stderr);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    rt_err_clear(&err);
    if (n_timelines > 0) {
        if (results || !roofline) {
            fprintf(stderr, "rooftune figures: --timeline draws its CSV alone: %s does not apply\n",
                    results ? "--results" : "--no-roofline");
            return RT_EXIT_USAGE;
        }
        for (int k = 0; k < n_timelines; ++k) {
            const int rc = draw_timeline(timelines[k], out, &err);
            if (rc != 0) {
                fprintf(stderr, "rooftune figures: --timeline: %s\n", err.msg);
                return rc == -1 ? RT_EXIT_USAGE : RT_EXIT_FAILURE;
            }
        }
        return RT_EXIT_OK;
    }
    if (!results)
        results = "results";
    rt_figures_result res;
    const int rc =
        rt_figures_regenerate(results, out, roofline ? roofline_extra : NULL, NULL, &res, &err);
    for (int k = 0; k < res.n_items; ++k) {
        const rt_figures_item *it = &res.items[k];
        printf("%s: %s (%s): %d figure(s) from the %s in %s\n", it->device, it->experiment,
               it->store, it->n_figures,
               it->recorded_plots == 2   ? "store's plots file"
               : it->recorded_plots == 1 ? "recorded config's plots"
                                         : "default set",
               it->out_dir);
    }
    if (rc != 0) {
        fprintf(stderr, "rooftune figures: %s\n", err.msg);
        rt_figures_result_free(&res);
        return RT_EXIT_USAGE;
    }
    if (res.gnuplot_missing)
        printf("gnuplot not found: wrote data and scripts, skipped PNG/SVG\n");
    rt_figures_result_free(&res);
    return RT_EXIT_OK;
}
