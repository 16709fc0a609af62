/* rt_cli_model: `rooftune run CONFIG --model-only --ranks N`: the option checks, the machine file
 * and the virtual job; the walk over the config, the families' per-point hooks
 * (rt_family_desc.model) and the tables are app/runner/rt_model_run.h's. */
#ifndef RT_CLI_MODEL_H
#define RT_CLI_MODEL_H

#include <stdio.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_registry.h"

typedef struct rt_cli_model_opts {
    int nranks;           /* the virtual job */
    int ranks_per_node;   /* 0: one node */
    int ranks_per_socket; /* 0: one socket per node */
    const char *machine;  /* machine file for the times; NULL: the config's `machine:` unless
                             it is `auto` (then volumes only) */
    const char *out_dir;  /* <out_dir>/<experiment>-model.csv and .json are written */
    FILE *out;            /* the table; NULL for none */
} rt_cli_model_opts;

/* rt_cli_model_run's return when the user's machine file cannot be read (bad input, exit 2). */
#define RT_CLI_MODEL_BAD_INPUT (-2)

/* Models every point of cfg's kernels whose family has a model (rt_model_run; kernels of other
 * families are listed as skipped). *n_points receives the number of rows written (feasible or
 * not). Fails with RT_CLI_MODEL_BAD_INPUT on an unreadable machine file, with -1 on what a hook
 * fails on, or when no kernel of cfg belongs to a family with a model-only mode (the message names
 * the families that have one). */
int rt_cli_model_run(const rt_config *cfg, const rt_registry *reg, const rt_cli_model_opts *o,
                     int *n_points, rt_err *err);

/* The --model-only path of `rooftune run` (called before MPI is initialised; needs no mpirun):
 * checks the options (--model-only needs --ranks; --ranks and --machine need --model-only; the
 * ranks per node must divide the ranks), loads and checks the config against the registry, and
 * writes the table next to the store (`db`, default results/<experiment>.db). Returns the exit
 * status (rt_cli.h). */
int rt_cli_run_model_only(const char *config_path, const char *const *sets, int n_sets,
                          const char *db, const char *out, int model_only, long ranks,
                          long ranks_per_node, long ranks_per_socket, const char *machine,
                          int quiet);

#endif
