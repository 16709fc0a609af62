/* rt_cli: the subcommands of the rooftune binary. Each takes argc/argv from the subcommand name
 * on and returns the process exit status; only main() ends the process. */
#ifndef RT_CLI_H
#define RT_CLI_H

#include <getopt.h>

#include "rt_error.h"

/* Loops over argv's options from the first argument on (optind reset to 1; getopt_long with
 * shortopts and longopts), c holding each option's code in turn. */
#define RT_CLI_FOR_EACH_OPTION(c, argc, argv, shortopts, longopts)                                 \
    for (optind = 1; ((c) = getopt_long((argc), (argv), (shortopts), (longopts), NULL)) != -1;)

/* Exit statuses shared by the subcommands. */
enum {
    RT_EXIT_OK = 0,
    RT_EXIT_ATTENTION = 1, /* the command ran, but some result needs attention (wrong, above
                              roofline, expectation) */
    RT_EXIT_USAGE = 2,     /* bad command line or bad input (config, file) */
    RT_EXIT_FAILURE = 3    /* the command could not complete */
};

int rt_cli_run(int argc, char **argv);
int rt_cli_validate(int argc, char **argv);
int rt_cli_list(int argc, char **argv);
int rt_cli_export(int argc, char **argv);
int rt_cli_plot(int argc, char **argv);
int rt_cli_probe(int argc, char **argv);
int rt_cli_compare(int argc, char **argv);
int rt_cli_figures(int argc, char **argv);
int rt_cli_report(int argc, char **argv);
int rt_cli_matrix(int argc, char **argv);
int rt_cli_replay(int argc, char **argv);
int rt_cli_tune(int argc, char **argv);
int rt_cli_best(int argc, char **argv);
int rt_cli_pareto(int argc, char **argv);
int rt_cli_portability(int argc, char **argv);
/* `run` under another command's name (tune): its messages begin "rooftune <cmd>:". *owner (may be
 * NULL) is set to 1 in the process that owns the store (rank 0 of an MPI job, not a worker
 * process of --parallel gpus), 0 in the others: what follows the run on the store (tune's
 * harvest) is that process's alone. */
int rt_cli_run_as(const char *cmd, int argc, char **argv, int *owner);

/* The source tree's default folders, resolved relative to the executable (build/rooftune ->
 * ../roofline/machines) with an environment override (ROOFTUNE_MACHINE_DIR). */
int rt_cli_machine_dir(char *buf, unsigned long len, rt_err *err);

#endif
