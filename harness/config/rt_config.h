/* rt_config: an experiment as read from YAML (libyaml), with includes merged, --set overrides
 * applied and every value checked. Every element remembers where it came from (file:line:col),
 * so later stages (space, runner) can report errors against the user's text.
 *
 * Every key is in one table (rt_config_keys.h); full key reference: docs/guides/config.md. Shape:
 *
 *   experiment: {name: quickstart, description: "..."}
 *   include: [fragments/measure.yaml]         # merged before this file's own keys
 *   machine: auto                             # or a machine file (roofline/machines/NAME.yaml)
 *   matrices:
 *     - {name: band, generator: banded, rows: 20000, bandwidth: 16, seed: 1}
 *     - {name: web, file: data/web.mtx, ordering: rcm}
 *   problem: {K: [32, 128], precision: [fp32], layout: [row]}
 *   kernels:
 *     - name: spmm.cpu.csr
 *       params: {row_block: {pow2: [64, 1024]}, col_block: [8, 16]}
 *       constraints: ["row_block * col_block <= 16384"]
 *   measure: {mode: hot, warmup: 2, min_reps: 5, max_reps: 50, max_time_s: 1, target_rel_ci: 0.02,
 *             stop: confidence}
 *   search: {strategy: exhaustive}
 *   counters: [papi:perf::TASK-CLOCK]
 *   plots: [{type: line, x: row_block, y: gflops, series: col_block}]
 *   expect: {min_efficiency: 0.1}
 *   user_kernels: [examples/user/vecadd/vecadd.yaml]   # kernel specs (kernels/user)
 */
#ifndef RT_CONFIG_H
#define RT_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "rt_config_types.h"
#include "rt_error.h"
#include "rt_params.h"

/* Reads and checks a config. overrides are "dotted.key=value" strings from --set (the value is
 * YAML, so "problem.K=[32,64]" works); n_overrides may be 0. On error err names file:line:col and
 * the key, and suggests the nearest valid key for an unknown one. */
int rt_config_load(const char *path, const char *const *overrides, int n_overrides, rt_config *cfg,
                   rt_err *err);
void rt_config_free(rt_config *cfg);
/* Checks the config against the registry: every kernel exists (with a "did you mean"), every
 * parameter is in its schema and every listed value in its domain, every problem parameter is
 * known to the kernels' families, constraints parse. Errors name file:line:col. */
struct rt_registry;
int rt_config_check(const rt_config *cfg, const struct rt_registry *reg, rt_err *err);
/* Formats a location as "file:line:col". */
void rt_src_loc_format(const rt_src_loc *loc, char *buf, size_t len);

struct rt_device_info;
/* Added by config: the numeric fields of rt_device_info that constraints may name as
 * device.<field> (e.g. "max_shared_per_block_optin"), as a const table of n names. */
const char *const *rt_config_device_fields(int *n);
/* Reads device.<field> (field without the "device." prefix) as a double; -1 when unknown. */
int rt_config_device_value(const struct rt_device_info *dev, const char *field, double *out);

#endif
