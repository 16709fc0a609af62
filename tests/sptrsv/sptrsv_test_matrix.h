/* The sptrsv tests' matrices: a grid Laplacian from the generator (stencil 5, 7 or 27). */
#ifndef SPTRSV_TEST_MATRIX_H
#define SPTRSV_TEST_MATRIX_H

#include "rt_generators.h"
#include "rt_test.h"

static inline void sptrsv_test_laplacian(rt_csr *a, int stencil, int nx)
{
    rt_params args;
    rt_params_init(&args);
    rt_err err;
    RT_CHECK(rt_params_set(&args, "stencil", rt_value_int(stencil), &err) == 0);
    RT_CHECK(rt_params_set(&args, "nx", rt_value_int(nx), &err) == 0);
    RT_CHECK_MSG(rt_matrix_build("laplacian", &args, NULL, NULL, a, &err) == 0, "%s", err.msg);
}

#endif
