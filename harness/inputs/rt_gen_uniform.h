/* rt_gen_uniform: the "uniform" matrix generator (see rt_gen_uniform.c for the model and its
 * arguments). */
#ifndef RT_GEN_UNIFORM_H
#define RT_GEN_UNIFORM_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_uniform_desc;

#endif
