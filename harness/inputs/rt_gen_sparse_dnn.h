/* rt_gen_sparse_dnn: the "sparse_dnn" matrix generator (see rt_gen_sparse_dnn.c for the model and
 * its arguments). */
#ifndef RT_GEN_SPARSE_DNN_H
#define RT_GEN_SPARSE_DNN_H

#include "rt_generators.h"

extern const rt_generator_desc rt_gen_sparse_dnn_desc;

#endif
