/* rt_tables: what the families' static tables each wrote out their own way: the length of an
 * array, and a CUDA catalog entry (kernels/<f>/<f>_cuda_catalog.c) whose parameter count is taken
 * from its schema array, so that the two cannot disagree. */
#ifndef RT_TABLES_H
#define RT_TABLES_H

#include "rt_cuda_catalog.h"

/* Elements of an array whose size is known here (a static table, or an extern one declared with
 * its size); never a pointer. */
#define RT_N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The rt_cuda_catalog_entry {name, summary, params, n_params, family}, n_params counted. */
#define RT_CUDA_ENTRY(name, summary, params, family)                                               \
    {                                                                                              \
        (name), (summary), (params), RT_N_OF(params), (family)                                     \
    }

#endif
