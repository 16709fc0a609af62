/* rt_strategy_table: the one table of search strategies. Every strategy, exhaustive and random
 * included, is an rt_strategy_ops in its own file (rt_strat_<name>.c) and one line of the strategy
 * list (rt_strategy_list.h); everything that names strategies reads this table: the driver
 * (rt_strategy.h), config validation of search.strategy and search.options, `rooftune list`,
 * `rooftune replay` (its --help and its list of strategies) and the strategy section of
 * docs/guides/tuning.md (written by rt_strategy_describe, checked by a test).
 *
 * The table is a build input, like the family list: a test build may compile this file with
 * RT_STRATEGY_LIST_FILE naming a list of its own (the project's list plus a line), which is how
 * tests/search proves that a new strategy is one file plus one line. */
#ifndef RT_STRATEGY_TABLE_H
#define RT_STRATEGY_TABLE_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_strategy_types.h"

/* The strategies, in list order. */
int rt_strategy_count(void);
const rt_strategy_info *rt_strategy_at(int i);
/* NULL when no strategy has that name. */
const rt_strategy_info *rt_strategy_find(const char *name);
/* Every name, in list order, as one array (for "expected one of" messages); *n gets the count. */
const char *const *rt_strategy_names(int *n);

/* The names of the strategies whose order does not depend on the results (ignores_results), as
 * "a, b or c", into buf: what search.parallel accepts. */
void rt_strategy_blind_names(char *buf, size_t len);

/* 0 when name is a strategy; else an error "what 'name' is unknown (did you mean ...); use ..."
 * listing every strategy. */
int rt_strategy_check_name(const char *name, const char *what, rt_err *err);

/* 0 when `key` is an option of `strategy` and value is in its range (and whole when it must be);
 * else an error naming the strategy, the option and what it accepts (or the options it has). */
int rt_strategy_check_option(const char *strategy, const char *key, double value, rt_err *err);

/* Adds key = value to opts after rt_strategy_check_option (a later value of the same key
 * replaces the earlier one). */
int rt_strategy_opts_set(rt_strategy_opts *opts, const char *strategy, const char *key,
                         double value, rt_err *err);

/* The effective budget for `requested` points (0 = the strategy's default) on a space of `size`
 * points: the one budget rule of live runs, replay and the runner's progress count. */
int64_t rt_strategy_budget_for(const rt_strategy_info *info, int64_t requested, int64_t size);

/* Writes every strategy with its summary and options: plain text for `list` and `replay
 * --help` (each line starting with indent), or the Markdown of docs/guides/tuning.md. */
void rt_strategy_describe(FILE *f, const char *indent, int markdown);

/* The ops behind a name (for the driver, rt_strategy.c); NULL when unknown. */
struct rt_strategy_ops;
const struct rt_strategy_ops *rt_strategy_table_ops(const char *name);

#endif
