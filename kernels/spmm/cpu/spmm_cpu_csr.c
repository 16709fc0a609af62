#include "spmm_cpu_csr.h"

#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "spmm_cpu_common.h"
#include "spmm_family.h"

static const rt_param_schema csr_params[] = {
    {"row_block", RT_V_INT, "1..1048576", "256", 0, "rows per OpenMP chunk (dynamic schedule)"},
    {"col_block", RT_V_INT, "1..65536", "64", 0,
     "columns of B/C per sweep over a row's nonzeros (clamped to K)"},
    {"threads", RT_V_INT, "0..1024", "0", 0, "OpenMP threads, 0 = every available core"},
};

typedef struct csr_state {
    rt_spmm_cpu_rowwise w;
    rt_dense c;
    float *val32; /* A's values in fp32 for fp32 points; fp64 points use A's own array */
    int team_started;
} csr_state;

static void csr_teardown(void *state)
{
    csr_state *s = state;
    if (!s)
        return;
    rt_spmm_cpu_rowwise_unbind(&s->w, &s->c);
    free(s->val32);
    free(s);
}

static int csr_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    *state = NULL;
    if (!in)
        return rt_err_set(err, "%s: no inputs", self->name);
    csr_state *s = calloc(1, sizeof *s);
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
    const rt_csr *a = in->a;
    s->w.rowptr = a->rowptr;
    s->w.colidx = a->colidx;
    if (in->prec == RT_FP32) {
        s->val32 = rt_spmm_values_to_float(a->val, a->nnz, err);
        if (!s->val32) {
            csr_teardown(s);
            return rt_err_prefix(err, "%s", self->name);
        }
        s->w.val = s->val32;
    } else {
        s->w.val = a->val;
    }
    s->team_started = rt_cpu_team_size(s->w.team);
    *state = s;
    return 0;
}

static int csr_run(void *state, double *seconds, rt_err *err)
{
    csr_state *s = state;
    rt_spmm_cpu_rowwise_run(&s->w);
    *seconds = -1.0; /* the runner's wall clock times host kernels */
    return 0;
}

static int csr_output(void *state, double *out, rt_err *err)
{
    const csr_state *s = state;
    rt_spmm_dense_to_rowmajor(&s->c, out);
    return 0;
}

static int csr_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const csr_state *s = state;
    /* The team depends on the machine when threads = 0, so it is not a deterministic fact. */
    rt_metrics_add(m, "threads", "count", (double)s->team_started, 0);
    rt_metrics_add(m, "chunks", "count", (double)rt_spmm_cpu_rowwise_chunks(&s->w), 1);
    rt_metrics_add(m, "col_block_used", "count", (double)s->w.col_block, 1);
    return 0;
}

static const rt_kernel_desc csr_desc = RT_CPU_KERNEL(
    "spmm.cpu.csr", "spmm", "CSR SpMM, OpenMP over row chunks, column-blocked accumulation",
    csr_params, rt_spmm_cpu_rowwise_check, csr_setup, csr_run, csr_output, csr_metrics,
    csr_teardown, rt_spmm_cpu_traffic);

const rt_kernel_desc *rt_spmm_cpu_csr_kernel(void)
{
    return &csr_desc;
}
