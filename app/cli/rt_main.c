/* rooftune: the command-line entry point. Dispatches to a subcommand; see `rooftune --help`. */
#include <stdio.h>
#include <string.h>

#include "rt_cli.h"

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune <command> [options]\n"
        "\n"
        "commands:\n"
        "  run CONFIG        run an experiment (verify, time, store, check against the roofline)\n"
        "  validate CONFIG   check a config against the registry without running it\n"
        "  list              kernels, backends, parameters and their domains, generators\n"
        "  export            write the store's results as CSV or JSON\n"
        "  plot              draw an experiment's figures with gnuplot\n"
        "  probe             measure this machine's ceilings and write a machine file\n"
        "  compare A B       regression verdicts of store B against baseline A (--history)\n"
        "  figures           redraw the committed figures from results/baselines/\n"
        "  report            a static HTML page of one or more stores (--html DIR)\n"
        "  matrix            build, describe and write (Matrix Market) one input matrix\n"
        "  replay SPACE      replay search strategies on a recorded tuning space, scored\n"
        "  tune CONFIG       run a tuning config and record the best verified points (tuning db)\n"
        "  best              query the tuning database (nearest entry, device -> arch fallback)\n"
        "  pareto            the Pareto front of two objectives (time, energy) of every sweep\n"
        "  portability       each GPU's tuned configurations run on the others: config, table\n"
        "\n"
        "`rooftune <command> --help` describes each command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return RT_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return RT_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("rooftune 0.1.0\n");
        return RT_EXIT_OK;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } commands[] = {
        {"run", rt_cli_run},
        {"validate", rt_cli_validate},
        {"list", rt_cli_list},
        {"export", rt_cli_export},
        {"plot", rt_cli_plot},
        {"probe", rt_cli_probe},
        {"compare", rt_cli_compare},
        {"figures", rt_cli_figures},
        {"report", rt_cli_report},
        {"matrix", rt_cli_matrix},
        {"replay", rt_cli_replay},
        {"tune", rt_cli_tune},
        {"best", rt_cli_best},
        {"pareto", rt_cli_pareto},
        {"portability", rt_cli_portability},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; ++i)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "rooftune: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return RT_EXIT_USAGE;
}
