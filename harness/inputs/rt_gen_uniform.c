/* uniform: every row holds the same number of nonzeros at distinct columns drawn uniformly at
 * random (an Erdos-Renyi-like pattern with no row-length imbalance), values uniform in [-1, 1). */
#include "rt_gen_uniform.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "rt_memcheck.h"
#include "rt_rng.h"
#include "rt_sort.h"

static const rt_param_schema uniform_args[] = {
    {"rows", RT_V_INT, "1..2000000000", "1000", 0, "number of rows"},
    {"cols", RT_V_INT, "0..2147483647", "0", 0, "number of columns (0: same as rows)"},
    {"nnz_per_row", RT_V_INT, "0..2147483647", "16", 0,
     "nonzeros in every row, at distinct columns (replaced by density when density > 0)"},
    {"density", RT_V_REAL, "0..1", "0", 0,
     "fraction of each row that is nonzero; when > 0 it sets nnz_per_row = round(density * cols)"},
    {"seed", RT_V_INT, "", "1", 0, "random seed (same seed, same matrix)"},
};

static int uniform_derive(rt_params *args, rt_err *err)
{
    const int64_t rows = rt_params_int(args, "rows", 0);
    int64_t cols = rt_params_int(args, "cols", 0);
    if (cols == 0) {
        cols = rows;
        if (rt_params_set(args, "cols", rt_value_int(cols), err) != 0)
            return -1;
    }
    const double density = rt_params_real(args, "density", 0.0);
    if (density > 0.0) {
        int64_t k = (int64_t)llround(density * (double)cols);
        k = k < 1 ? 1 : k;
        if (rt_params_set(args, "nnz_per_row", rt_value_int(k), err) != 0)
            return -1;
    }
    return 0;
}

static int uniform_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t rows = rt_params_int(args, "rows", 0);
    const int64_t cols = rt_params_int(args, "cols", 0);
    const int64_t k = rt_params_int(args, "nnz_per_row", 0);
    const uint64_t seed = (uint64_t)rt_params_int(args, "seed", 0);
    if (rows < 1 || cols < 1)
        return rt_err_set(err, "rows = %" PRId64 " and cols = %" PRId64 " must be positive", rows,
                          cols);
    if (k > cols)
        return rt_err_set(err,
                          "nnz_per_row = %" PRId64 " exceeds cols = %" PRId64
                          " (the columns of a row are distinct)",
                          k, cols);
    if (rt_memcheck_fits((double)rows * (double)k * 12.0 + (double)rows * 8.0, "the uniform matrix",
                         err) != 0)
        return -1;
    if (rt_csr_alloc(out, rows, cols, rows * k, err) != 0)
        return -1;
    const int64_t table_size = rt_rng_distinct_table_size(k);
    int64_t *picked = malloc((size_t)(k > 0 ? k : 1) * sizeof *picked);
    int64_t *table = picked ? malloc((size_t)table_size * sizeof *table) : NULL;
    if (!table) {
        free(picked);
        rt_csr_free(out);
        return rt_err_set(err, "out of memory: cannot allocate %zu bytes of sampling scratch",
                          (size_t)(k + table_size) * sizeof(int64_t));
    }
    rt_rng rng;
    rt_rng_seed(&rng, seed, 0);
    for (int64_t r = 0; r < rows; ++r) {
        rt_rng_distinct(&rng, cols, k, picked, table, table_size);
        rt_sort_int64(picked, k);
        const int64_t base = r * k;
        for (int64_t j = 0; j < k; ++j) {
            out->colidx[base + j] = (int32_t)picked[j];
            out->val[base + j] = rt_rng_symmetric(&rng);
        }
        out->rowptr[r + 1] = base + k;
    }
    free(picked);
    free(table);
    return 0;
}

const rt_generator_desc rt_gen_uniform_desc = {
    .name = "uniform",
    .summary = "fixed nonzeros per row at distinct uniformly random columns",
    .args = uniform_args,
    .n_args = (int)(sizeof uniform_args / sizeof uniform_args[0]),
    .generate = uniform_generate,
    .derive = uniform_derive,
};
