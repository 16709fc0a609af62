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
#include "rt_generator_desc.h"
#include "rt_registry.h"

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

int rt_matrix_build(const char *generator, const rt_params *args, const char *file,
                    const char *ordering, rt_csr *out, rt_err *err);

#endif
