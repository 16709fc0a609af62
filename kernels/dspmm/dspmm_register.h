/* dspmm_register: the dspmm family's entry in the family list (kernels/rt_family_list.h). */
#ifndef DSPMM_REGISTER_H
#define DSPMM_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

/* Registers the family (or families) and their CPU kernels. */
int rt_dspmm_register(rt_registry *reg, rt_err *err);

#endif
