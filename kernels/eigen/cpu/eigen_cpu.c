#include "eigen_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cpu_kernel.h"
#include "eigen_dev_host.h"
#include "eigen_family.h"
#include "eigen_hooks.h"
#include "rt_schema.h"
#include "rt_tables.h"

static const rt_param_schema eigen_cpu_params[] = {
    EIGEN_PARAM_TILE,
    RT_PARAM_STR("schedule", "kbk|dag", "dag",
                 "kbk: call by call, each call staging its operands; dag: depth-first order of the "
                 "task graph"),
    EIGEN_PARAM_GPU_MEM_BUDGET,
};

typedef struct cpu_state {
    eg_solver *s;
    eg_result last;
    double last_s;
    eg_config cfg;
    const eg_inputs *in;
} cpu_state;

static void cpu_teardown(void *state)
{
    cpu_state *st = state;
    if (!st)
        return;
    eg_solver_destroy(st->s);
    free(st);
}

static int cpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)env;
    const eg_inputs *in = inputs;
    cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return rt_err_set(err, "%s: out of memory", self->name);
    if (eg_hooks_config(self, in, p, &st->cfg, err) != 0) {
        free(st);
        return -1;
    }
    st->in = in;
    const int rc = eg_solver_create(in->a, &st->cfg, eg_dev_host(), &st->s, err);
    if (rc != 0) {
        free(st);
        return rc;
    }
    *state = st;
    return 0;
}

static int cpu_run(void *state, double *seconds, rt_err *err)
{
    cpu_state *st = state;
    *seconds = -1.0;
    return eg_hooks_run(st->s, &st->last, &st->last_s, err);
}

static int cpu_output(void *state, double *out, rt_err *err)
{
    (void)err;
    const cpu_state *st = state;
    eg_gate_output(st->in, &st->last, out);
    return 0;
}

static int cpu_metrics(void *state, rt_metrics *m, rt_err *err)
{
    (void)err;
    const cpu_state *st = state;
    eg_hooks_metrics(st->s, &st->last, &st->cfg, st->last_s, m);
    return 0;
}

#define EIGEN_CPU_KERNEL(ident, kname, text)                                                       \
    static const rt_kernel_desc ident =                                                            \
        RT_CPU_KERNEL(kname, "eigen", text, eigen_cpu_params, eg_hooks_check, cpu_setup, cpu_run,  \
                      cpu_output, cpu_metrics, cpu_teardown, eg_hooks_traffic)

EIGEN_CPU_KERNEL(k_lobpcg, "eigen.cpu.lobpcg",
                 "out-of-core block LOBPCG over tiles on a host-memory device of a given budget");
EIGEN_CPU_KERNEL(k_lanczos, "eigen.cpu.lanczos",
                 "out-of-core Lanczos (full reorthogonalisation) over tiles, host-memory device");

static const rt_kernel_desc *const kernels[] = {&k_lobpcg, &k_lanczos, NULL};

const rt_kernel_desc *const *rt_eigen_cpu_kernels(void)
{
    return kernels;
}
