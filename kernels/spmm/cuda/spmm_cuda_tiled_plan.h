/* spmm_cuda_tiled_plan: a Tiled SpMM plan (kernels/spmm/spmm_tiled.h) on the device, for the two
 * kernels that run it: Listing 1's (spmm.cuda.tiled) and the pipelined one
 * (spmm.cuda.tiled_pipe). Both build the same host plan, check it against what their device code
 * assumes, upload the same six arrays, report the same plan metrics, and model their traffic from
 * a summary of the plan remembered in the CUDA context (so that the traffic hook of a point does
 * not rebuild the plan its setup just built). */
#ifndef SPMM_CUDA_TILED_PLAN_H
#define SPMM_CUDA_TILED_PLAN_H

#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "spmm_cuda_common.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_metrics.h"
#include "rt_registry.h"
#include "spmm_family.h"
#include "spmm_tiled.h"

/* The plan's arrays on the device, in the kernels' argument order, and what building it cost. */
typedef struct rt_spmm_tiled_dev {
    void *d_displ, *d_index, *d_value, *d_buffdispl, *d_mapdispl, *d_map;
    double preprocess_s;     /* host plan build + upload (the checks between them not counted) */
    rt_metrics plan_metrics; /* rt_tiled_plan_metrics and stages_per_block */
} rt_spmm_tiled_dev;

/* Sets the 13 arguments both Tiled kernels take (C, B, the plan's arrays, sizes, the launch's
 * register tiles of K, buffsize) in l->kargs and points l->args at them. */
void rt_spmm_tiled_args_bind(rt_spmm_cuda_launch *l, const rt_spmm_tiled_dev *plan,
                             int64_t buffsize);

/* The facts of a plan the traffic model reads. */
typedef struct rt_spmm_tiled_summary {
    uint64_t fingerprint; /* of A's pattern: a matrix at a reused address is not mistaken */
    int64_t rows, cols, nnz;
    rt_tiled_params p;
    int64_t nblocks, nstages, nmap, stored;
} rt_spmm_tiled_summary;

/* Builds A's plan with tp (from A's footprints, remembered in ctx under
 * RT_SPMM_MEMO_TILED_FOOTPRINTS for the sweep's next point), verifies it (rt_tiled_plan_verify,
 * then what the device code assumes: block_size / warp_size warps per block for ELL staging, at
 * most tp->buffsize staged rows of B per stage, which `holder` names in the message, e.g. "shared
 * memory"), uploads it in the precision prec, fills dev, and remembers its summary in ctx under
 * memo_key (the kernel's own). `what` names the kernel in messages. On failure the arrays uploaded
 * so far stay in dev for rt_spmm_tiled_dev_free. */
int rt_spmm_tiled_dev_prepare(rt_cuda_ctx *ctx, const char *memo_key, const char *what,
                              const rt_csr *a, const rt_tiled_params *tp, rt_precision prec,
                              const char *holder, rt_spmm_tiled_dev *dev, rt_err *err);
void rt_spmm_tiled_dev_free(rt_cuda_ctx *ctx, rt_spmm_tiled_dev *dev);
/* Appends the plan metrics and preprocess_s to m. */
void rt_spmm_tiled_dev_metrics(const rt_spmm_tiled_dev *dev, rt_metrics *m);

/* The summary of A's plan with tp: the one remembered under memo_key when it matches A and tp,
 * else built now (and remembered). NULL with err set when the plan cannot be built. */
const rt_spmm_tiled_summary *rt_spmm_tiled_summary_get(rt_cuda_ctx *ctx, const char *memo_key,
                                                       const rt_csr *a, const rt_tiled_params *tp,
                                                       const char *what, rt_err *err);

/* The kernels' traffic model from a plan summary. DRAM and L2: the plan read once
 * (rt_spmm_tiled_plan_bytes), B's referenced rows, C once. Shared: every block stages each of its
 * map entries and reads each stored entry, padding included, for whole register tiles: the last
 * tile of K is staged and read register_tile wide (zeros past K). */
int rt_spmm_tiled_traffic(const rt_spmm_inputs *in, const rt_spmm_tiled_summary *sum,
                          int64_t register_tile, const char *what, rt_traffic *t, rt_err *err);

#endif
