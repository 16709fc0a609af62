/* rt_gen_xct: the "xct" matrix generator (see rt_gen_xct.c for the model and its arguments). */
#ifndef RT_GEN_XCT_H
#define RT_GEN_XCT_H

#include "rt_generator_desc.h"

extern const rt_generator_desc rt_gen_xct_desc;

#endif
