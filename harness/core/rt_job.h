/* rt_job: the job that measures a point, as a family's hooks see it: this process's rank among
 * the ranks that measure the point together, and how many they are.
 *
 * A family whose problem is split by rank (the triangular solve's rows of X, GEMM's sampled
 * entries of C, the 2D SpMM and SpGEMM tiles, dspmm's rows of C, spdnn's features) builds its
 * share from the job it is handed and from nothing else: a rank that measures whole points alone
 * (search.parallel: ranks, kernels[i].parallel: ranks) is rank 0 of a one-rank job and builds the
 * whole problem, though MPI_COMM_WORLD has more ranks. Reading the world's place instead once
 * shipped a bug: spread sptrsv baselines built and verified a quarter of x on 4 ranks.
 *
 * The runner hands its measuring job to make_inputs and footprint (rt_registry.h); callers that
 * run nothing under MPI (validate --inputs, the model-only mode, unit tests) hand rt_job_alone().
 * A job is an argument, never process-wide state. */
#ifndef RT_JOB_H
#define RT_JOB_H

#include "rt_error.h"

typedef struct rt_job {
    int rank;   /* this process, 0 .. nranks-1 */
    int nranks; /* the ranks that measure the point together, >= 1 */
} rt_job;

/* Rank 0 of a one-rank job: a process that measures (or builds) a point alone. */
rt_job rt_job_alone(void);

/* 0 when job is given and 0 <= rank < nranks; else -1 with err naming owner (e.g. "gemm problem")
 * and the place, so a caller that hands a garbage job is told, not divided by zero. */
int rt_job_check(const rt_job *job, const char *owner, rt_err *err);

#endif
