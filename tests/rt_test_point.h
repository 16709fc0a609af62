/* rt_test_point: the point record the store, export and plot tests write, so that each test
 * states only the fields it is about. */
#ifndef RT_TEST_POINT_H
#define RT_TEST_POINT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rt_store.h"

/* A plausible verified point of spmm.cpu.csr on the matrix "band"; the caller points samples at
 * its own array and changes what its test is about. */
static inline void rt_test_point(rt_point_record *pt, const char *experiment, const char *key,
                                 const double *samples, int n_samples)
{
    memset(pt, 0, sizeof *pt);
    snprintf(pt->experiment, sizeof pt->experiment, "%s", experiment);
    snprintf(pt->kernel, sizeof pt->kernel, "spmm.cpu.csr");
    snprintf(pt->backend, sizeof pt->backend, "cpu");
    snprintf(pt->family, sizeof pt->family, "spmm");
    snprintf(pt->matrix, sizeof pt->matrix, "band");
    snprintf(pt->params_json, sizeof pt->params_json, "{\"col_block\":8,\"row_block\":64}");
    snprintf(pt->problem_json, sizeof pt->problem_json, "{\"K\":32,\"precision\":\"fp32\"}");
    snprintf(pt->device, sizeof pt->device, "cpu");
    snprintf(pt->point_key, sizeof pt->point_key, "%s", key);
    pt->ranks = 1;
    pt->status = RT_POINT_OK;
    pt->verified = 1;
    pt->rel_error = 1.5e-7;
    pt->tolerance = 1e-5;
    pt->n_samples = n_samples;
    pt->samples = samples;
    pt->time_median_s = n_samples ? samples[n_samples / 2] : NAN;
    pt->time_min_s = 0.001;
    pt->time_max_s = 0.003;
    pt->time_mean_s = 0.002;
    pt->time_stddev_s = 0.0005;
    pt->ci_rel = 0.01;
    pt->flops = 2e9;
    pt->gflops = 1000.0 / 3.0;
    pt->gnnz_s = 0.1 + 0.2;
    pt->bound_s = NAN;
    pt->efficiency = NAN;
    pt->setup_s = 0.25;
}

#endif
