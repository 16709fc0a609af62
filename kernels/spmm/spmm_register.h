/* spmm_register: the spmm family's entry in the family list (kernels/rt_family_list.h). */
#ifndef SPMM_REGISTER_H
#define SPMM_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

/* Registers the family (or families) and their CPU kernels. */
int rt_spmm_register(rt_registry *reg, rt_err *err);

#endif
