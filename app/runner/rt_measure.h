/* rt_measure: one point, from resume check to store transaction (see rt_runner.h for the order).
 * Internal to the runner; split out so the measurement policy lives apart from the sweep. */
#ifndef RT_MEASURE_H
#define RT_MEASURE_H

#include "rt_backend.h"
#include "rt_config.h"
#include "rt_inputs_ahead.h"
#include "rt_prune.h"
#include "rt_registry.h"
#include "rt_run_types.h"
#include "rt_store.h"

struct rt_comm;
struct rt_cacheflush;
struct rt_roofline_ctx;

typedef struct rt_measure_target {
    const rt_matrix_cfg *matrix;
    const rt_csr *local; /* this rank's rows */
    int64_t rows_total, cols_total, nnz_total;
    const rt_kernel_cfg *kernel_cfg;
    const rt_kernel_desc *kernel;
    const rt_family_desc *family;
    const rt_device_info *device;
    const rt_params *problem;
    /* Set when the matrix could not be built: the point is recorded as an error with this reason
     * (the run goes on with the next matrix); local is then NULL and the sizes 0. */
    const char *input_error;
    /* The sweep's roofline-bounded pruning (search.prune: bound): a candidate whose bound exceeds
     * its best time is recorded as pruned and not run; every verified point (measured or resumed)
     * updates it. NULL: no pruning. */
    rt_prune *prune;
    /* The best verified time of the sweep so far (INFINITY before any): early abort
     * (measure.abort_factor) compares a point's first repetitions with it, and every verified
     * point that kept its status lowers it. NULL: no early abort. */
    double *sweep_best;
    /* The best verified time of the entry's abort group (kernels[].abort_group) for this matrix
     * and problem point, shared by the group's sweeps (INFINITY before any): early abort compares
     * with it instead, and stops only a point slower than sweep_best too, so every entry's own
     * best point runs in full. Every verified point lowers it. NULL: the entry has no group. */
    double *group_best;
} rt_measure_target;

/* A measured point as its recorder needs it: the record (its samples and metrics point into this
 * struct or the measuring context), what the log line says about it, and the objective the search
 * is told. Parallel workers send it to the coordinator that owns the store (rt_point_wire.h). */
typedef struct rt_measured {
    rt_point_record rec;
    rt_metrics metrics;
    int noisy;                      /* timed, but the stopping criterion's target was missed */
    int aborted;                    /* early abort: stopped after its first repetitions */
    double stop_value, stop_target; /* the criterion's quantity at the end, and its target */
    double objective;               /* the median time for the search; INFINITY when it failed */
    char shown[512];                /* the parameters as the log line shows them */
    char problem_shown[256];
} rt_measured;

/* Where a measured point goes instead of the store (a parallel worker's link to its
 * coordinator). Returns 0 or -1 with err. */
typedef int (*rt_measure_sink)(void *ctx, const rt_measured *res, rt_err *err);

/* Points a process may queue the compiles of, ahead of the one it measures (the serial walk's next
 * two; a worker's ASSIGNs already received, at most two). */
#define RT_MEASURE_UPCOMING 2

typedef struct rt_measure_ctx {
    const rt_config *cfg;
    const rt_backend *be;
    struct rt_comm *comm;
    rt_store *store;
    int64_t run_id;
    const rt_provenance *prov;
    const rt_run_options *opt;
    int rank, nranks;
    int stop; /* set when max_points new points have been measured */
    int new_points;
    int interrupted_by; /* the signal (rt_interrupt) that stopped the run, agreed by all ranks */
    /* Inputs and reference of the current (matrix, family, problem), shared by every kernel. */
    const rt_family_desc *in_family;
    const rt_csr *in_matrix;
    char in_problem[512];
    void *inputs;
    double *reference;
    double *scale; /* the elementwise check's |A||B| per element; NULL when the family has none */
    double *output;
    int64_t n_out;
    /* The next sweep's inputs and reference, being built in a thread (rt_inputs_ahead.h); a
     * point whose inputs they are takes them instead of building them. NULL: none. */
    rt_inputs_ahead *ahead;
    struct rt_cacheflush *flush;
    struct rt_criterion *criterion; /* the stopping rule of the repetitions (measure.stop) */
    double *samples, *rank_min, *rank_avg;
    int samples_cap;
    struct rt_roofline_ctx *roofline; /* NULL when no machine model could be resolved */
    struct rt_progress *progress;     /* its line is erased before a result line; may be NULL */
    rt_measure_sink sink;             /* NULL: points are recorded here */
    void *sink_ctx;
    /* measure.compile_ahead: the backend's compile-ahead pool runs (compile_ahead 1). The next
     * point run queues the compiles of `upcoming` (points of the same sweep that this process
     * measures after it: rt_measure_upcoming) once its inputs are ready, before its own setup,
     * and empties the list. */
    int compile_ahead;
    rt_params upcoming[RT_MEASURE_UPCOMING];
    int n_upcoming;
    int ahead_failed; /* compile_ahead hooks that refused (only counted: the point compiles) */
} rt_measure_ctx;

