/* rt_measure: one point, from resume check to store transaction (see rt_runner.h for the order).
 * Internal to the runner; split out so the measurement policy lives apart from the sweep. */
#ifndef RT_MEASURE_H
#define RT_MEASURE_H

#include "rt_backend.h"
#include "rt_config.h"
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
} rt_measure_target;

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
    struct rt_cacheflush *flush;
    struct rt_criterion *criterion; /* the stopping rule of the repetitions (measure.stop) */
    double *samples, *rank_min, *rank_avg;
    int samples_cap;
    struct rt_roofline_ctx *roofline; /* NULL when no machine model could be resolved */
    struct rt_progress *progress;     /* its line is erased before a result line; may be NULL */
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
void rt_measure_release_inputs(rt_measure_ctx *m);
void rt_measure_finish(rt_measure_ctx *m, rt_run_summary *sum);
void rt_measure_free(rt_measure_ctx *m);

#endif
