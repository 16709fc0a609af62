/* sp2_engine: where the local work of the 2D algorithms runs. The algorithms (gets, remote
 * queues, SUMMA broadcasts and reductions, work grids, metrics, traffic model) live once, in
 * kernels/spmm2d/ (sp2_setup.c, sp2_run.c and the files they call); an engine does only the
 * arithmetic on tiles that are already on this rank:
 *
 *   spmm_acc      C(i,j) += A(i,k) B(k,j) into a C tile this rank owns
 *   spmm_partial  a host buffer = sum of A(i,k_t) B(k_t,j) over a list of products (the partial C
 *                 a rank pushes to another rank's queue, or reduces in stationary-A SUMMA)
 *   spgemm        A(i,k) B(k,j) (both sparse) into a host CSR buffer
 *   begin_run     start of an execution (C tiles the engine keeps elsewhere start at zero)
 *   merge_c       the owned C tiles the engine holds, added into the host C (and cleared there)
 *
 * The CPU engine (sp2_engine.c) computes in place in host memory. The GPU engine
 * (kernels/shared/cuda/sp2_cuda_engine.c) keeps this rank's own tiles and its C tiles on the device
 * and stages fetched tiles through the host buffers the algorithms fetch into; its descriptors are
 * built from sp2_fill_hooks (sp2_hooks.h) and a setup hook that calls sp2_setup_with_engine. */
#ifndef SP2_ENGINE_H
#define SP2_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_registry.h"
#include "sp2_dist.h"
#include "sp2_local.h"

/* One operand of a product: tile (ti, tj) of mat, whose packed block is at `block` in host memory
 * (this rank's window when it owns the tile, else a staging or broadcast buffer), and the view of
 * that block. An engine may recognise the rank's own tiles by block == sp2_dmat_local_block(). */
typedef struct sp2_operand {
    const sp2_dmat *mat;
    int ti, tj;
    const void *block;
    sp2_tile t;
} sp2_operand;

void sp2_operand_make(sp2_operand *op, const sp2_dmat *mat, int ti, int tj, const void *block);

/* Time spent by one engine call, added by the caller to its breakdown: arithmetic (compute) and
 * host<->device copies of tiles and partial products (staging; 0 on the CPU). */
typedef struct sp2_etimes {
    double compute, staging;
} sp2_etimes;

/* What an engine learns at setup: the distributed operands, the C tiles this rank owns (tile ids
 * i * NT + j, their shapes and element offsets in the host C), and the host buffers the
 * algorithms fetch, broadcast or stage partial products into (the GPU engine pins them). */
#define SP2_MAX_HOST_BUFS 8
typedef struct sp2_engine_setup {
    const char *kernel; /* for messages */
    rt_precision prec;
    int spgemm;
    const sp2_dmat *A, *B;
    int n_c;
    const int64_t *c_rows, *c_cols, *c_off; /* per owned C tile (SpMM: c_off into the host C) */
    int64_t c_elems;                        /* SpMM: values of all owned C tiles */
    int64_t max_c_rows, max_c_cols;
    int n_bufs;
    void *bufs[SP2_MAX_HOST_BUFS];
    size_t buf_bytes[SP2_MAX_HOST_BUFS];
} sp2_engine_setup;

typedef struct sp2_engine {
    const char *name;
    int stages; /* 1: the engine copies tiles between host and device (staging_s is stored) */
    /* Returns 0, RT_INFEASIBLE (err holds why, e.g. the device is full) or -1. *es may be set on
     * failure too; teardown is then called with it. */
    int (*setup)(void *backend, const sp2_engine_setup *info, void **es, rt_err *err);
    void (*teardown)(void *es);
    int (*begin_run)(void *es, rt_err *err);
    /* c: the owned tile's host memory (slot c_slot), row-major with leading dimension b->t.cols. */
    int (*spmm_acc)(void *es, const sp2_operand *a, const sp2_operand *b, int c_slot, void *c,
                    double *flops, sp2_etimes *t, rt_err *err);
    /* part (rows x cols, row-major, ld = cols) = sum over q < n of a[q] b[q]; every a[q] has
     * `rows` rows and every b[q] `cols` columns. n = 0 zeroes part. */
    int (*spmm_partial)(void *es, int n, const sp2_operand *a, const sp2_operand *b, int64_t rows,
                        int64_t cols, void *part, double *flops, sp2_etimes *t, rt_err *err);
    int (*spgemm)(void *es, const sp2_operand *a, const sp2_operand *b, sp2_csrbuf *out,
                  double *flops, sp2_etimes *t, rt_err *err);
    /* Optional (NULL: nothing kept elsewhere). host_c: the c_elems values of the host C. */
    int (*merge_c)(void *es, void *host_c, rt_err *err);
    /* Optional: evict device caches before a cold repetition. */
    int (*flush)(void *es, rt_err *err);
} sp2_engine;

/* The CPU engine: today's local multiplies (sp2_local.c), in place in host memory. */
const sp2_engine *sp2_cpu_engine(void);

/* Setup of a 2D kernel with the given engine and its backend context (the CPU kernels pass the
 * CPU engine and NULL). Same contract as rt_kernel_desc.setup. */
int sp2_setup_with_engine(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, const sp2_engine *eng, void *backend,
                          void **state, rt_err *err);

#endif
