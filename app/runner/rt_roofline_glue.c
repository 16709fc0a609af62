#define _POSIX_C_SOURCE 200809L
#include "rt_roofline_glue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_bound.h"
#include "rt_comm.h"
#include "rt_counters_cpu.h"
#include "rt_gpu_metrics.h"
#include "rt_machine.h"
#include "rt_machine_point.h"
#include "rt_path.h"

/* One machine model per backend: CPU kernels are bounded by the host's ceilings and CUDA kernels by
 * the GPU's, even when one experiment runs both. */
enum { SLOT_CPU = 0, SLOT_GPU = 1, SLOT_COUNT = 2 };

struct rt_roofline_ctx {
    int have[SLOT_COUNT];
    rt_machine machine[SLOT_COUNT];
    int generic[SLOT_COUNT];       /* the generic CPU machine stood in: bounds are loose */
    rt_counters_cpu *cpu_counters; /* papi:/likwid: names of the config, or NULL */
    int n_gpu_names;
    const char *gpu_names[64]; /* every other counter name, for the plugin's CUPTI pass */
    const char *gpu_cupti[64]; /* the same, translated to CUPTI metric names */
    int have_gpu_defs;
    rt_gpu_metric_defs gpu_defs; /* roofline/metrics/sm_XY.yaml of the device */
};

static int slot_of_backend(const char *backend)
{
    return (backend && strcmp(backend, "cuda") == 0) ? SLOT_GPU : SLOT_CPU;
}

/* Resolves the model of one slot: the config's file when its kind fits the slot, else `auto` by
 * the device's name. A slot with no device (no GPU here) stays empty. */
static int resolve_slot(struct rt_roofline_ctx *ctx, int slot, const rt_config *cfg,
                        const rt_backend *be, const char *machine_dir, FILE *log, int rank,
                        rt_err *err)
{
    if (slot == SLOT_GPU && !be->cuda_loaded)
        return 0;
    const char *device = slot == SLOT_GPU ? be->gpu.name : be->cpu.name;
    const char *want_kind = slot == SLOT_GPU ? "gpu" : "cpu";
    char path[1024] = "";
    if (strcmp(cfg->machine, "auto") != 0 && cfg->machine[0] != '\0') {
        if (rt_machine_load(cfg->machine, &ctx->machine[slot], err) != 0)
            return rt_err_prefix(err, "machine model");
        if (strcmp(ctx->machine[slot].kind, want_kind) == 0) {
            ctx->have[slot] = 1;
            if (rt_path_format(path, sizeof path, err, "%s", cfg->machine) != 0)
                return rt_err_prefix(err, "machine model");
        }
    }
    if (!ctx->have[slot]) {
        rt_err find_err;
        rt_err_clear(&find_err);
        if (rt_machine_find(machine_dir, device, 0, path, sizeof path, &ctx->generic[slot],
                            &find_err) != 0) {
            if (rank == 0 && log)
                fprintf(log, "  roofline (%s): no machine model (%s); its points carry no bound\n",
                        want_kind, find_err.msg);
            return 0;
        }
        if (rt_machine_load(path, &ctx->machine[slot], err) != 0)
            return rt_err_prefix(err, "machine model");
        ctx->have[slot] = 1;
    }
    if (rank == 0 && log)
        fprintf(log, "  roofline (%s kernels): machine model '%s' (%s)%s\n", want_kind,
                ctx->machine[slot].name, path,
                ctx->generic[slot] ? "; generic ceilings: run `rooftune probe` for this host's own"
                                   : "");
    return 0;
}

int rt_roofline_glue_gpu_counter(const char *name)
{
    return strncmp(name, "papi:", 5) != 0 && strncmp(name, "likwid:", 7) != 0;
}

int rt_roofline_glue_create(const rt_config *cfg, const rt_backend *be, const char *machine_dir,
                            struct rt_roofline_ctx **out, FILE *log, int rank, rt_err *err)
{
    *out = NULL;
    struct rt_roofline_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return rt_err_set(err, "out of memory for the roofline model");
    for (int slot = 0; slot < SLOT_COUNT; ++slot) {
        if (resolve_slot(ctx, slot, cfg, be, machine_dir, log, rank, err) != 0) {
            free(ctx);
            return -1;
        }
    }

