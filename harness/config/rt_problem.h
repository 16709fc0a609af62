/* rt_problem: the problem points of a config (the Cartesian product of its `problem:` domains,
 * first domain slowest) and a family's full problem at one of them. The runner and every family's
 * model-only mode enumerate problems through here, so both see the same points in the same order.
 */
#ifndef RT_PROBLEM_H
#define RT_PROBLEM_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

/* Number of problem points of cfg (1 when it has no problem domains). */
int64_t rt_problem_count(const rt_config *cfg);

/* The index-th problem point: the values the config gives, by name. */
int rt_problem_point(const rt_config *cfg, int64_t index, rt_params *out, rt_err *err);

/* The family's problem parameters: the ones `given` sets, the rest at their defaults; a value
 * outside its domain is an error naming it. */
int rt_problem_for_family(const rt_family_desc *fam, const rt_params *given, rt_params *out,
                          rt_err *err);

#endif
