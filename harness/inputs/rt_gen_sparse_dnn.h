/* rt_gen_sparse_dnn: the "sparse_dnn" matrix generator (see rt_gen_sparse_dnn.c for the model and
 * its arguments). */
#ifndef RT_GEN_SPARSE_DNN_H
#define RT_GEN_SPARSE_DNN_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_sparse_dnn_desc;

/* The Graph Challenge sparse DNN bias for a layer width: -0.3, -0.35, -0.4, -0.45 for 1024,
 * 4096, 16384, 65536 neurons; NAN for any other width. */
double rt_sparse_dnn_bias(int64_t neurons);

/* Weight of every nonzero of a sparse_dnn layer: the Graph Challenge's 0.0625 (= 1/16). */
#define RT_SPARSE_DNN_WEIGHT 0.0625

#endif
