/* banded: `bandwidth` nonzeros per row centred on the diagonal (one more to the right when the
 * bandwidth is even), clipped at the first and last rows; square, values uniform in [-1, 1).
 * The classic stencil-like pattern with perfect locality: a baseline for every ordering. */
#include "rt_gen_banded.h"

#include <inttypes.h>

#include "rt_memcheck.h"
#include "rt_rng.h"

static const rt_param_schema banded_args[] = {
    {"rows", RT_V_INT, "1..2000000000", "1000", 0, "rows (and columns) of the square matrix"},
    {"bandwidth", RT_V_INT, "1..2147483647", "9", 0,
     "nonzeros per row, centred on the diagonal, clipped at the edges"},
    {"seed", RT_V_INT, "", "1", 0, "random seed for the values"},
};

static int banded_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t rows = rt_params_int(args, "rows", 0);
    const int64_t bw = rt_params_int(args, "bandwidth", 0);
    const uint64_t seed = (uint64_t)rt_params_int(args, "seed", 0);
    if (rows < 1 || rows > INT32_MAX || bw < 1)
        return rt_err_set(
            err, "rows = %" PRId64 " must be in 1..%d and bandwidth = %" PRId64 " positive", rows,
            INT32_MAX, bw);
    const int64_t left = (bw - 1) / 2;
    int64_t nnz = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t lo = r - left < 0 ? 0 : r - left;
        const int64_t hi = r - left + bw - 1 > rows - 1 ? rows - 1 : r - left + bw - 1;
        nnz += hi - lo + 1;
    }
    if (rt_memcheck_fits((double)nnz * 12.0 + (double)rows * 8.0, "the banded matrix", err) != 0)
        return -1;
    if (rt_csr_alloc(out, rows, rows, nnz, err) != 0)
        return -1;
    rt_rng rng;
    rt_rng_seed(&rng, seed, 0);
    int64_t o = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const int64_t lo = r - left < 0 ? 0 : r - left;
        const int64_t hi = r - left + bw - 1 > rows - 1 ? rows - 1 : r - left + bw - 1;
        for (int64_t c = lo; c <= hi; ++c) {
            out->colidx[o] = (int32_t)c;
            out->val[o] = rt_rng_symmetric(&rng);
            ++o;
        }
        out->rowptr[r + 1] = o;
    }
    return 0;
}

const rt_generator_desc rt_gen_banded_desc = {
    .name = "banded",
    .summary = "square band matrix, bandwidth nonzeros per row centred on the diagonal",
    .args = banded_args,
    .n_args = (int)(sizeof banded_args / sizeof banded_args[0]),
    .generate = banded_generate,
    .derive = NULL,
};