int rt_measure_init(rt_measure_ctx *m, const rt_config *cfg, const rt_backend *be, void *comm,
                    rt_store *store, int64_t run_id, const rt_provenance *prov,
                    const rt_run_options *opt, rt_err *err);
/* Measures one point and records it (rank 0). feasible/why come from the space's constraints.
 * *objective receives the median time (INFINITY when the point failed) for the search. Returns -1
 * only on errors that must stop the run (store failures, communication failures). */
int rt_measure_point(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                     int feasible, const char *why, double *objective, rt_run_summary *sum,
                     rt_err *err);
/* The two halves of rt_measure_point, for a coordinator that hands points to workers: the claim
 * (identity and resume check: 1 when the point is done, a stored one or a dry run, with its
 * stored time in *objective; 0 when it must be measured; -1 on error) and the run (measures a
 * claimed point and records it, or hands it to the sink; 0 or -1). */
int rt_measure_claim(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                     int feasible, const char *why, double *objective, rt_run_summary *sum,
                     rt_err *err);
int rt_measure_run(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params,
                   int feasible, const char *why, double *objective, rt_run_summary *sum,
                   rt_err *err);
/* Records a measured point (here or from a worker) as rt_measure_point does: the summary, the log
 * line, the store (rank 0), the point budget and the interrupt check. */
int rt_measure_record(rt_measure_ctx *m, rt_measured *res, rt_run_summary *sum, rt_err *err);
void rt_measure_release_inputs(rt_measure_ctx *m);
/* Builds the inputs and the reference a sweep's points will need (t: the sweep's target) ahead
 * of its first point, unless the point's memory check would refuse them; a failure is left for
 * that point to meet and record. A worker of parallel tuning calls it as it enters a sweep. */
void rt_measure_prepare(rt_measure_ctx *m, const rt_measure_target *t);
/* Starts building the inputs and reference of a later sweep (t: its target, whose matrix must
 * stay alive until they are taken or dropped) in a thread, replacing an earlier build ahead for
 * another target; nothing when they are the current ones, already under way, or would be refused
 * by the memory check. The first point of that sweep takes them (phase "inputs and reference
 * ahead"); a build that failed is done again there, where its failure is recorded as usual. */
void rt_measure_prepare_ahead(rt_measure_ctx *m, const rt_measure_target *t);
/* Stops and frees the build ahead (before its matrix goes); none is fine. */
void rt_measure_drop_ahead(rt_measure_ctx *m);
/* The matrix the build ahead is for (NULL: none). */
const rt_csr *rt_measure_ahead_matrix(const rt_measure_ctx *m);
/* The job the next points are measured with: a run that spreads some kernels' points over its
 * ranks (a job of one rank each) and has others span every rank switches between the two per
 * sweep. The inputs built for the other job are released (a family may have shaped them by rank
 * and size). */
void rt_measure_use_comm(rt_measure_ctx *m, void *comm);
/* Adds a point of the current sweep (kernel t->kernel) that this process measures later to the
 * list the next point run queues the compiles of. Nothing when the pool is off, the kernel has no
 * compile_ahead hook or the list is full; 1 when added, else 0. */
int rt_measure_upcoming(rt_measure_ctx *m, const rt_measure_target *t, const rt_params *params);
void rt_measure_finish(rt_measure_ctx *m, rt_run_summary *sum);
void rt_measure_free(rt_measure_ctx *m);

#endif
