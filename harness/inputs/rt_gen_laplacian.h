/* rt_gen_laplacian: the "laplacian" matrix generator (see rt_gen_laplacian.c for the model and
 * its arguments). */
#ifndef RT_GEN_LAPLACIAN_H
#define RT_GEN_LAPLACIAN_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_laplacian_desc;

#endif
