/* spmm_cuda_common: what every CUDA SpMM kernel does the same way: validating the family's
 * inputs, reading parameters with their schema defaults, B and C on the device (upload, NaN
 * poison, download to row-major doubles), A's values in the point's precision, launch geometry
 * and the compulsory-traffic model. */
#ifndef SPMM_CUDA_COMMON_H
#define SPMM_CUDA_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_cuda_nvrtc.h"
#include "rt_cuda_point.h"
#include "rt_cuda_variant.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "spmm_cuda_catalog.h"
#include "spmm_cuda_variant.h"
#include "spmm_family.h"

/* The family's memos in the CUDA context (rt_cuda_ctx_memo): the cuSPARSE handle, the plan
 * summaries of the Tiled kernels' traffic models, and the footprints of the last matrix the Tiled
 * kernels planned (rt_tiled_footprints: what every point of a sweep over buffsize shares). */
#define RT_SPMM_MEMO_CUSPARSE         "spmm.cusparse"
#define RT_SPMM_MEMO_TILED_FOOTPRINTS "spmm.tiled.footprints"
#define RT_SPMM_MEMO_TILED_PLAN       "spmm.tiled.plan"
#define RT_SPMM_MEMO_TILED_PIPE_PLAN  "spmm.tiled_pipe.plan"
#define RT_SPMM_MEMO_TILED_TMA_PLAN   "spmm.tiled_tma.plan"

/* The inputs, checked: A present and valid in shape, B of A->cols x K rows/cols in the point's
 * precision and layout, K >= 1. */
int rt_spmm_cuda_inputs(const void *inputs, const rt_spmm_inputs **out, rt_err *err);

/* The family's inputs for the generic CUDA setup (rt_cuda_point.h). */
extern const rt_cuda_point_family rt_spmm_cuda_point;

/* "spmm.cuda.tiled {params} on m x n (nnz) K=.. fp32 row": names a point in messages. */
void rt_spmm_cuda_describe_point(const char *kernel, const rt_params *p, const rt_spmm_inputs *in,
                                 char *out, size_t len);

/* B and C on the device. B is uploaded with b_rows >= n rows (extra rows zero) and C allocated
 * with c_rows >= m rows, both in the point's layout with leading dimension K (row-major) or their
 * row count (column-major). C is poisoned with NaN (all bytes 0xFF) so an unwritten output fails
 * verification. Returns 0, RT_INFEASIBLE (out of device memory) or -1. */
typedef struct rt_spmm_cuda_dense {
    rt_cuda_ctx *ctx;
    int64_t m, n, k;
    int64_t b_rows, c_rows;
    rt_precision prec;
    rt_layout layout;
    size_t elem;
    void *d_b;
    void *d_c;
} rt_spmm_cuda_dense;

int rt_spmm_cuda_dense_setup(rt_spmm_cuda_dense *d, rt_cuda_ctx *ctx, const rt_spmm_inputs *in,
                             int64_t b_rows, int64_t c_rows, const char *what, rt_err *err);
/* C's first m rows as m x K row-major doubles (the family's output convention). */
int rt_spmm_cuda_dense_output(const rt_spmm_cuda_dense *d, double *out, const char *what,
                              rt_err *err);
void rt_spmm_cuda_dense_free(rt_spmm_cuda_dense *d);

/* Launch geometry over rows and K tiles: grid.x = ceil(rows / block), grid.y = min(tiles, 65535),
 * *ntiles = ceil(K / register_tile). Fails when grid.x would pass 2^31 - 1. */
int rt_spmm_cuda_grid(int64_t rows, int block, int64_t k, int register_tile, unsigned grid[3],
                      int *ntiles, rt_err *err);

/* Compulsory traffic of a GPU kernel (spmm_traffic.h): DRAM = `a_bytes` for A (values, indices
 * and padding the kernel reads) + the rows of B that A references, read once + C written once
 * (m x K); L2 = the same bytes (a lower bound: everything from DRAM passes through L2, and L1
 * keeps nothing across launches); flops = 2 nnz K (nominal). Fails only when the count of B's
 * rows cannot be made (out of memory); the message names `what`. */
int rt_spmm_cuda_traffic(const rt_spmm_inputs *in, double a_bytes, const char *what, rt_traffic *t,
                         rt_err *err);

/* What the state of every single-launch SpMM kernel (csr, ell, tiled) starts with: its FIRST
 * member, so the shared hooks below take the kernel's state as this. The kernel keeps its argument
 * values in its own state and points args at their addresses (cuLaunchKernel reads them there). */
typedef struct rt_spmm_cuda_launch {
    rt_cuda_point pt; /* context, the checked rt_spmm_inputs, kernel and point for messages */
    rt_spmm_cuda_dense dense;
    rt_cuda_variant variant;
    rt_cuda_launch_cfg cfg;
    double occupancy;
    int ntiles;         /* register tiles of K (the launch geometry's) */
    rt_cuda_args kargs; /* the kernel's argument values */
    void **args;        /* kargs.args once set */
} rt_spmm_cuda_launch;