    /* Counters: host ones (papi:, likwid:) go through PAPI/LIKWID, the rest to the plugin. */
    const char *cpu_names[RT_COUNTERS_CPU_MAX];
    int n_cpu = 0;
    for (int i = 0; i < cfg->n_counters; ++i) {
        const char *name = cfg->counters[i];
        if (!rt_roofline_glue_gpu_counter(name)) {
            if (n_cpu < RT_COUNTERS_CPU_MAX)
                cpu_names[n_cpu++] = name;
        } else if (ctx->n_gpu_names < 64) {
            ctx->gpu_names[ctx->n_gpu_names++] = name;
        }
    }
    if (n_cpu > 0 && rt_counters_cpu_create(cpu_names, n_cpu, &ctx->cpu_counters, err) != 0) {
        free(ctx);
        return rt_err_prefix(err, "counters");
    }
    /* GPU counter names are data (roofline/metrics/sm_XY.yaml, beside the machine files):
     * translate them once so a misspelt counter fails before anything runs. */
    if (ctx->n_gpu_names > 0 && be->cuda_loaded) {
        char metrics_dir[1100], defs_path[1200];
        if (rt_path_format(metrics_dir, sizeof metrics_dir, err, "%s/../metrics", machine_dir) !=
                0 ||
            rt_gpu_metrics_find(metrics_dir, be->gpu.cc_major, be->gpu.cc_minor, defs_path,
                                sizeof defs_path, err) != 0 ||
            rt_gpu_metrics_load(defs_path, &ctx->gpu_defs, err) != 0 ||
            rt_gpu_metrics_translate(&ctx->gpu_defs, ctx->gpu_names, ctx->n_gpu_names,
                                     ctx->gpu_cupti, err) != 0) {
            rt_roofline_glue_free(ctx);
            return rt_err_prefix(err, "counters");
        }
        ctx->have_gpu_defs = 1;
    }
    *out = ctx;
    return 0;
}

void rt_roofline_glue_free(struct rt_roofline_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->cpu_counters)
        rt_counters_cpu_free(ctx->cpu_counters);
    free(ctx);
}

