#include "spmm_cuda_ell.h"

#include <stdio.h>
#include <stdlib.h>

#include "spmm_cuda_common.h"
#include "spmm_traffic.h"

/* One warp reads one slice: consecutive lanes hold consecutive rows' j-th entries. */
#define ELL_SLICE_HEIGHT 32

typedef struct ell_state {
    rt_spmm_cuda_launch base; /* first: the shared hooks take the state as this */
    void *d_slice_ptr, *d_slice_width, *d_colidx, *d_val;
    double padding_overhead;
    int64_t stored;
} ell_state;

#define ELL_KIND RT_SPMM_CUDA_KIND_ELL

static int ell_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    return rt_spmm_cuda_rows_check(self, ELL_KIND, inputs, p, why, whylen, err);
}

static void ell_teardown(void *state)
{
    ell_state *s = state;
    if (s) {
        void *const buffers[] = {s->d_slice_ptr, s->d_slice_width, s->d_colidx, s->d_val};
        rt_spmm_cuda_launch_free(&s->base, buffers, 4);
    }
}

/* The kernel addresses entry j of row r at slice_ptr[s] + j * h + lane: check that every slice
 * holds that many entries before trusting the layout on the device. */
static int ell_layout_ok(const rt_ell *e, char *why, size_t whylen)
{
    if (e->slice_height != ELL_SLICE_HEIGHT ||
        e->nslices != (e->rows + ELL_SLICE_HEIGHT - 1) / ELL_SLICE_HEIGHT) {
        snprintf(why, whylen, "ELL has slice height %d and %lld slices for %lld rows",
                 (int)e->slice_height, (long long)e->nslices, (long long)e->rows);
        return 0;
    }
    for (int64_t s = 0; s < e->nslices; ++s) {
        const int64_t rows_in = e->rows - s * ELL_SLICE_HEIGHT < ELL_SLICE_HEIGHT
                                    ? e->rows - s * ELL_SLICE_HEIGHT
                                    : ELL_SLICE_HEIGHT;
        const int64_t need = e->slice_width[s] > 0
                                 ? (int64_t)(e->slice_width[s] - 1) * ELL_SLICE_HEIGHT + rows_in
                                 : 0;
        if (e->slice_width[s] < 0 || e->slice_ptr[s + 1] - e->slice_ptr[s] < need ||
            e->slice_ptr[s + 1] > e->stored) {
            snprintf(why, whylen, "ELL slice %lld holds %lld entries, its rows need %lld",
                     (long long)s, (long long)(e->slice_ptr[s + 1] - e->slice_ptr[s]),
                     (long long)need);
            return 0;
        }
    }
    return 1;
}

static int ell_upload(ell_state *s, const rt_ell *e, rt_precision prec, rt_err *err)
{
    int rc = rt_spmm_cuda_upload(&s->base, e->slice_ptr, (size_t)(e->nslices + 1) * sizeof(int64_t),
                                 &s->d_slice_ptr, "ELL slice offsets", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload(&s->base, e->slice_width, (size_t)e->nslices * sizeof(int32_t),
                                 &s->d_slice_width, "ELL slice widths", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload(&s->base, e->colidx, (size_t)e->stored * sizeof(int32_t),
                                 &s->d_colidx, "ELL column indices", err);
    if (rc == 0)
        rc = rt_spmm_cuda_upload_values(&s->base, e->val, e->stored, prec, &s->d_val, "ELL values",
                                        err);
    return rc;
}

static int ell_prepare(void *state, const rt_params *p, rt_err *err)
{
    ell_state *s = state;
    const rt_spmm_inputs *in = s->base.pt.inputs;
    const rt_csr *a = in->a;
    char why[512];
    int rc = rt_spmm_cuda_rows_prepare(&s->base, ELL_KIND, p, "spmm_ell.cu", "rt_spmm_ell", err);
    if (rc != 0)
        return rc;

    rt_ell e;
    if (rt_ell_from_csr(&e, a, ELL_SLICE_HEIGHT, err) != 0)
        return rt_err_prefix(err, "%s: building ELL", s->base.pt.what);
    if (!ell_layout_ok(&e, why, sizeof why)) {
        rt_ell_free(&e);
        return rt_err_set(err, "%s: %s", s->base.pt.what, why);
    }
    s->stored = e.stored;
    s->padding_overhead = a->nnz > 0 ? (double)e.stored / (double)a->nnz - 1.0 : 0.0;
    rc = ell_upload(s, &e, in->prec, err);
    const int32_t slice_height = e.slice_height;
    rt_ell_free(&e);
    if (rc == 0)
        rc = rt_spmm_cuda_launch_dense(&s->base, err);
    if (rc != 0)
        return rc;
    /* rt_spmm_ell(C, B, slice_ptr, slice_width, colidx, val, nrows, ncols, K, ntiles, height) */
    s->base.args = rt_cuda_args_set(&s->base.kargs, "ppppppLLiii", s->base.dense.d_c,
                                    s->base.dense.d_b, s->d_slice_ptr, s->d_slice_width,
                                    s->d_colidx, s->d_val, (long long)a->rows, (long long)a->cols,
                                    (int)in->k, s->base.ntiles, (int)slice_height);
    return 0;
}

static int ell_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const ell_state *s = state;
    rt_cuda_variant_metrics(&s->base.variant, s->base.occupancy, m);
    rt_metrics_add(m, "padding_overhead", "ratio", s->padding_overhead, 1);
    rt_metrics_add(m, "ell_stored", "count", (double)s->stored, 1);
    return 0;
}

static int ell_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in;
    if (rt_spmm_cuda_inputs(inputs, &in, err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double nslices = (double)((in->a->rows + ELL_SLICE_HEIGHT - 1) / ELL_SLICE_HEIGHT);
    /* Column indices and values of every entry of an existing row, padding included (a warp's
     * loads fetch whole sectors; lanes past the last row exit before reading), plus each slice's
     * offset and width. */
    const double a_bytes =
        (double)rt_spmm_ell_entries_read(in->a, ELL_SLICE_HEIGHT) * (elem + 4.0) +
        nslices * (8.0 + 4.0);
    return rt_spmm_cuda_traffic(in, a_bytes, self->name, t, err);
}

const rt_spmm_cuda_hooks rt_spmm_cuda_ell_hooks = {
    ell_check, ell_prepare, sizeof(ell_state), ell_metrics, ell_teardown, ell_traffic, NULL};
