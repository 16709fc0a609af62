/* rt_roofline_glue: what the runner asks of the roofline stage for each point: resolve the
 * machine model once per run, compute the bound and efficiency of a measured point from the
 * kernel's traffic model, flag results above the roofline, and collect counters (CPU through PAPI,
 * GPU through the plugin's CUPTI pass) outside the timed repetitions. */
#ifndef RT_ROOFLINE_GLUE_H
#define RT_ROOFLINE_GLUE_H

#include <stdio.h>

#include "rt_backend.h"
#include "rt_config.h"
#include "rt_registry.h"
#include "rt_store.h"

struct rt_roofline_ctx;

/* Resolves cfg->machine ("auto" or a file). A machine that cannot be resolved leaves *out NULL
 * and says so on log (points then carry no bound); a file that exists but is invalid is an error.
 */
int rt_roofline_glue_create(const rt_config *cfg, const rt_backend *be, const char *machine_dir,
                            struct rt_roofline_ctx **out, FILE *log, int rank, rt_err *err);
void rt_roofline_glue_free(struct rt_roofline_ctx *ctx);
/* hot: the repetitions ran with warm caches (measure.mode hot), so a working set that fits in the
 * last-level cache gets no DRAM term. Fills rec->bound_s and rec->efficiency, stores the model's
 * flops and bytes as metrics, and sets RT_POINT_ABOVE_ROOFLINE with a reason when the measured time
 * beats the bound. */
void rt_roofline_glue_bound(struct rt_roofline_ctx *ctx, const rt_kernel_desc *k,
                            const void *inputs, const rt_params *params, const rt_params *problem,
                            int hot, const rt_kernel_env *env, rt_point_record *rec,
                            rt_metrics *metrics);
/* LIKWID marker regions of the config's counters around the timed repetitions: reset before a
 * point's first timed execution, begin/end around each kernel run (rt_counters_cpu.h). No-ops
 * without CPU counters. */
void rt_roofline_glue_timed_reset(struct rt_roofline_ctx *ctx);
void rt_roofline_glue_timed_begin(struct rt_roofline_ctx *ctx);
void rt_roofline_glue_timed_end(struct rt_roofline_ctx *ctx);
/* The bound of a point before it runs (roofline-bounded pruning): the traffic model needs only
 * the inputs and parameters. Collective like rt_roofline_glue_bound; NAN when there is none. */
double rt_roofline_glue_bound_before(struct rt_roofline_ctx *ctx, const rt_kernel_desc *k,
                                     const void *inputs, const rt_params *params,
                                     const rt_params *problem, int hot, const rt_kernel_env *env);
/* 1 when a config's counter name goes to the GPU (CUPTI's range profiler through the plugin), 0
 * when it is a host one (papi:, likwid:). The one place that tells them apart. */
int rt_roofline_glue_gpu_counter(const char *name);
/* Reads the configured counters: PAPI events for one extra execution of the prepared kernel,
 * LIKWID regions as the timed repetitions left them. */
int rt_roofline_glue_counters(struct rt_roofline_ctx *ctx, const rt_backend *be,
                              const rt_kernel_desc *k, void *kernel_state, const rt_config *cfg,
                              rt_metrics *metrics, rt_err *err);

#endif
