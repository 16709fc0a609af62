/* rt_generators: deterministic matrix generators, found by name, and the single entry point that
 * turns a matrix entry of a config (generator or Matrix Market file, plus an ordering) into CSR.
 *
 * Generator arguments are described with rt_param_schema (name, kind, domain, default, help) so
 * the config checker can reject unknown or out-of-domain arguments with a suggestion, and
 * `rooftune list` can print them. Every generator is a pure function of its arguments (seed
 * included): the same arguments give the same matrix on every machine and rank. */
#ifndef RT_GENERATORS_H
#define RT_GENERATORS_H

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

int rt_generator_count(void);
const rt_generator_desc *rt_generator_at(int i);
const rt_generator_desc *rt_generator_find(const char *name);

/* Builds one matrix: from `generator` with `args` (missing ones take their defaults; unknown ones
 * are an error), or, when generator is NULL or "", from the Matrix Market file `file`. Then applies
 * `ordering` ("natural", "hilbert" (needs an xct matrix's geometry or falls back to an error),
 * "rcm", "random"; NULL means natural). "random" draws its permutation from the generator's
 * `seed` argument (0 for files, whose args may hold only `seed`); "random:N" uses seed N. */
/* Checks `given` against g's schema (unknown names get a "did you mean", values their domain)
 * and writes into `out` every argument of g: the given ones (integral reals become ints) and
 * the defaults of the others, derived ones resolved. */
int rt_generator_fill_defaults(const rt_generator_desc *g, const rt_params *given, rt_params *out,
                               rt_err *err);

/* The Graph Challenge sparse DNN bias for a layer width: -0.3, -0.35, -0.4, -0.45 for 1024,
 * 4096, 16384, 65536 neurons; NAN for any other width. */
double rt_sparse_dnn_bias(int64_t neurons);

/* Weight of every nonzero of a sparse_dnn layer: the Graph Challenge's 0.0625 (= 1/16). */
#define RT_SPARSE_DNN_WEIGHT 0.0625

int rt_matrix_build(const char *generator, const rt_params *args, const char *file,
                    const char *ordering, rt_csr *out, rt_err *err);

#endif
