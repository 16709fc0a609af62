/* rooftune figures: every committed figure, regenerated from the committed result stores. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_figures.h"
#include "rt_path.h"

static void figures_usage(FILE *f)
{
    fprintf(f,
            "usage: rooftune figures [--results DIR] [--out DIR] [--no-roofline]\n"
            "\n"
            "Redraws the figures of every committed store, DIR/baselines/<device>/<name>.db\n"
            "(default DIR: results), into OUT/<device>/<experiment>/ (default OUT: DIR/figures),\n"
            "with the plots of the store's plots file DIR/baselines/<device>/<name>.plots.yaml\n"
            "(figures declared after the run) or else of its recorded config (the default set\n"
            "when neither declares any) and the roofline figure. The .dat files are\n"
            "byte-for-byte stable.\n"
            "results/figures/README.md says which paper figure each one reproduces.\n");
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
    static const struct option longopts[] = {{"results", required_argument, 0, 'r'},
                                             {"out", required_argument, 0, 'o'},
                                             {"no-roofline", no_argument, 0, 'n'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *results = "results", *out = NULL;
    int roofline = 1;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'r': results = optarg; break;
        case 'o': out = optarg; break;
        case 'n': roofline = 0; break;
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
