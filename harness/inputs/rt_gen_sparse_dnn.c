/* sparse_dnn: one layer of the MIT/IEEE/Amazon Graph Challenge sparse deep neural network.
 *
 * A layer is a square neurons x neurons weight matrix with exactly 32 nonzeros per row, every
 * weight equal to the challenge's 0.0625 (= 1/16, RT_SPARSE_DNN_WEIGHT). The challenge's own
 * layers come from RadiX-Net; this generator keeps their shape and statistics (fixed fan-in of
 * 32, uniform weights) and draws the 32 distinct columns of each row at random from
 * (seed, layer), so that every layer of a network differs and any layer can be regenerated alone.
 * The per-width bias the challenge applies after each layer is rt_sparse_dnn_bias(). */
#include "rt_gen_sparse_dnn.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "rt_memcheck.h"
#include "rt_rng.h"
#include "rt_sort.h"

#define SPARSE_DNN_FAN_IN 32

static const rt_param_schema sparse_dnn_args[] = {
    {"neurons", RT_V_INT, "1024|4096|16384|65536", "1024", 0,
     "layer width (the Graph Challenge sizes)"},
    {"layer", RT_V_INT, "0..1000000", "0", 0, "layer index; part of the seed, so layers differ"},
    {"seed", RT_V_INT, "", "1", 0, "random seed of the whole network"},
};

double rt_sparse_dnn_bias(int64_t neurons)
{
    switch (neurons) {
    case 1024: return -0.3;
    case 4096: return -0.35;
    case 16384: return -0.4;
    case 65536: return -0.45;
    default: return NAN;
    }
}

static int sparse_dnn_generate(const rt_params *args, rt_csr *out, rt_err *err)
{
    const int64_t neurons = rt_params_int(args, "neurons", 0);
    const int64_t layer = rt_params_int(args, "layer", 0);
    const uint64_t seed = (uint64_t)rt_params_int(args, "seed", 0);
    if (isnan(rt_sparse_dnn_bias(neurons)))
        return rt_err_set(err,
                          "neurons = %" PRId64 " is not a Graph Challenge width "
                          "(1024, 4096, 16384 or 65536)",
                          neurons);
    if (layer < 0)
        return rt_err_set(err, "layer = %" PRId64 " must not be negative", layer);
    const int64_t k = SPARSE_DNN_FAN_IN;
    if (rt_memcheck_fits((double)neurons * (double)k * 12.0, "the sparse_dnn layer", err) != 0)
        return -1;
    if (rt_csr_alloc(out, neurons, neurons, neurons * k, err) != 0)
        return -1;
    int64_t picked[SPARSE_DNN_FAN_IN];
    int64_t table[2 * SPARSE_DNN_FAN_IN];
    rt_rng rng;
    rt_rng_seed(&rng, seed, (uint64_t)layer);
    for (int64_t r = 0; r < neurons; ++r) {
        rt_rng_distinct(&rng, neurons, k, picked, table, 2 * SPARSE_DNN_FAN_IN);
        rt_sort_int64(picked, k);
        for (int64_t j = 0; j < k; ++j) {
            out->colidx[r * k + j] = (int32_t)picked[j];
            out->val[r * k + j] = RT_SPARSE_DNN_WEIGHT;
        }
        out->rowptr[r + 1] = (r + 1) * k;
    }
    return 0;
}

const rt_generator_desc rt_gen_sparse_dnn_desc = {
    .name = "sparse_dnn",
    .summary = "Graph Challenge sparse DNN layer: 32 nonzeros of 0.0625 per row",
    .args = sparse_dnn_args,
    .n_args = (int)(sizeof sparse_dnn_args / sizeof sparse_dnn_args[0]),
    .generate = sparse_dnn_generate,
    .derive = NULL,
};