/* The launch of base's prepared variant: the grid over rows and K tiles (rt_spmm_cuda_grid, its
 * tile count in *ntiles), one-dimensional blocks of block_size threads, dynamic_shared bytes of
 * shared memory, and the occupancy the variant reaches. 0 or -1 (the message names base->what). */
int rt_spmm_cuda_launch_geometry(rt_spmm_cuda_launch *base, int64_t rows, int64_t k,
                                 int64_t block_size, int64_t register_tile, size_t dynamic_shared,
                                 int *ntiles, rt_err *err);

/* The setup hook's body (rt_cuda_point_setup with the spmm inputs): a zeroed state of
 * state_bytes whose first member is an rt_spmm_cuda_launch, its point filled, then prepare
 * (upload, compile, launch geometry; the inputs are in pt.inputs); on failure the state goes
 * through teardown. Returns prepare's 0, RT_INFEASIBLE or -1. */
int rt_spmm_cuda_launch_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                              size_t state_bytes,
                              int (*prepare)(void *state, const rt_params *p, rt_err *err),
                              void (*teardown)(void *state), void **state, rt_err *err);
/* The run and output hooks: one timed launch, C back as doubles (flush: rt_cuda_point_flush). */
int rt_spmm_cuda_launch_run(void *state, double *seconds, rt_err *err);
int rt_spmm_cuda_launch_output(void *state, double *out, rt_err *err);
/* A single-launch kernel's own parts (rt_kernel_desc's hook types); its setup is
 * rt_spmm_cuda_launch_setup with prepare and state_bytes, its run, output and flush the shared
 * ones above (spmm_cuda_describe.c puts them together). */
typedef struct rt_spmm_cuda_hooks {
    rt_cuda_check_fn *check;
    int (*prepare)(void *state, const rt_params *p, rt_err *err);
    size_t state_bytes;
    rt_cuda_metrics_fn *metrics;
    void (*teardown)(void *state);
    rt_cuda_traffic_fn *traffic;
    /* Optional: the variant the point's prepare compiles (its defines in *defs, which rq points
     * at), built by the code prepare builds it with, for the compile-ahead hook
     * (rt_kernel_desc.compile_ahead). 0; RT_INFEASIBLE when the point is not feasible on dev
     * (nothing to compile ahead); -1 on bad parameters. NULL: the kernel compiles nothing ahead. */
    int (*variant)(const rt_spmm_inputs *in, const rt_params *p, const rt_device_info *dev,
                   const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq,
                   rt_err *err);
} rt_spmm_cuda_hooks;

/* The teardown hook's body: frees B and C, the kernel's n device buffers and the state. */
void rt_spmm_cuda_launch_free(rt_spmm_cuda_launch *l, void *const *buffers, int n);

/* Uploads bytes (or n values converted to the point's precision) into a new device buffer whose
 * messages read "<label> of <kernel and point>". 0, RT_INFEASIBLE or -1. */
int rt_spmm_cuda_upload(rt_spmm_cuda_launch *l, const void *src, size_t bytes, void **dptr,
                        const char *label, rt_err *err);
int rt_spmm_cuda_upload_values(rt_spmm_cuda_launch *l, const double *src, int64_t n,
                               rt_precision prec, void **dptr, const char *label, rt_err *err);

/* The kernels with one thread per row of C (csr, ell): the same three compile-time parameters. */
typedef struct rt_spmm_cuda_rows {
    int64_t block_size, register_tile, min_blocks;
} rt_spmm_cuda_rows;

int rt_spmm_cuda_rows_params(const rt_params *p, int kind, rt_spmm_cuda_rows *r, rt_err *err);
/* Their check hook's body: the inputs, the parameters and the launch against the device. */
int rt_spmm_cuda_rows_check(const rt_kernel_desc *self, int kind, const void *inputs,
                            const rt_params *p, char *why, size_t whylen, rt_err *err);
/* Their prepare's first half: the parameters, the launch against the device (RT_INFEASIBLE with
 * the reason), entry `entry` of NVRTC source `source` compiled (spills allowed) and the launch
 * geometry over A's rows and K (l->ntiles: the register tiles of K). 0, RT_INFEASIBLE or -1. */
int rt_spmm_cuda_rows_prepare(rt_spmm_cuda_launch *l, int kind, const rt_params *p,
                              const char *source, const char *entry, rt_err *err);
/* B and C of a launch kernel: A's columns and rows, no padding (rt_spmm_cuda_dense_setup). */
int rt_spmm_cuda_launch_dense(rt_spmm_cuda_launch *l, rt_err *err);

#endif