void rt_roofline_glue_bound(struct rt_roofline_ctx *ctx, const rt_kernel_desc *k,
                            const void *inputs, const rt_params *params, const rt_params *problem,
                            int hot, const rt_kernel_env *env, rt_point_record *rec,
                            rt_metrics *metrics)
{
    if (!k->traffic) {
        rt_metrics_unavailable(metrics, "model_flops", "flop", "the kernel has no traffic model");
        return;
    }
    rt_traffic t;
    memset(&t, 0, sizeof t);
    rt_err err;
    rt_err_clear(&err);
    if (k->traffic(k, inputs, params, env, &t, &err) != 0) {
        rt_metrics_unavailable(metrics, "model_flops", "flop", err.msg);
        return;
    }
    /* In hot mode a working set that fits in the device's last-level cache (GPU L2, CPU LLC) may
     * never touch DRAM after the first repetition, so its compulsory DRAM bytes are no lower bound
     * on the traffic of a timed repetition: drop that term (the L2 term, when modelled, stays)
     * and say so, rather than flag an honest measurement as above the roofline. Cold mode evicts
     * the cache before every repetition, where the DRAM bound holds. */
    const rt_traffic model = t; /* as the kernel models it, for the stored metrics */
    const double working_set = t.bytes[RT_LEVEL_DRAM];
    const int cache_resident = hot && env->device && env->device->l2_bytes > 0 && working_set > 0 &&
                               working_set <= (double)env->device->l2_bytes;
    if (cache_resident) {
        t.bytes[RT_LEVEL_DRAM] = 0.0;
        rt_metrics_add(metrics, "dram_bound_dropped_cache_resident", "flag", 1.0, 1);
    }
    /* The model describes this rank's share; the bound of the job is its busiest rank's. Every
     * rank computes its own, and the maximum over ranks becomes the point's bound. */
    rt_comm *comm = env->comm;
    double local_bound = NAN;
    char limit[32] = "";
    const int slot = slot_of_backend(k->backend);
    if (ctx && ctx->have[slot]) {
        rt_bound_opts bo;
        rt_bound_opts_init(&bo);
        const int prec = rt_precision_parse(rt_params_str(problem, "precision", "fp32"));
        bo.precision = prec < 0 ? RT_FP32 : (rt_precision)prec;
        /* Emulated nodes move node and global messages through shared memory; a GPU kernel's
         * inter-node messages are staged through pinned host memory (rt_machine_point.h). */
        rt_machine m;
        rt_machine_point_flags pf;
        rt_machine_for_point(&ctx->machine[slot], strcmp(k->backend, "cuda") == 0,
                             t.net_bytes[RT_TIER_GLOBAL] > 0 || t.net_messages[RT_TIER_GLOBAL] > 0,
                             comm && rt_comm_is_emulated(comm), &m, &pf);
        if (pf.staged)
            rt_metrics_add(metrics, "internode_bound_device_staged", "flag", 1.0, 1);
        if (pf.emulated)
            rt_metrics_add(metrics, "internode_bound_emulated", "flag", 1.0, 1);
        rt_bound b;
        if (rt_bound_compute(&t, &m, &bo, &b, &err) == 0) {
            local_bound = b.bound_s;
            snprintf(limit, sizeof limit, "%s", b.limit);
        } else {
            rt_metrics_unavailable(metrics, "bound", "s", err.msg);
        }
    }
    double bound = local_bound;
    if (comm &&
        rt_comm_max_double(comm, isnan(local_bound) ? -1.0 : local_bound, &bound, &err) != 0)
        bound = NAN;
    if (bound < 0)
        bound = NAN;
    /* Model traffic of the whole job (flops summed over ranks) for the figure's intensity. */
    rt_traffic all = model;
    if (comm) {
        rt_comm_sum_double(comm, model.flops, &all.flops, &err);
        for (int l = 0; l < RT_LEVEL_COUNT; ++l)
            rt_comm_sum_double(comm, model.bytes[l], &all.bytes[l], &err);
        for (int n = 0; n < RT_TIER_COUNT; ++n) {
            rt_comm_sum_double(comm, model.net_bytes[n], &all.net_bytes[n], &err);
            rt_comm_sum_double(comm, model.net_messages[n], &all.net_messages[n], &err);
        }
        rt_comm_sum_double(comm, model.h2d_bytes, &all.h2d_bytes, &err);
        rt_comm_sum_double(comm, model.d2h_bytes, &all.d2h_bytes, &err);
        rt_comm_sum_double(comm, model.peer_bytes, &all.peer_bytes, &err);
    }
    rt_bound_traffic_metrics(&all, metrics, &err);
    if (isnan(bound))
        return;
    rec->bound_s = bound;
    rt_roofline_verdict v;
    if (rt_roofline_check(rec->time_median_s, bound, RT_ROOFLINE_DEFAULT_TOLERANCE, &v, &err) ==
        0) {
        rec->efficiency = v.efficiency;
        if (v.status == RT_ROOFLINE_ABOVE) {
            rec->status = RT_POINT_ABOVE_ROOFLINE;
            snprintf(rec->reason, sizeof rec->reason, "%s", v.reason);
        }
    }
    if (limit[0])
        rt_metrics_add(metrics, "bound_limit_is_dram", "flag",
                       strcmp(limit, "dram") == 0 ? 1.0 : 0.0, 1);
    /* Counted L2 bytes against the model's, where both exist (informative, no verdict). */
    if (rt_roofline_l2_ratio_metric(metrics, all.bytes[RT_LEVEL_L2], &err) < 0)
        rt_metrics_unavailable(metrics, "l2_bytes_ratio", "ratio", err.msg);
    /* Counted DRAM bytes (CUPTI) against the compulsory bytes of the model. */
    const rt_metric *rd = rt_metrics_get(metrics, "dram_bytes_read");
    const rt_metric *wr = rt_metrics_get(metrics, "dram_bytes_write");
    /* The ratio is stored either way; it is a verdict only when the operands cannot sit in the
     * L2 between repetitions: a cache-resident working set in hot mode is read from the L2 by the
     * counter pass too (found on the H100: 0.03-0.8 of the compulsory bytes, all honest). */
    if (rd && wr && rd->available && wr->available && all.bytes[RT_LEVEL_DRAM] > 0 &&
        rt_roofline_dram_ratio_metric(
            metrics, all.bytes[RT_LEVEL_DRAM], RT_ROOFLINE_DEFAULT_TOLERANCE,
            hot && env->device ? (double)env->device->l2_bytes : 0, &v, &err) == 0 &&
        v.status == RT_ROOFLINE_ABOVE && rec->status == RT_POINT_OK && !cache_resident) {
        rec->status = RT_POINT_ABOVE_ROOFLINE;
        snprintf(rec->reason, sizeof rec->reason, "%s", v.reason);
    }
}

