/* spdnn_register: the spdnn family's entry in the family list (kernels/rt_family_list.h). */
#ifndef SPDNN_REGISTER_H
#define SPDNN_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

/* Registers the family (or families) and their CPU kernels. */
int rt_spdnn_register(rt_registry *reg, rt_err *err);

#endif
