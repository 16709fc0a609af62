/* rt_inputs_ahead: a sweep's inputs and double-precision reference (the family's make_inputs,
 * reference and reference_scale hooks), built by one function whether a point needs them now or
 * a thread builds them ahead, so both give the same numbers.
 *
 * Why ahead: a worker of parallel tuning's gpus mode built the next sweep's inputs and reference
 * when it reached the sweep, with its GPU idle, and every worker did so at once with 1/G of the
 * host's cores (on 2 x H200, 0.58 s between the two sweeps of the Tiled SpMM tuning, against
 * 0.35 s in the serial run). The family's inputs are its own structures (a pointer to the matrix
 * among them), not arrays the coordinator could hand over in shared memory, so each worker
 * builds its own, in a thread started as soon as it knows the next sweep and holds its matrix
 * (rt_runner.c). The price: two sets of inputs alive at once, the current sweep's and the next
 * one's, and the next one's build shares the cores with the current sweep's points. */
#ifndef RT_INPUTS_AHEAD_H
#define RT_INPUTS_AHEAD_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_job.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "rt_stop.h"

/* One (matrix, family, problem point)'s inputs and what verifies its kernels. */
typedef struct rt_inputs_set {
    const rt_family_desc *family;
    const rt_csr *matrix; /* borrowed: outlives the set (the inputs may point into it) */
    char problem[512];    /* the problem point as JSON (rt_params_to_json) */
    void *inputs;
    double *reference; /* n_out values */
    double *scale;     /* the elementwise check's |A||B|; NULL when the family has none */
    double *output;    /* room for a kernel's output, n_out values */
    int64_t n_out;
} rt_inputs_set;

/* Builds set for matrix a (mc names it in messages), problem point problem (problem_json: the
 * same as JSON) in job; stop is polled by families that build for long. On failure set holds
 * nothing and err says why, naming the matrix. */
int rt_inputs_build(rt_inputs_set *set, const rt_family_desc *fam, const rt_matrix_cfg *mc,
                    const rt_csr *a, const rt_params *problem, const char *problem_json,
                    const rt_job *job, const rt_stop *stop, rt_err *err);
/* Frees what the set holds and empties it; an empty one is fine. */
void rt_inputs_set_free(rt_inputs_set *set);

typedef struct rt_inputs_ahead rt_inputs_ahead;

/* Starts building a set in a thread (fam, mc and a must outlive it; problem, job and stop are
 * copied; stop, which may be NULL, is polled beside rt_inputs_ahead_free's own request). Fails
 * only when the problem point cannot be written or no thread can be started. */
int rt_inputs_ahead_start(const rt_family_desc *fam, const rt_matrix_cfg *mc, const rt_csr *a,
                          const rt_params *problem, const rt_job *job, const rt_stop *stop,
                          rt_inputs_ahead **out, rt_err *err);
/* Whether p builds the set of this matrix, family and problem point. */
int rt_inputs_ahead_matches(const rt_inputs_ahead *p, const rt_family_desc *fam, const rt_csr *a,
                            const char *problem_json);
/* The matrix p builds for. */
const rt_csr *rt_inputs_ahead_matrix(const rt_inputs_ahead *p);
/* Waits for the build; 0 with the set moved into *out (the caller frees it) and when the build
 * began and ended (rt_clock_epoch), or -1 with why it failed in err. Once only. */
int rt_inputs_ahead_take(rt_inputs_ahead *p, rt_inputs_set *out, double *begin, double *end,
                         rt_err *err);
/* Asks a family that polls to stop, waits for the build, frees everything; NULL is fine. */
void rt_inputs_ahead_free(rt_inputs_ahead *p);

#endif
