#include "spmm_cuda_csr.h"

#include <stdlib.h>

#include "spmm_cuda_common.h"

#define CSR_KIND RT_SPMM_CUDA_KIND_CSR

typedef struct csr_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_rowptr, *d_colidx, *d_val;
} csr_state;

static int csr_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    return rt_spmm_cuda_rows_check(self, CSR_KIND, inputs, p, why, whylen, err);
}

static void csr_teardown(void *state)
{
    csr_state *s = state;
    if (s) {
        void *const buffers[] = {s->d_rowptr, s->d_colidx, s->d_val};
        rt_spmm_cuda_launch_free(&s->base, buffers, 3);
    }
}

static int csr_prepare(void *state, const rt_params *p, rt_err *err)
{
    csr_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    const rt_csr *a = in->a;
    int rc = rt_spmm_cuda_rows_prepare(&s->base, CSR_KIND, p, "spmm_csr.cu", "rt_spmm_csr", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload(&s->base, a->rowptr, (size_t)(a->rows + 1) * sizeof(int64_t),
                                 &s->d_rowptr, "row offsets", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload(&s->base, a->colidx, (size_t)a->nnz * sizeof(int32_t),
                                 &s->d_colidx, "column indices", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload_values(&s->base, a->val, a->nnz, in->prec, &s->d_val, "values",
                                        err);
    if (rc == 0)
        rc = rt_spmm_cuda_launch_dense(&s->base, err);
    if (rc != 0)
        return rc;
    /* rt_spmm_csr(C, B, rowptr, colidx, val, nrows, ncols, K, ntiles) */
    s->base.args = rt_cuda_args_set(
        &s->base.kargs, "pppppLLii", s->base.dense.d_c, s->base.dense.d_b, s->d_rowptr, s->d_colidx,
        s->d_val, (long long)a->rows, (long long)a->cols, (int)in->k, s->base.ntiles);
    return 0;
}

static int csr_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const csr_state *s = state;
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "grid_x", "count", s->base.cfg.grid[0], 1);
    rt_metrics_add(m, "grid_y", "count", s->base.cfg.grid[1], 1);
    return 0;
}

static int csr_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double a_bytes = (double)in->a->nnz * (elem + 4.0) + (double)(in->a->rows + 1) * 8.0;
    return rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err);
}

const rt_spmm_cuda_hooks rt_spmm_cuda_csr_hooks = {
    csr_check, csr_prepare, sizeof(csr_state), csr_metrics, csr_teardown, csr_traffic, NULL};
