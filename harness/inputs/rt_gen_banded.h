/* rt_gen_banded: the "banded" matrix generator (see rt_gen_banded.c for the model and its
 * arguments). */
#ifndef RT_GEN_BANDED_H
#define RT_GEN_BANDED_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_banded_desc;

#endif
