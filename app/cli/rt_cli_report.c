/* rooftune report: a static HTML page of one or more result stores. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_readonly.h"
#include "rt_report.h"
#include "rt_store_read.h"

#define MAX_STORES 64

static void report_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune report --html DIR --db FILE [--db FILE ...] [--threshold R]\n"
            "                       [--alpha A] [--timings-informational] [--no-roofline]\n"
            "\n"
            "Writes DIR/index.html: per store its runs, the points by status, the best verified\n"
            "point per kernel and matrix and the figures (SVG, drawn into DIR/figures/); with two\n"
            "stores, also the verdicts of `rooftune compare` (first = baseline). The page loads\n"
            "nothing from outside DIR.\n"
            "\n"
            "exit status: 0 written (and, with two stores, the comparison passed); 1 written, but\n"
            "the comparison failed; 2 bad input, or the page could not be written.\n");
}

static int roofline_extra(void *ctx, struct sqlite3 *db, const char *experiment,
                          const char *out_dir, rt_err *err)
{
    (void)ctx;
    return rt_cli_roofline_figure(db, experiment, NULL, out_dir, err);
}

static int parse_fraction(const char *option, const char *text, double *out)
{
    char *end;
    const double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || !(v > 0 && v < 1)) {
        fprintf(stderr, "rooftune report: %s expects a number between 0 and 1, got '%s'\n", option,
                text);
        return -1;
    }
    *out = v;
    return 0;
}

int rt_cli_report(int argc, char **argv)
{
    static const struct option longopts[] = {{"html", required_argument, 0, 'o'},
                                             {"db", required_argument, 0, 'd'},
                                             {"threshold", required_argument, 0, 't'},
                                             {"alpha", required_argument, 0, 'a'},
                                             {"timings-informational", no_argument, 0, 'i'},
                                             {"no-roofline", no_argument, 0, 'n'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *stores[MAX_STORES];
    rt_report_opts o = {0};
    rt_compare_opts_init(&o.compare);
    o.stores = stores;
    int roofline = 1;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'o': o.out_dir = optarg; break;
        case 'd':
            if (o.n_stores == MAX_STORES) {
                fprintf(stderr, "rooftune report: at most %d stores\n", MAX_STORES);
                return RT_EXIT_USAGE;
            }
            stores[o.n_stores++] = optarg;
            break;
        case 't':
            if (parse_fraction("--threshold", optarg, &o.compare.threshold) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'a':
            if (parse_fraction("--alpha", optarg, &o.compare.alpha) != 0)
                return RT_EXIT_USAGE;
            break;
        case 'i': o.compare.timings_informational = 1; break;
        case 'n': roofline = 0; break;
        case 'h': report_usage(stdout); return RT_EXIT_OK;
        default: report_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (!o.out_dir || o.n_stores == 0 || optind != argc) {
        fprintf(stderr, "rooftune report: --html DIR and at least one --db FILE are required\n\n");
        report_usage(stderr);
        return RT_EXIT_USAGE;
    }
    o.extra = roofline ? roofline_extra : NULL;
    rt_err err;
    rt_err_clear(&err);
    /* The stores first (bad input: exit 2), so that a failure of the report itself (a full disk)
     * is told apart (exit 3). */
    for (int k = 0; k < o.n_stores; ++k) {
        struct sqlite3 *db = NULL;
        if (rt_readonly_open(stores[k], &db, &err) != 0) {
            fprintf(stderr, "rooftune report: %s\n", err.msg);
            return RT_EXIT_USAGE;
        }
        rt_store_read_close(db);
    }
    rt_report_result res;
    if (rt_report_html(&o, &res, &err) != 0) {
        fprintf(stderr, "rooftune report: %s\n", err.msg);
        return RT_EXIT_FAILURE;
    }
    printf("report: %s (%d figure(s)%s%s)\n", res.index_path, res.n_figures,
           res.gnuplot_missing ? "; gnuplot not found, scripts linked instead" : "",
           res.compared ? (res.compare_failed ? "; comparison: FAIL" : "; comparison: PASS") : "");
    return res.compared && res.compare_failed ? RT_EXIT_ATTENTION : RT_EXIT_OK;
}
