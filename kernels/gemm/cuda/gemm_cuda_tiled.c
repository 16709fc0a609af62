#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "gemm_cuda.h"
#include "gemm_cuda_catalog.h"
#include "gemm_cuda_engine.h"
#include "gemm_gpu_map.h"
#include "gemm_params.h"
#include "rt_comm.h"
#include "rt_cuda_point.h"
#include "rt_schema.h"

#define KNAME RT_GEMM_CUDA_TILED

typedef struct cuda_tiled {
    gemm_plan plan;
    gemm_gpu_map map;
    gemm_cuda_engine *eng;
    gemm_async *async; /* the engine's streams and events over eng */
    gemm_tiled *drv;
    rt_cuda_ctx *ctx;
} cuda_tiled;

static const rt_cuda_catalog_entry *entry(void)
{
    int n = 0;
    const rt_cuda_catalog_entry *t = rt_gemm_cuda_catalog(&n);
    return rt_cuda_catalog_at(t, n, RT_GEMM_CUDA_KIND_TILED);
}

/* Whether the GPUs of the node's ranks reach each other (cudaIpcOpenMemHandle needs the devices to
 * be one or peers): every rank resolves every local rank's map the same way (a rank's own device
 * is its local rank mod the devices, as the backend chose it), so all agree without a message. */
static void ipc_reach(gemm_map_mode mode, int gpus, int locals, int count, gemm_tiled_cfg *cfg)
{
    for (int r = 0; r < locals && cfg->ipc_ok; ++r)
        for (int q = r + 1; q < locals && cfg->ipc_ok; ++q) {
            gemm_gpu_map a, b;
            char why[256];
            if (gemm_gpu_map_resolve(mode, gpus, r, locals, count, r % count, &a, why,
                                     sizeof why) != 0 ||
                gemm_gpu_map_resolve(mode, gpus, q, locals, count, q % count, &b, why,
                                     sizeof why) != 0)
                return; /* the map itself is infeasible: plan_of says so */
            for (int g = 0; g < gpus && cfg->ipc_ok; ++g)
                for (int h = 0; h < gpus && cfg->ipc_ok; ++h) {
                    const int da = a.devices[g], db = b.devices[h];
                    int ab = 1, ba = 1;
                    if (da != db && (cudaDeviceCanAccessPeer(&ab, da, db) != cudaSuccess ||
                                     cudaDeviceCanAccessPeer(&ba, db, da) != cudaSuccess)) {
                        (void)cudaGetLastError();
                        ab = 0;
                    }
                    if (!ab || !ba) {
                        cfg->ipc_ok = 0;
                        snprintf(cfg->ipc_why, sizeof cfg->ipc_why,
                                 "devices %d and %d (local ranks %d and %d) have no peer access, "
                                 "so CUDA IPC cannot map one's memory on the other",
                                 da, db, r, q);
                    }
                }
        }
}

/* The physical device of each GPU of this rank (gemm_gpu_map.h): the rank's local (node) rank and
 * the ranks of its node, as the backend chose the rank's own device (local rank mod devices). */
static int map_of(const rt_params *p, const rt_kernel_env *env, rt_cuda_ctx *ctx, int64_t gpus,
                  gemm_tiled_cfg *cfg, gemm_gpu_map *map, rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    char word[16];
    gemm_map_mode mode;
    if (rt_schema_str(e->params, e->n_params, KNAME, p, "gpu_map", word, sizeof word, err) != 0)
        return -1;
    if (gemm_map_mode_parse(word, &mode) != 0)
        return rt_err_set(err, KNAME ": gpu_map '%s' is not one of " GEMM_GPU_MAP_DOMAIN, word);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        (void)cudaGetLastError();
        return rt_err_set(err, KNAME ": no CUDA device to map the GPUs on");
    }
    const int local = env->comm ? rt_comm_rank(env->comm, RT_COMM_NODE) : 0;
    const int locals = env->comm ? rt_comm_size(env->comm, RT_COMM_NODE) : 1;
    char why[256];
    const int rc = gemm_gpu_map_resolve(mode, (int)gpus, local, locals, count,
                                        rt_cuda_ctx_ordinal(ctx), map, why, sizeof why);
    if (rc != 0)
        rt_err_set(err, "%s", why);
    else if (cfg->transport != GEMM_TRANSPORT_MPI)
        ipc_reach(mode, (int)gpus, locals, count, cfg);
    return rc;
}

/* gpu_mem_budget 0: 85% of a device's memory; with gpu_map = logical shared by the ranks of the
 * node and the G logical GPUs, with physical each GPU has a device of its own (the smallest of
 * them sets the budget). From the devices' sizes, not their free memory, so the plan is the same
 * in setup and in the traffic model. */
static int plan_of(const void *inputs, const rt_params *p, const rt_kernel_env *env,
                   rt_cuda_ctx *ctx, gemm_tiled_cfg *cfg, gemm_gpu_map *map, gemm_plan *plan,
                   rt_err *err)
{
    const rt_cuda_catalog_entry *e = entry();
    if (gemm_tiled_cfg_read(e->params, e->n_params, KNAME, p, cfg, err) != 0)
        return -1;
    const int mrc = map_of(p, env, ctx, cfg->gpus, cfg, map, err);
    if (mrc != 0)
        return mrc;
    int64_t budget = cfg->budget_bytes;
    if (budget == 0 && map->physical) {
        double mem = 0.0;
        for (int g = 0; g < (int)cfg->gpus; ++g) {
            struct cudaDeviceProp prop;
            if (cudaGetDeviceProperties(&prop, map->devices[g]) != cudaSuccess) {
                (void)cudaGetLastError();
                return rt_err_set(err, KNAME ": cannot read device %d's memory size",
                                  map->devices[g]);
            }
            if (g == 0 || (double)prop.totalGlobalMem < mem)
                mem = (double)prop.totalGlobalMem;
        }
        budget = (int64_t)(0.85 * mem);
    } else if (budget == 0) {
        const int sharing = env->comm ? rt_comm_size(env->comm, RT_COMM_NODE) : 1;
        const double mem = env->device ? (double)env->device->global_mem_bytes : 0.0;
        budget = (int64_t)(0.85 * mem / ((double)cfg->gpus * (sharing > 0 ? sharing : 1)));
    }
    if (budget <= 0)
        return rt_err_set(err, KNAME ": the device's memory size is unknown; set "
                                     "gpu_mem_budget");
    return gemm_tiled_plan(inputs, cfg, env->nranks, budget, plan, err);
}

