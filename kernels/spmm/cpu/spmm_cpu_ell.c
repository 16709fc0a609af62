#include "spmm_cpu_ell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "rt_schema.h"
#include "spmm_cpu_common.h"
#include "spmm_family.h"
#include "spmm_traffic.h"

static const rt_param_schema ell_params[] = {
    {"row_block", RT_V_INT, "1..1048576", "256", 0, "rows per OpenMP chunk (dynamic schedule)"},
    {"col_block", RT_V_INT, "1..65536", "64", 0,
     "columns of B/C per sweep over a row's nonzeros (clamped to K)"},
    {"threads", RT_V_INT, "0..1024", "0", 0, "OpenMP threads, 0 = every available core"},
    {"slice_height", RT_V_INT, "1..1024", "32", 0,
     "rows per ELL slice, each padded to its longest row (32 = one warp)"},
};

typedef struct ell_state {
    rt_spmm_cpu_rowwise w;
    rt_dense c;
    rt_ell ell;
    int have_ell;
    float *val32;
    int team_started;
} ell_state;

static void ell_teardown(void *state)
{
    ell_state *s = state;
    if (!s)
        return;
    rt_spmm_cpu_rowwise_unbind(&s->w, &s->c);
    if (s->have_ell)
        rt_ell_free(&s->ell);
    free(s->val32);
    free(s);
}

static int ell_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    *state = NULL;
    if (!in)
        return rt_err_set(err, "%s: no inputs", self->name);
    int64_t slice_height = 0;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "slice_height", &slice_height,
                      err) != 0)
        return -1;
    ell_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", self->name);
    char why[256] = "";
    const int rc = rt_spmm_cpu_rowwise_params(self, p, env, in->k, &s->w, why, sizeof why, err);
    if (rc != 0) {
        free(s);
        if (rc == RT_INFEASIBLE)
            rt_err_set(err, "%s", why);
        return rc;
    }
    if (rt_spmm_cpu_rowwise_bind(&s->w, in, &s->c, err) != 0) {
        free(s);
        return rt_err_prefix(err, "%s", self->name);
    }
    if (rt_ell_from_csr(&s->ell, in->a, (int32_t)slice_height, err) != 0) {
        ell_teardown(s);
        return rt_err_prefix(err, "%s: converting A to ELL (slice_height %" PRId64 ")", self->name,
                             slice_height);
    }
    s->have_ell = 1;
    if (s->ell.stored > 0 && in->a->cols == 0) {
        ell_teardown(s);
        return rt_err_set(err, "%s: ELL of a matrix with no columns stores entries", self->name);
    }
    /* Padding (column -1) is redirected to column 0 with its value 0: the multiply-add still
     * happens, as on a GPU, but reads a valid row of B. */
    for (int64_t e = 0; e < s->ell.stored; ++e)
        if (s->ell.colidx[e] < 0)
            s->ell.colidx[e] = 0;
    s->w.slice_ptr = s->ell.slice_ptr;
    s->w.slice_width = s->ell.slice_width;
    s->w.slice_height = s->ell.slice_height;
    s->w.colidx = s->ell.colidx;
    if (in->prec == RT_FP32) {
        s->val32 = rt_spmm_values_to_float(s->ell.val, s->ell.stored, err);
        if (!s->val32) {
            ell_teardown(s);
            return rt_err_prefix(err, "%s", self->name);
        }
        s->w.val = s->val32;
    } else {
        s->w.val = s->ell.val;
    }
    s->team_started = rt_cpu_team_size(s->w.team);
    *state = s;
    return 0;
}

static int ell_run(void *state, double *seconds, rt_err *err)
{
    ell_state *s = state;
    rt_spmm_cpu_rowwise_run(&s->w);
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    return 0;
}

static int ell_output(void *state, double *out, rt_err *err)
{
    const ell_state *s = state;
    rt_spmm_dense_to_rowmajor(&s->c, out);
    return 0;
}

static int ell_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const ell_state *s = state;
    const double overhead = s->ell.nnz > 0 ? (double)s->ell.stored / (double)s->ell.nnz - 1.0 : 0.0;
    rt_metrics_add(m, "padding_overhead", "ratio", overhead, 1);
    rt_metrics_add(m, "ell_stored", "count", (double)s->ell.stored, 1);
    rt_metrics_add(m, "threads", "count", (double)s->team_started, 0);
    rt_metrics_add(m, "chunks", "count", (double)rt_spmm_cpu_rowwise_chunks(&s->w), 1);
    rt_metrics_add(m, "col_block_used", "count", (double)s->w.col_block, 1);
    return 0;
}

/* Compulsory traffic with A as this kernel stores it: every entry of an existing row of a slice
 * (padding included: its multiply-add is executed) with 4-byte columns, plus each slice's 8-byte
 * offset and 4-byte width. */
static int ell_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    if (!in)
        return rt_err_set(err, "%s: traffic model needs the inputs", self->name);
    int64_t slice_height = 0;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "slice_height", &slice_height,
                      err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double nslices = (double)((in->a->rows + slice_height - 1) / slice_height);
    const double a_bytes =
        (double)rt_spmm_ell_entries_read(in->a, slice_height) * (elem + 4.0) + nslices * 12.0;
    if (rt_spmm_traffic_fill(in, a_bytes, 0, t, err) != 0)
        return rt_err_prefix(err, "%s", self->name);
    return 0;
}

static const rt_kernel_desc ell_desc = RT_CPU_KERNEL(
    "spmm.cpu.ell", "spmm", "warp-sliced ELL SpMM, OpenMP over row chunks, padding executed",
    ell_params, rt_spmm_cpu_rowwise_check, ell_setup, ell_run, ell_output, ell_metrics,
    ell_teardown, ell_traffic);

const rt_kernel_desc *rt_spmm_cpu_ell_kernel(void)
{
    return &ell_desc;
}
