/* dspmm_model_only: the dspmm family's model-only hook (rt_family_model.h): for one point of a
 * dspmm kernel, the distributed SpMM's partition, communication plan, per-tier volumes and
 * predicted communication time in a job of N ranks, computed in one process (dspmm_model.h does
 * the work); a p_batch that does not divide the ranks makes the point infeasible. The app walks
 * the config and writes the table (app/runner/rt_model_run.h). */
#ifndef DSPMM_MODEL_ONLY_H
#define DSPMM_MODEL_ONLY_H

#include "rt_family_model.h"

extern const rt_family_model dspmm_model;

#endif
