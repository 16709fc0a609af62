/* rt_model_run: the model-only mode's one loop (`rooftune run CONFIG --model-only --ranks N`).
 * It walks the config as a run does (rt_walk: matrices x problem points x kernels), but over
 * every point of each space (the search strategy and budget do not apply), running nothing:
 * each point goes to its family's model hook (rt_family_model.h), and the rows are written the
 * same way for every family: <out_dir>/<experiment>-model.csv and .json (with several modelled
 * families, <experiment>-<family>-model.csv and .json each) and a line per point on `out`.
 *
 * Kernels of families without a model, and kernels a family's model does not cover, are listed
 * as skipped; a config with no kernel of a family that has a model is an error naming the
 * families that do. */
#ifndef RT_MODEL_RUN_H
#define RT_MODEL_RUN_H

#include <stdio.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_family_model.h"
#include "rt_registry.h"

/* *n_points receives the rows written (feasible or not). Fails on a matrix that cannot be
 * built, unwritable outputs, what a hook fails on, or a config without a modelled kernel. */
int rt_model_run(const rt_config *cfg, const rt_registry *reg, const rt_model_job *job,
                 const char *out_dir, FILE *out, int *n_points, rt_err *err);

#endif
