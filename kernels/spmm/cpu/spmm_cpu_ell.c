#include "spmm_cpu_ell.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "rt_schema.h"
#include "rt_tables.h"
#include "spmm_cpu_common.h"
#include "spmm_family.h"
#include "spmm_traffic.h"

static const rt_param_schema ell_params[] = {
    RT_SPMM_CPU_ROW_BLOCK,
    RT_SPMM_CPU_COL_BLOCK,
    RT_SPMM_CPU_THREADS,
    RT_PARAM_INT("slice_height", "1..1024", "32",
                 "rows per ELL slice, each padded to its longest row (32 = one warp)"),
};

typedef struct ell_state {
    rt_spmm_cpu_point pt; /* first: the shared hooks take the state as this */
    rt_ell ell;
    int have_ell;
} ell_state;

static void ell_teardown(void *state)
{
    ell_state *s = state;
    if (!s)
        return;
    rt_spmm_cpu_point_end(&s->pt);
    if (s->have_ell)
        rt_ell_free(&s->ell);
    free(s);
}

/* The ELL layout of A in s->ell, with padding (column -1) redirected to column 0 with its value 0:
 * the multiply-add still happens, as on a GPU, but reads a valid row of B. */
static int ell_build(const rt_kernel_desc *self, ell_state *s, const rt_spmm_inputs *in,
                     int64_t slice_height, rt_err *err)
{
    if (rt_ell_from_csr(&s->ell, in->a, (int32_t)slice_height, err) != 0)
        return rt_err_prefix(err, "%s: converting A to ELL (slice_height %" PRId64 ")", self->name,
                             slice_height);
    s->have_ell = 1;
    if (s->ell.stored > 0 && in->a->cols == 0)
        return rt_err_set(err, "%s: ELL of a matrix with no columns stores entries", self->name);
    for (int64_t e = 0; e < s->ell.stored; ++e)
        if (s->ell.colidx[e] < 0)
            s->ell.colidx[e] = 0;
    s->pt.w.slice_ptr = s->ell.slice_ptr;
    s->pt.w.slice_width = s->ell.slice_width;
    s->pt.w.slice_height = s->ell.slice_height;
    s->pt.w.colidx = s->ell.colidx;
    if (rt_spmm_cpu_point_values(&s->pt, s->ell.val, s->ell.stored, err) != 0)
        return rt_err_prefix(err, "%s", self->name);
    return 0;
}

static int ell_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    *state = NULL;
    if (!inputs)
        return rt_err_set(err, "%s: no inputs", self->name);
    int64_t slice_height = 0;
    if (rt_schema_int(self->params, self->n_params, self->name, p, "slice_height", &slice_height,
                      err) != 0)
        return -1;
    const int rc = rt_spmm_cpu_point_begin(self, inputs, p, env, sizeof(ell_state), state, err);
    if (rc != 0)
        return rc;
    if (ell_build(self, *state, inputs, slice_height, err) != 0) {
        ell_teardown(*state);
        *state = NULL;
        return -1;
    }
    return 0;
}

static int ell_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const ell_state *s = state;
    const double overhead = s->ell.nnz > 0 ? (double)s->ell.stored / (double)s->ell.nnz - 1.0 : 0.0;
    rt_metrics_add(m, "padding_overhead", "ratio", overhead, 1);
    rt_metrics_add(m, "ell_stored", "count", (double)s->ell.stored, 1);
    rt_spmm_cpu_point_metrics(&s->pt, m);
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
    ell_params, rt_spmm_cpu_rowwise_check, ell_setup, rt_spmm_cpu_point_run,
    rt_spmm_cpu_point_output, ell_metrics, ell_teardown, ell_traffic);

const rt_kernel_desc *rt_spmm_cpu_ell_kernel(void)
{
    return &ell_desc;
}
