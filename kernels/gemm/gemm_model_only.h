/* gemm_model_only: the gemm family's model-only hook (rt_family_model.h), for job sizes that
 * cannot be launched here (the paper's 12 x 12 grid of processes with 3 GPUs each). For one point
 * of a gemm kernel with a plan (gemm.*.tiled) it builds the plan for the virtual job: the plan
 * (grid, blocking, memory case), tiles per GPU by the exact model (mean and busiest GPU) against
 * Eq. (1), host-to-device and device-to-device loads, tiles received over MPI per process against
 * the volume formula, bytes sent per tier by the busiest process (full tiles) and, with a machine
 * file, the times those bytes take at the tiers' ceilings. Nothing runs and no GPU is needed; the
 * app walks the config and writes the table (app/runner/rt_model_run.h). */
#ifndef GEMM_MODEL_ONLY_H
#define GEMM_MODEL_ONLY_H

#include "rt_family_model.h"

extern const rt_family_model gemm_model;

#endif
