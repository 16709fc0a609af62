/* rt_gen_rmat: the "rmat" matrix generator (see rt_gen_rmat.c for the model and its arguments). */
#ifndef RT_GEN_RMAT_H
#define RT_GEN_RMAT_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_rmat_desc;

#endif
