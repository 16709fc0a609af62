/* spmm_cpu_common: what the CPU SpMM kernels share: the per-point output buffer C, and the
 * row-blocked execution engine that the CSR and ELL kernels both drive. */
#ifndef SPMM_CPU_COMMON_H
#define SPMM_CPU_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"
#include "spmm_family.h"
#include "rt_cpu_threads.h"

/* Allocates C (m x K in the inputs' layout and precision) and poisons it with NAN. */
int rt_spmm_cpu_alloc_output(const rt_spmm_inputs *in, rt_dense *c, rt_err *err);

/* A row-wise SpMM to execute: the entries of row r are (colidx[e], val[e]) for
 * e = start + t * stride, t < count, where
 *   CSR (slice_ptr == NULL): start = rowptr[r], count = rowptr[r+1] - rowptr[r], stride = 1;
 *   ELL (slice_ptr != NULL): s = r / slice_height, start = slice_ptr[s] + r % slice_height,
 *                            count = slice_width[s], stride = slice_height.
 * Every colidx must be a valid row of B (ELL padding remapped to column 0 with value 0, so the
 * padded multiply-adds are executed as a GPU would execute them). */
typedef struct rt_spmm_cpu_rowwise {
    int64_t rows;
    int64_t k;
    const int64_t *rowptr;
    const int64_t *slice_ptr;
    const int32_t *slice_width;
    int32_t slice_height;
    const int32_t *colidx;
    const void *val; /* float (fp32) or double (fp64) */
    rt_precision prec;
    rt_layout layout; /* of B and C */
    const void *b;
    int64_t ldb;
    void *c;
    int64_t ldc;
    int64_t row_block; /* rows per OpenMP chunk */
    int64_t col_block; /* columns per sweep, 1..k */
    int team;          /* OpenMP threads */
    void *scratch;     /* team * col_block elements of prec: one accumulator per thread */
} rt_spmm_cpu_rowwise;

/* The schema entries of the row-wise parameters (the start of every such kernel's schema). */
#define RT_SPMM_CPU_ROW_BLOCK                                                                      \
    {                                                                                              \
        "row_block", RT_V_INT, "1..1048576", "256", 0, "rows per OpenMP chunk (dynamic schedule)"  \
    }
#define RT_SPMM_CPU_COL_BLOCK                                                                      \
    {                                                                                              \
        "col_block", RT_V_INT, "1..65536", "64", 0,                                                \
            "columns of B/C per sweep over a row's nonzeros (clamped to K)"                        \
    }
#define RT_SPMM_CPU_THREADS                                                                        \
    {                                                                                              \
        "threads", RT_V_INT, "0..1024", "0", 0, "OpenMP threads, 0 = every available core"         \
    }

/* Reads the row-wise parameters every such kernel shares (row_block, col_block, threads) from p
 * through self's schema into w: col_block is clamped to k (a wider sweep than C has columns is
 * the same sweep), threads resolves to a team. Returns 0, RT_INFEASIBLE (why filled) or -1. */
int rt_spmm_cpu_rowwise_params(const rt_kernel_desc *self, const rt_params *p,
                               const rt_kernel_env *env, int64_t k, rt_spmm_cpu_rowwise *w,
                               char *why, size_t whylen, rt_err *err);
/* Allocates C (poisoned) and the per-thread accumulators and points w at B and C of the inputs.
 * The caller fills the A side (rowptr or slices, colidx, val). */
int rt_spmm_cpu_rowwise_bind(rt_spmm_cpu_rowwise *w, const rt_spmm_inputs *in, rt_dense *c,
                             rt_err *err);
/* Frees what bind allocated (safe on a zeroed or partly bound w). */
void rt_spmm_cpu_rowwise_unbind(rt_spmm_cpu_rowwise *w, rt_dense *c);

/* Hooks shared by the row-wise kernels. check: threads oversubscription; traffic: compulsory
 * DRAM traffic (spmm_traffic.h) with A in CSR, values in the point's precision (the ELL and Tiled
 * kernels have their own traffic hooks for their own storage of A). */
int rt_spmm_cpu_rowwise_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                              const rt_kernel_env *env, char *why, size_t whylen, rt_err *err);
int rt_spmm_cpu_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err);

/* Row chunks of one execution: ceil(rows / row_block). */
int64_t rt_spmm_cpu_rowwise_chunks(const rt_spmm_cpu_rowwise *w);
void rt_spmm_cpu_rowwise_run(const rt_spmm_cpu_rowwise *w);

/* The first member of a row-wise kernel's state (csr, ell): the execution, C, A's values in fp32
 * for fp32 points (fp64 points use A's own array), and the team that ran. */
typedef struct rt_spmm_cpu_point {
    rt_spmm_cpu_rowwise w;
    rt_dense c;
    float *val32;
    int team_started;
} rt_spmm_cpu_point;

/* The setup's first half: a zeroed state of state_bytes (first member an rt_spmm_cpu_point), its
 * row-wise parameters (RT_INFEASIBLE with the reason in err) and C bound. 0 with *state set, or
 * RT_INFEASIBLE / -1 with nothing left allocated. */
int rt_spmm_cpu_point_begin(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                            const rt_kernel_env *env, size_t state_bytes, void **state,
                            rt_err *err);
/* A's n values for the point's precision (converted to fp32 for fp32 points) as w.val, and the
 * team recorded; the setup's last step. 0 or -1. */
int rt_spmm_cpu_point_values(rt_spmm_cpu_point *pt, const double *val, int64_t n, rt_err *err);
/* Frees what begin and values allocated (not the state itself). */
void rt_spmm_cpu_point_end(rt_spmm_cpu_point *pt);
/* The run and output hooks of such a state, and the metrics every one reports (threads, chunks,
 * col_block_used). */
int rt_spmm_cpu_point_run(void *state, double *seconds, rt_err *err);
int rt_spmm_cpu_point_output(void *state, double *out, rt_err *err);
void rt_spmm_cpu_point_metrics(const rt_spmm_cpu_point *pt, rt_metrics *m);

#endif