double rt_roofline_glue_bound_before(struct rt_roofline_ctx *ctx, const rt_kernel_desc *k,
                                     const void *inputs, const rt_params *params,
                                     const rt_params *problem, int hot, const rt_kernel_env *env)
{
    /* The same computation as for a measured point (so a pruned point's bound is the bound it
     * would have been stored with), into a scratch record: no time yet, so no verdict. */
    rt_metrics *scratch = malloc(sizeof *scratch);
    rt_point_record rec;
    memset(&rec, 0, sizeof rec);
    rec.status = RT_POINT_OK;
    rec.time_median_s = NAN;
    rec.bound_s = NAN;
    rec.efficiency = NAN;
    rt_metrics local;
    rt_metrics *m = scratch ? scratch : &local;
    rt_metrics_init(m);
    rt_roofline_glue_bound(ctx, k, inputs, params, problem, hot, env, &rec, m);
    free(scratch);
    return rec.bound_s;
}

typedef struct run_arg {
    const rt_kernel_desc *k;
    void *state;
} run_arg;

static int run_once(void *arg, rt_err *err)
{
    run_arg *a = arg;
    double sec;
    return a->k->run(a->state, &sec, err);
}

void rt_roofline_glue_timed_reset(struct rt_roofline_ctx *ctx)
{
    if (ctx && ctx->cpu_counters)
        rt_counters_cpu_timed_reset(ctx->cpu_counters);
}

void rt_roofline_glue_timed_begin(struct rt_roofline_ctx *ctx)
{
    if (ctx && ctx->cpu_counters)
        rt_counters_cpu_timed_begin(ctx->cpu_counters);
}

void rt_roofline_glue_timed_end(struct rt_roofline_ctx *ctx)
{
    if (ctx && ctx->cpu_counters)
        rt_counters_cpu_timed_end(ctx->cpu_counters);
}

int rt_roofline_glue_counters(struct rt_roofline_ctx *ctx, const rt_backend *be,
                              const rt_kernel_desc *k, void *kernel_state, const rt_config *cfg,
                              rt_metrics *metrics, rt_err *err)
{
    if (!ctx)
        return 0;
    if (ctx->cpu_counters) {
        run_arg a = {k, kernel_state};
        if (rt_counters_cpu_measure(ctx->cpu_counters, run_once, &a, metrics, err) != 0)
            return -1;
    }
    if (ctx->n_gpu_names > 0) {
        if (strcmp(k->backend, "cuda") == 0 && be->cuda_loaded && be->plugin->collect_counters &&
            ctx->have_gpu_defs) {
            if (be->plugin->collect_counters(be->plugin_state, k, kernel_state, ctx->gpu_cupti,
                                             ctx->n_gpu_names, metrics, err) != 0)
                return -1;
            rt_gpu_metrics_rename(&ctx->gpu_defs, ctx->gpu_names, ctx->gpu_cupti, ctx->n_gpu_names,
                                  metrics);
        } else {
            const char *why = strcmp(k->backend, "cuda") == 0
                                  ? "the CUDA plugin has no counter collection"
                                  : "GPU counters do not apply to a CPU kernel";
            for (int i = 0; i < ctx->n_gpu_names; ++i)
                rt_metrics_unavailable(metrics, ctx->gpu_names[i], "", why);
        }
    }
    return 0;
}
