/* rt_runner: drives an experiment end to end.
 *
 * For every matrix (built identically on every rank, each rank keeping its block of rows), every
 * problem point and every kernel: enumerate the kernel's space, let the search pick points, and for
 * each point: resume check, feasibility, setup, the verification gate, warm-up, adaptive timed
 * repetitions (max over ranks per sample), counters in separate passes, the roofline bound, and one
 * store transaction. A failure at one point is recorded with its reason and the sweep goes on. */
#ifndef RT_RUNNER_H
#define RT_RUNNER_H

#include <stdio.h>

#include "rt_backend.h"
#include "rt_config.h"
#include "rt_error.h"
#include "rt_registry.h"
#include "rt_run_types.h"

/* comm is the rt_comm of the job (harness/comm/rt_comm.h). */
int rt_run_experiment(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                      void *comm, const rt_run_options *opt, rt_run_summary *sum, rt_err *err);

#endif
