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

typedef struct rt_run_options {
    const char *db_path; /* store file; required unless dry_run */
    int dry_run;         /* enumerate and check points, measure nothing, write nothing */
    int max_points;      /* stop after measuring this many new points (0: no limit) */
    int verbose;
    const char *machine_dir;  /* where machine files live (roofline/machines) */
    const char *command_line; /* for provenance */
    FILE *log;                /* progress lines (rank 0); NULL for silence */
    FILE *progress; /* points done of the total, elapsed, time left (rank 0; rt_progress.h);
                       NULL: none */
} rt_run_options;

typedef struct rt_run_summary {
    int points_seen; /* candidates the search produced */
    int measured;    /* verified and timed in this run */
    int resumed;     /* skipped: already in the store from the same build and config */
    int wrong;       /* failed verification */
    int infeasible;
    int errors;
    int timeouts;
    int above_roofline;
    int expect_failures;     /* points below the config's expect.min_efficiency */
    int unavailable_kernels; /* kernels skipped because their backend is not here */
    int compiles, cache_hits;
    long long run_id;
} rt_run_summary;

/* comm is the rt_comm of the job (harness/comm/rt_comm.h). */
int rt_run_experiment(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                      void *comm, const rt_run_options *opt, rt_run_summary *sum, rt_err *err);

#endif