static int tiled_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    gemm_tiled_cfg cfg;
    gemm_gpu_map map;
    gemm_plan plan;
    const int rc = plan_of(inputs, p, env, self->backend_ctx, &cfg, &map, &plan, err);
    if (rc == RT_INFEASIBLE)
        snprintf(why, whylen, "%s", err->msg);
    return rc;
}

static void tiled_teardown(void *state)
{
    cuda_tiled *s = state;
    if (!s)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    gemm_cuda_engine_drain(s->eng); /* no copy in flight to or from the host memory freed next */
    gemm_tiled_free(s->drv);        /* frees pinned host memory through the engine's ops */
    gemm_async_free(s->async);
    gemm_cuda_engine_free(s->eng);
    free(s);
}

static int tiled_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    const gemm_inputs *in = inputs;
    cuda_tiled *s = calloc(1, sizeof *s);
    *state = s;
    gemm_tiled_cfg cfg;
    int rc = s ? 0 : rt_err_set(err, KNAME ": out of memory");
    if (rc == 0) {
        s->ctx = self->backend_ctx;
        rc = plan_of(inputs, p, env, s->ctx, &cfg, &s->map, &s->plan, err);
    }
    if (rc == 0)
        rc = rt_cuda_ctx_make_current(s->ctx, err);
    if (rc == 0) {
        const size_t tile_bytes = (size_t)(cfg.t * cfg.t) * rt_precision_bytes(in->prec);
        rc = gemm_cuda_engine_create(s->ctx, (int)cfg.gpus, s->map.devices,
                                     gemm_tiled_slots(&s->plan), s->plan.b * s->plan.cg, tile_bytes,
                                     in->prec, s->plan.l, &s->eng, err);
    }
    if (rc == 0)
        rc = gemm_async_create(gemm_cuda_engine_dev(), s->eng, (int)cfg.gpus,
                               gemm_tiled_slots(&s->plan), s->plan.l, &s->async, err);
    if (rc == 0 && gemm_tiled_create(in, &s->plan, cfg.t, env->comm, env->rank, cfg.fail_rank,
                                     gemm_async_ops(), s->async, &s->drv, err) != 0)
        rc = rt_err_prefix(err, KNAME);
    /* Every rank agrees (one whose setup failed takes no part in what follows), then, with ipc,
     * the node's processes map each other's slots. */
    rc = gemm_tiled_connect(rc == 0 ? s->drv : NULL, env->comm, rc, KNAME, err);
    rt_err ignored;
    if (s && s->ctx)
        (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    return rc;
}

/* Timed by the runner's wall clock: the data starts and ends in host memory, and gemm_tiled_run
 * returns once every copy and product has completed. */
static int tiled_run(void *state, double *seconds, rt_err *err)
{
    cuda_tiled *s = state;
    *seconds = -1.0;
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const int rc = gemm_tiled_run(s->drv, err);
    rt_err ignored; /* with gpu_map = physical a failed call may leave another device current */
    (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    return rc;
}

static int tiled_output(void *state, double *out, rt_err *err)
{
    return gemm_tiled_output(((cuda_tiled *)state)->drv, out, err);
}

/* Beside the counters, how this point's GPUs were placed (rank 0's process; the ranks of a run
 * resolve the same rule): gpu_map_physical 1 when each GPU had a device of its own. */
static int tiled_metrics(void *state, rt_metrics *m, rt_err *err)
{
    const cuda_tiled *s = state;
    rt_metrics_add(m, "gpu_map_physical", "flag", s->map.physical, 1);
    rt_metrics_add(m, "gpu_devices", "count", gemm_cuda_engine_devices(s->eng), 1);
    rt_metrics_add(m, "gpu_peer_access", "flag", gemm_cuda_engine_peer_access(s->eng), 1);
    return gemm_tiled_metrics(s->drv, m, err);
}

static int tiled_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    gemm_tiled_cfg cfg;
    gemm_gpu_map map;
    gemm_plan plan;
    if (plan_of(inputs, p, env, self->backend_ctx, &cfg, &map, &plan, err) != 0)
        return -1;
    /* Copies between GPUs on distinct devices cross a link (NVLink); logical GPUs share one
     * device, so their copies stay in its memory. Tiles pulled from a node peer on the same
     * device likewise; a peer is on another device whenever this process's GPUs are. */
    if (gemm_tiled_traffic(inputs, &plan, cfg.t, env->comm, env->rank, map.physical, t, err) != 0)
        return -1;
    t->devices = map.distinct;
    gemm_cuda_flops_model(inputs, env->device, t);
    return 0;
}

void rt_gemm_cuda_tiled_describe(rt_kernel_desc *d, rt_cuda_ctx *ctx)
{
    static const rt_cuda_point_hooks hooks = {tiled_check,    tiled_setup,   tiled_run,
                                              tiled_output,   tiled_metrics, NULL,
                                              tiled_teardown, tiled_traffic};
    rt_cuda_point_describe(d, entry(), &hooks, ctx);
}
