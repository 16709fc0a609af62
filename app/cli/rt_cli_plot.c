/* rooftune plot: an experiment's figures from the store. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_cli.h"
#include "rt_config.h"
#include "rt_export.h"
#include "rt_figures.h"
#include "rt_store.h"
#include "rt_store_read.h"
#include "rt_plot.h"
#include "rt_readonly.h"
#include "rt_cli_common.h"

static void plot_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune plot --db FILE --out DIR [--experiment NAME] [--config FILE]\n"
        "                    [--machine FILE]\n"
        "\n"
        "Draws the figures an experiment's config declares (plots:), or a default set (metric\n"
        "against the first varying parameter; best per kernel and matrix as grouped bars).\n"
        "Each figure's data (.dat) and gnuplot script (.gp) are written beside its PNG and SVG,\n"
        "so `cd DIR && gnuplot NAME.gp` redraws it. The plot specs come from --config, else\n"
        "from the config text the run recorded in the store, else the defaults.\n"
        "Without gnuplot the data and scripts are still written. A roofline figure is drawn\n"
        "against --machine, else the machine file `machine: auto` picks for the recorded\n"
        "device.\n");
}

int rt_cli_plot(int argc, char **argv)
{
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"out", required_argument, 0, 'o'},
                                             {"experiment", required_argument, 0, 'e'},
                                             {"config", required_argument, 0, 'c'},
                                             {"machine", required_argument, 0, 'm'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *db = NULL, *out = NULL, *experiment = NULL, *config = NULL, *machine = NULL;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'o': out = optarg; break;
        case 'e': experiment = optarg; break;
        case 'c': config = optarg; break;
        case 'm': machine = optarg; break;
        case 'h': plot_usage(stdout); return RT_EXIT_OK;
        default: plot_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (!db || !out || optind != argc) {
        plot_usage(stderr);
        return RT_EXIT_USAGE;
    }
    rt_err err;
    rt_err_clear(&err);
    struct sqlite3 *h = NULL;
    if (rt_store_read_open(db, &h, &err) != 0) {
        fprintf(stderr, "rooftune plot: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    int status = RT_EXIT_OK;
    char names[64][64];
    int n_names = 0;
    if (rt_store_experiments(h, names, 64, &n_names, &err) != 0) {
        fprintf(stderr, "rooftune plot: %s: %s\n", db, err.msg);
        rt_store_read_close(h);
        return RT_EXIT_USAGE;
    }
    if (!experiment) {
        if (n_names != 1) {
            fprintf(stderr,
                    "rooftune plot: %s holds %d experiments; name one with --experiment:", db,
                    n_names);
            for (int i = 0; i < n_names; ++i)
                fprintf(stderr, " %s", names[i]);
            fprintf(stderr, "\n");
            rt_store_read_close(h);
            return RT_EXIT_USAGE;
        }
        experiment = names[0];
    }
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    int have_cfg = 0;
    /* Without --config, the plots of the config text stored with the run, as `report` and
     * `figures` do: the recorded config path may be relative to another folder, or gone. */
    if (!config && rt_figures_recorded_plots(h, experiment, &cfg, &have_cfg, &err) != 0) {
        fprintf(stderr, "rooftune plot: %s\n", err.msg);
        rt_store_read_close(h);
        return RT_EXIT_USAGE;
    }
    if (config) {
        if (rt_config_load(config, NULL, 0, &cfg, &err) != 0) {
            fprintf(stderr, "rooftune plot: %s\n", err.msg);
            rt_store_read_close(h);
            return RT_EXIT_USAGE;
        }
        have_cfg = 1;
    }
    mkdir(out, 0777);
    rt_plot_result pr;
    if (rt_plot_experiment(h, experiment, have_cfg ? cfg.plots : NULL, have_cfg ? cfg.n_plots : 0,
                           out, &pr, &err) != 0) {
        fprintf(stderr, "rooftune plot: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    } else {
        printf("%d figure(s) for '%s' in %s%s%s\n", pr.n_figures, experiment, out,
               pr.message[0] ? ": " : "", pr.message);
    }
    if (status == RT_EXIT_OK && rt_cli_roofline_figure(h, experiment, machine, out, &err) != 0) {
        fprintf(stderr, "rooftune plot: roofline: %s\n", err.msg);
        status = RT_EXIT_FAILURE;
    }
    if (have_cfg)
        rt_config_free(&cfg);
    rt_store_read_close(h);
    return status;
}
