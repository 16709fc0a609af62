/* eigen_register: registers the eigen family and its CPU kernels (kernels/rt_family_list.h). */
#ifndef EIGEN_REGISTER_H
#define EIGEN_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

int rt_eigen_register(rt_registry *reg, rt_err *err);

#endif
