/* rt_strategy_types: what the strategy table says about a strategy (its info and options) and the
 * option values a user gives; apart from rt_strategy_table.h so that the strategies' shared helpers
 * (rt_strategy_impl.h) do not depend on the table that lists them. */
#ifndef RT_STRATEGY_TYPES_H
#define RT_STRATEGY_TYPES_H

#include <stdint.h>

#define RT_STRATEGY_MAX_OPTIONS 8
/* What a budget of 0 means for every strategy that does not walk the whole space. */
#define RT_STRATEGY_DEFAULT_BUDGET 50
#define RT_STRATEGY_OPTION_NAME    32

/* One tunable setting of a strategy: a number in [lo, hi] (an integer when `integer` is set). */
typedef struct rt_strategy_option {
    const char *name;
    double def, lo, hi;
    int integer;
    const char *help;
} rt_strategy_option;

/* What the table says about a strategy (the first member of its rt_strategy_ops). */
typedef struct rt_strategy_info {
    const char *name;
    const char *summary; /* one sentence: `list`, `replay --help`, the docs */
    const rt_strategy_option *options;
    int n_options;
    /* Points a budget of 0 means: 0 = the whole space, else at most this many. */
    int64_t default_budget;
    /* 1: walks the grid in index order and, where the caller asks (a live run), yields infeasible
     * indices too, without using budget, so their reasons are recorded. */
    int yields_infeasible;
    /* 1: the sequence does not depend on the seed (exhaustive). */
    int ignores_seed;
    /* 1: the sequence does not depend on the reported objectives (exhaustive, random), so a run
     * may keep several points in flight (search.parallel) and visit the points a serial run
     * does. */
    int ignores_results;
} rt_strategy_info;

/* Option values given by a user (config search.options, replay --option): name = value. */
typedef struct rt_strategy_opts {
    int n;
    char name[RT_STRATEGY_MAX_OPTIONS][RT_STRATEGY_OPTION_NAME];
    double value[RT_STRATEGY_MAX_OPTIONS];
} rt_strategy_opts;

#endif
