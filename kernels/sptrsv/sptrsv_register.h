/* sptrsv_register: the sptrsv family and its CPU kernels. */
#ifndef SPTRSV_REGISTER_H
#define SPTRSV_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

int rt_sptrsv_register(rt_registry *reg, rt_err *err);

#endif
