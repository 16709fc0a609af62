/* spgemm2d_register: the spgemm2d family's entry in the family list (kernels/rt_family_list.h). */
#ifndef SPGEMM2D_REGISTER_H
#define SPGEMM2D_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

/* Registers the family and its CPU kernels. */
int rt_spgemm2d_register(rt_registry *reg, rt_err *err);

#endif
