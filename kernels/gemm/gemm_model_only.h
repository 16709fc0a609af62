/* gemm_model_only: the gemm family's model-only mode (`rooftune run CONFIG --model-only --ranks
 * N`), for job sizes that cannot be launched here (the paper's 12 x 12 grid of processes with 3
 * GPUs each). For every point of the config's gemm.*.tiled kernels it builds the plan for the
 * virtual job and writes <out>/<experiment>-model.csv: the plan (grid, blocking, memory case),
 * tiles per GPU by the exact model (mean and busiest GPU) against Eq. (1), host-to-device and
 * device-to-device loads, tiles received over MPI per process against the volume formula, bytes
 * sent per tier by the busiest process (full tiles) and, with a machine file, the times those
 * bytes take at the tiers' ceilings. Nothing runs and no GPU is needed. */
#ifndef GEMM_MODEL_ONLY_H
#define GEMM_MODEL_ONLY_H

#include "rt_config.h"
#include "rt_registry.h"

int gemm_model_only(const rt_family_desc *self, const rt_config *cfg, const rt_registry *reg,
                    const rt_model_job *job, int *n_points, rt_err *err);

#endif
