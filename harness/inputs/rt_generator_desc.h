/* rt_generator_desc: what a matrix generator is (name, argument schema, generate and derive hooks).
 * Apart from the generator list (rt_generators.h) so that each generator can describe itself
 * without depending on the list that names it. */
#ifndef RT_GENERATOR_DESC_H
#define RT_GENERATOR_DESC_H

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_params.h"
#include "rt_registry.h"

typedef struct rt_generator_desc {
    const char *name; /* "uniform", "banded", "rmat", "xct", "sparse_dnn" */
    const char *summary;
    const rt_param_schema *args;
    int n_args;
    /* args holds every argument (defaults filled in by rt_matrix_build). */
    int (*generate)(const rt_params *args, rt_csr *out, rt_err *err);
    /* Optional (added by inputs): replaces defaults that depend on other arguments (documented
     * as 0 in the schema, e.g. uniform's cols = rows, xct's detectors = ceil(image*sqrt(2))) by
     * their values, so the arguments recorded with a result say what was really generated. */
    int (*derive)(rt_params *args, rt_err *err);
} rt_generator_desc;

#endif
