/* rt_tables: the families' static tables written one way: the length of an array, a CUDA catalog
 * entry (kernels/<f>/<f>_cuda_catalog.c) whose parameter count is taken from its schema array, so
 * that the two cannot disagree, and a parameter schema entry by its kind. */
#ifndef RT_TABLES_H
#define RT_TABLES_H

#include "rt_registry.h"

/* Elements of an array whose size is known here (a static table, or an extern one declared with
 * its size); never a pointer. */
#define RT_N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The rt_cuda_catalog_entry {name, summary, params, n_params, family}, n_params counted. */
#define RT_CUDA_ENTRY(name, summary, params, family)                                               \
    {                                                                                              \
        (name), (summary), (params), RT_N_OF(params), (family)                                     \
    }

/* An rt_param_schema entry {name, kind, domain, default, compile_time, help}, as every schema table
 * of the kernels writes it: the macro names the kind, and with _NVRTC marks a parameter that
 * selects a variant compiled at run time (compile_time 1); the others are run-time parameters. */
#define RT_PARAM_ENTRY(name, kind, domain, def, compile_time, help)                                \
    {                                                                                              \
        (name), (kind), (domain), (def), (compile_time), (help)                                    \
    }
#define RT_PARAM_INT(name, domain, def, help)  RT_PARAM_ENTRY(name, RT_V_INT, domain, def, 0, help)
#define RT_PARAM_STR(name, domain, def, help)  RT_PARAM_ENTRY(name, RT_V_STR, domain, def, 0, help)
#define RT_PARAM_REAL(name, domain, def, help) RT_PARAM_ENTRY(name, RT_V_REAL, domain, def, 0, help)
#define RT_PARAM_INT_NVRTC(name, domain, def, help)                                                \
    RT_PARAM_ENTRY(name, RT_V_INT, domain, def, 1, help)
#define RT_PARAM_STR_NVRTC(name, domain, def, help)                                                \
    RT_PARAM_ENTRY(name, RT_V_STR, domain, def, 1, help)

#endif
