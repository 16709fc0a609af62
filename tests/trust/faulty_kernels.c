#include "faulty_kernels.h"

#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "rt_clock.h"
#include "spmm_family.h"
#include "spmm_traffic.h"

static const rt_param_schema faulty_params[] = {
    {"fault_elem", RT_V_INT, "-1..1000000000", "-1", 0,
     "output element changed (row-major index), -1 for none"},
    {"fault_rel", RT_V_REAL, "", "0.01", 0, "relative change of that element"},
    {"fault_after", RT_V_INT, "0..1000000", "0", 0,
     "runs before the fault starts (0: from the first, the verification run)"},
    {"time_divisor", RT_V_REAL, "", "1", 0, "the time reported is the wall time over this"},
};

typedef struct faulty_state {
    const rt_spmm_inputs *in;
    double *c; /* rows x k, row-major */
    int64_t fault_elem, fault_after, runs;
    double fault_rel, time_divisor;
} faulty_state;

static int faulty_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const char *owner = self->name;
    faulty_state *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, "%s: out of memory", owner);
    s->in = inputs;
    /* The config was checked against the schema, so the values are in their domains. */
    s->fault_elem = rt_params_int(p, "fault_elem", -1);
    s->fault_after = rt_params_int(p, "fault_after", 0);
    s->fault_rel = rt_params_real(p, "fault_rel", 0.01);
    s->time_divisor = rt_params_real(p, "time_divisor", 1.0);
    if (!(s->time_divisor > 0)) {
        free(s);
        return rt_err_set(err, "%s: time_divisor must be positive", owner);
    }
    const int64_t n = s->in->a->rows * s->in->k;
    s->c = calloc((size_t)(n > 0 ? n : 1), sizeof *s->c);
    if (!s->c) {
        free(s);
        return rt_err_set(err, "%s: out of memory for C", owner);
    }
    *state = s;
    return 0;
}

static double b_at(const rt_spmm_inputs *in, int64_t row, int64_t col)
{
    const int64_t at = in->layout == RT_ROW_MAJOR ? row * in->b.ld + col : col * in->b.ld + row;
    return in->prec == RT_FP32 ? (double)((const float *)in->b.data)[at]
                               : ((const double *)in->b.data)[at];
}

static int faulty_run(void *state, double *seconds, rt_err *err)
{
    (void)err;
    faulty_state *s = state;
    const double t0 = rt_clock_now();
    const rt_csr *a = s->in->a;
    const int64_t k = s->in->k;
    for (int64_t r = 0; r < a->rows; ++r) {
        double *c = s->c + r * k;
        for (int64_t j = 0; j < k; ++j)
            c[j] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            for (int64_t j = 0; j < k; ++j)
                c[j] += a->val[e] * b_at(s->in, a->colidx[e], j);
    }
    if (s->fault_elem >= 0 && s->fault_elem < a->rows * k && s->runs >= s->fault_after)
        s->c[s->fault_elem] *= 1.0 + s->fault_rel;
    s->runs++;
    *seconds = (rt_clock_now() - t0) / s->time_divisor;
    return 0;
}

static int faulty_output(void *state, double *out, rt_err *err)
{
    (void)err;
    const faulty_state *s = state;
    memcpy(out, s->c, (size_t)(s->in->a->rows * s->in->k) * sizeof *out);
    return 0;
}

static void faulty_teardown(void *state)
{
    faulty_state *s = state;
    if (!s)
        return;
    free(s->c);
    free(s);
}

static int faulty_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    (void)self, (void)p, (void)env, (void)err;
    const rt_spmm_inputs *in = inputs;
    *t = rt_spmm_traffic_compulsory(in, in->prec);
    return 0;
}

static const rt_kernel_desc faulty_kernel = RT_CPU_KERNEL(
    "spmm.cpu.faulty_test", "spmm",
    "test only: CSR SpMM that corrupts one element or under-reports its time", faulty_params, NULL,
    faulty_setup, faulty_run, faulty_output, NULL, faulty_teardown, faulty_traffic);

int faulty_kernels_register(rt_registry *reg, rt_err *err)
{
    return rt_registry_add_kernel(reg, &faulty_kernel, err);
}
