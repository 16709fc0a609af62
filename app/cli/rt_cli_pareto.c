/* rooftune pareto: two objectives of tuning (time and energy, time and memory): the Pareto front
 * of every sweep of a store, stored in its pareto table and, with --plot, drawn
 * (store/rt_store_pareto.h, report/rt_plot_pareto.h). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_plot_pareto.h"
#include "rt_readonly.h"
#include "rt_store.h"
#include "rt_store_pareto.h"
#include "rt_store_read.h"

static void pareto_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune pareto --db STORE [--experiment NAME] [--objectives A,B] [--plot DIR]\n"
        "\n"
        "The Pareto front of every sweep (kernel, device, matrix, problem point) of STORE under\n"
        "two objectives, both minimised: a points column (time_median_s, time_min_s,\n"
        "time_mean_s, setup_s) or a metric of the store (energy_j and power_w with\n"
        "measure.energy, ...); default time_median_s,energy_j. Candidates are the verified ok\n"
        "points (the newest of each). Prints each front, stores it in the store's pareto table\n"
        "(replacing the sweep's earlier front for the same objectives) and with --plot draws\n"
        "one figure per sweep (.dat, .gp and, with gnuplot, .png and .svg).\n"
        "exit status: 0 fronts found; 1 no sweep has a point with both objectives; 2 bad\n"
        "input; 3 the front could not be stored or drawn.\n");
}

static void print_sweep(const rt_pareto_set *set, const rt_pareto_sweep *w)
{
    printf("%s %s %s (%s): %d of %d point(s) on the front of %s and %s\n", w->kernel, w->matrix,
           w->problem, w->device, w->n_front, w->n, set->objective[0], set->objective[1]);
    int order[4096];
    if (w->n_front <= (int)(sizeof order / sizeof order[0])) {
        const int m = rt_pareto_front_order(w, order);
        for (int k = 0; k < m; ++k) {
            const rt_pareto_point *p = &w->points[order[k]];
            printf("  %-14.6g %-14.6g %s\n", p->a, p->b, p->params);
        }
    }
    if (w->n_missing > 0)
        printf("  (%d point(s) without both objectives; %s)\n", w->n_missing, w->missing);
}

int rt_cli_pareto(int argc, char **argv)
{
    static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                         {"experiment", required_argument, NULL, 'e'},
                                         {"objectives", required_argument, NULL, 'o'},
                                         {"plot", required_argument, NULL, 'p'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *path = NULL, *experiment = NULL, *objectives = "time_median_s,energy_j";
    const char *plot_dir = NULL;
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "h", opts) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'e': experiment = optarg; break;
        case 'o': objectives = optarg; break;
        case 'p': plot_dir = optarg; break;
        case 'h': pareto_usage(stdout); return RT_EXIT_OK;
        default: pareto_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (!path || optind != argc) {
        pareto_usage(stderr);
        return RT_EXIT_USAGE;
    }
    char a[64], b[64];
    const char *comma = strchr(objectives, ',');
    if (!comma || comma == objectives || !comma[1] || strchr(comma + 1, ',') ||
        (size_t)(comma - objectives) >= sizeof a || strlen(comma + 1) >= sizeof b) {
        fprintf(stderr, "rooftune pareto: --objectives expects two names A,B, got '%s'\n",
                objectives);
        return RT_EXIT_USAGE;
    }
    snprintf(a, sizeof a, "%.*s", (int)(comma - objectives), objectives);
    snprintf(b, sizeof b, "%s", comma + 1);

    rt_err err;
    struct sqlite3 *db = NULL;
    if (rt_readonly_open(path, &db, &err) != 0) {
        fprintf(stderr, "rooftune pareto: %s\n", err.msg);
        return RT_EXIT_USAGE;
    }
    int known = 1;
    if (experiment && (rt_store_experiment_known(db, experiment, &known, &err) != 0 || !known)) {
        fprintf(stderr, "rooftune pareto: %s: %s\n", path,
                known ? err.msg : "no experiment of that name in the store");
        rt_store_read_close(db);
        return RT_EXIT_USAGE;
    }
    rt_pareto_set set;
    const int read_rc = rt_pareto_read(db, experiment, a, b, &set, &err);
    rt_store_read_close(db);
    if (read_rc != 0) {
        fprintf(stderr, "rooftune pareto: %s: %s\n", path, err.msg);
        return RT_EXIT_USAGE;
    }
    int with_points = 0;
    for (int k = 0; k < set.n; ++k) {
        print_sweep(&set, &set.sweeps[k]);
        with_points += set.sweeps[k].n > 0;
    }
    int status = with_points > 0 ? RT_EXIT_OK : RT_EXIT_ATTENTION;
    if (with_points == 0)
        printf("no sweep of %s has a verified point with both %s and %s\n", path, a, b);
    /* Stored in the store itself (the writer's lock, one transaction). */
    rt_store *st = NULL;
    if (with_points > 0 && (rt_store_open(path, &st, &err) != 0 ||
                            rt_pareto_store(rt_store_db(st), &set, &err) != 0)) {
        fprintf(stderr, "rooftune pareto: storing the fronts in %s: %s\n", path, err.msg);
        status = RT_EXIT_FAILURE;
    } else if (with_points > 0) {
        printf("stored %d front(s) in the pareto table of %s\n", with_points, path);
    }
    rt_store_close(st);
    if (status == RT_EXIT_OK && plot_dir) {
        rt_plot_result pr;
        if (rt_plot_pareto(&set, plot_dir, &pr, &err) != 0) {
            fprintf(stderr, "rooftune pareto: plotting: %s\n", err.msg);
            status = RT_EXIT_FAILURE;
        } else {
            printf("plots: %s\n", pr.message);
        }
    }
    rt_pareto_set_free(&set);
    return status;
}
