/* dspmm_model_only: the dspmm family's model-only mode (rt_family_desc.model): the distributed
 * SpMM's partition, communication plan, per-tier volumes and predicted communication time for a
 * job of N ranks, computed in one process (dspmm_model.h does the work) for every matrix x problem
 * point x dspmm kernel point of the config. Writes <out_dir>/<experiment>-model.csv and .json and
 * a table on job->out. Fails on a matrix that cannot be built or unwritable outputs. */
#ifndef DSPMM_MODEL_ONLY_H
#define DSPMM_MODEL_ONLY_H

#include "rt_config.h"
#include "rt_error.h"
#include "rt_registry.h"

int dspmm_model_only(const rt_family_desc *self, const rt_config *cfg, const rt_registry *reg,
                     const rt_model_job *job, int *n_points, rt_err *err);

#endif
