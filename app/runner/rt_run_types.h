/* rt_run_types: what a run is asked to do and what it reports, shared by the runner and the
 * per-point measurement (kept apart so that neither includes the other). */
#ifndef RT_RUN_TYPES_H
#define RT_RUN_TYPES_H

#include <stdio.h>

struct rt_trace;
struct rt_phases;
struct rt_prefetch;
struct rt_worker_procs;

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
    /* search.parallel: gpus: the command line (argv[0] the command, `run` or `tune`) whose
     * options the coordinator starts its worker processes with (as `run`); NULL where there is
     * none (then gpus is refused). */
    int argc;
    const char *const *argv;
    /* A worker process of parallel: gpus: its socket to the coordinator (0: not a worker; the
     * standard streams hold 0 to 2, so a socket never has them); the CLI opened the backend with
     * the worker's index as the local rank, which picks its GPU. */
    int worker_fd;
    /* --timeline: each point's timed repetitions are traced into it (rt_trace.h); NULL: none. */
    struct rt_trace *trace;
    /* parallel: gpus, the coordinator: the worker processes the CLI started before its own
     * set-up (rt_worker_procs.h; NULL or none started: the runner starts them). The runner takes
     * them over (n becomes 0) and waits for them. */
    struct rt_worker_procs *procs;
    /* parallel: gpus, the coordinator: the first matrix's build, which the CLI started beside
     * the workers (rt_prefetch.h; NULL or *ahead NULL: none). The runner takes it over (*ahead
     * becomes NULL). */
    struct rt_prefetch **ahead;
    /* This process's phase record (rt_phases.h; NULL: none kept): the runner adds its phases and,
     * in the process that owns the store, writes every process's into it. */
    struct rt_phases *phases;
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
    int pruned;          /* not run: roofline bound above the sweep's best time (search.prune) */
    int stopped_within;  /* sweeps ended by search.stop_within (best point near its bound) */
    int noisy;           /* timed, but the median's confidence interval missed its target */
    int aborted;         /* stopped after their first repetitions: slower than measure.abort_factor
                            x the best time of their sweep (status ok, metric aborted) */
    int aborted_samples; /* the repetitions those points took */
    int expect_failures; /* points below the config's expect.min_efficiency */
    int unavailable_kernels; /* kernels skipped because their backend is not here */
    int compiles, cache_hits;
    int compiled_ahead; /* points whose variant the compile-ahead pool compiled (metric
                           compiled_ahead): their own load was one of the cache hits */
    long long run_id;
    int interrupted_by; /* SIGINT or SIGTERM that ended the run between points, or 0 */
    int kept;           /* points this run recorded in the store */
} rt_run_summary;

#endif
