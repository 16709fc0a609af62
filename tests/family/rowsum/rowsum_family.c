#include "rowsum_family.h"

#include <stdlib.h>
#include <string.h>

#include "rt_schema.h"

static const rt_param_schema no_params[] = {
    {"seed", RT_V_INT, "", "1", 0, "unused: the problem has no parameter of its own"},
};

static int rowsum_make_inputs(const rt_csr *a, const rt_params *problem, const rt_job *job,
                              void **inputs, rt_err *err)
{
    rt_rowsum_inputs *in = calloc(1, sizeof *in);
    if (!in)
        return rt_err_set(err, "rowsum: out of memory");
    in->a = a;
    *inputs = in;
    return 0;
}

static void rowsum_free_inputs(void *inputs)
{
    free(inputs);
}

static int64_t rowsum_output_elems(const void *inputs)
{
    return ((const rt_rowsum_inputs *)inputs)->a->rows;
}

static double rowsum_tolerance(const void *inputs)
{
    return 1e-12;
}

static int rowsum_reference(const void *inputs, double *out, rt_err *err)
{
    const rt_csr *a = ((const rt_rowsum_inputs *)inputs)->a;
    for (int64_t r = 0; r < a->rows; ++r) {
        double s = 0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e)
            s += a->val[e];
        out[r] = s;
    }
    return 0;
}

static double rowsum_flops(const void *inputs)
{
    return (double)((const rt_rowsum_inputs *)inputs)->a->nnz;
}

static const rt_family_desc rowsum_family = {
    .name = "rowsum",
    .summary = "test family: y = A 1 (row sums), one CPU and one CUDA kernel",
    .problem_params = no_params,
    .n_problem_params = 1,
    .make_inputs = rowsum_make_inputs,
    .free_inputs = rowsum_free_inputs,
    .output_elems = rowsum_output_elems,
    .tolerance = rowsum_tolerance,
    .reference = rowsum_reference,
    .flops = rowsum_flops,
};

/* rowsum.cpu.serial: the state is the output vector. */
typedef struct cpu_state {
    const rt_csr *a;
    double *y;
} cpu_state;

static int cpu_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, void **state, rt_err *err)
{
    cpu_state *s = calloc(1, sizeof *s);
    const rt_csr *a = ((const rt_rowsum_inputs *)inputs)->a;
    if (s)
        s->y = calloc((size_t)(a->rows > 0 ? a->rows : 1), sizeof *s->y);
    if (!s || !s->y) {
        free(s);
        return rt_err_set(err, "rowsum.cpu.serial: out of memory");
    }
    s->a = a;
    *state = s;
    return 0;
}

static int cpu_run(void *state, double *seconds, rt_err *err)
{
    cpu_state *s = state;
    for (int64_t r = 0; r < s->a->rows; ++r) {
        double sum = 0;
        for (int64_t e = s->a->rowptr[r]; e < s->a->rowptr[r + 1]; ++e)
            sum += s->a->val[e];
        s->y[r] = sum;
    }
    *seconds = -1.0; /* the runner's clock */
    return 0;
}

static int cpu_output(void *state, double *out, rt_err *err)
{
    const cpu_state *s = state;
    memcpy(out, s->y, (size_t)s->a->rows * sizeof *out);
    return 0;
}

static void cpu_teardown(void *state)
{
    cpu_state *s = state;
    if (s)
        free(s->y);
    free(s);
}

static const rt_param_schema cpu_params[] = {
    {"unroll", RT_V_INT, "1|2", "1", 0, "unused: a parameter for the sweep to enumerate"},
};

static const rt_kernel_desc cpu_kernel = {
    .name = "rowsum.cpu.serial",
    .family = "rowsum",
    .backend = "cpu",
    .summary = "row sums, one thread",
    .params = cpu_params,
    .n_params = 1,
    .setup = cpu_setup,
    .run = cpu_run,
    .output = cpu_output,
    .teardown = cpu_teardown,
};

int rt_rowsum_register(rt_registry *reg, rt_err *err)
{
    if (rt_registry_add_family(reg, &rowsum_family, err) != 0 ||
        rt_registry_add_kernel(reg, &cpu_kernel, err) != 0)
        return -1;
    return 0;
}

static const rt_param_schema cuda_params[] = {
    {"block_size", RT_V_INT, "32..1024", "256", 0, "threads per block, one row per thread"},
};

static const rt_cuda_catalog_entry cuda_catalog[] = {
    {"rowsum.cuda.simple", "row sums on the GPU, one thread per row", cuda_params, 1, "rowsum"},
};

const rt_cuda_catalog_entry *rt_rowsum_cuda_catalog(int *n)
{
    *n = 1;
    return cuda_catalog;
}
