#include "spmm_cpu_csr.h"

#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "spmm_cpu_common.h"
#include "spmm_family.h"

static const rt_param_schema csr_params[] = {
    RT_SPMM_CPU_ROW_BLOCK,
    RT_SPMM_CPU_COL_BLOCK,
    RT_SPMM_CPU_THREADS,
};

typedef struct csr_state {
    rt_spmm_cpu_point pt; /* first: the shared hooks take the state as this */
} csr_state;

static void csr_teardown(void *state)
{
    csr_state *s = state;
    if (!s)
        return;
    rt_spmm_cpu_point_end(&s->pt);
    free(s);
}

static int csr_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    const rt_spmm_inputs *in = inputs;
    const int rc = rt_spmm_cpu_point_begin(self, inputs, p, env, sizeof(csr_state), state, err);
    if (rc != 0)
        return rc;
    csr_state *s = *state;
    const rt_csr *a = in->a;
    s->pt.w.rowptr = a->rowptr;
    s->pt.w.colidx = a->colidx;
    if (rt_spmm_cpu_point_values(&s->pt, a->val, a->nnz, err) != 0) {
        csr_teardown(s);
        *state = NULL;
        return rt_err_prefix(err, "%s", self->name);
    }
    return 0;
}

static int csr_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const csr_state *s = state;
    rt_spmm_cpu_point_metrics(&s->pt, m);
    return 0;
}

static const rt_kernel_desc csr_desc = RT_CPU_KERNEL(
    "spmm.cpu.csr", "spmm", "CSR SpMM, OpenMP over row chunks, column-blocked accumulation",
    csr_params, rt_spmm_cpu_rowwise_check, csr_setup, rt_spmm_cpu_point_run,
    rt_spmm_cpu_point_output, csr_metrics, csr_teardown, rt_spmm_cpu_traffic);

const rt_kernel_desc *rt_spmm_cpu_csr_kernel(void)
{
    return &csr_desc;
}
