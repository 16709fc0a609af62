/* gemm_register: the gemm family and its CPU kernels (kernels/rt_family_list.h). */
#ifndef GEMM_REGISTER_H
#define GEMM_REGISTER_H

#include "rt_registry.h"

int rt_gemm_register(rt_registry *reg, rt_err *err);

#endif
