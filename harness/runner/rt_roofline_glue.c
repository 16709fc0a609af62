#define _POSIX_C_SOURCE 200809L
#include "rt_roofline_glue.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_machine.h"

struct rt_roofline_ctx {
    rt_machine machine;
    int generic; /* the generic CPU machine stood in: bounds are loose */
};

int rt_roofline_glue_create(const rt_config *cfg, const rt_backend *be, const char *machine_dir,
                            struct rt_roofline_ctx **out, FILE *log, int rank, rt_err *err)
{
    *out = NULL;
    struct rt_roofline_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return rt_err_set(err, "out of memory for the roofline model");
    char path[1024];
    if (strcmp(cfg->machine, "auto") == 0 || cfg->machine[0] == '\0') {
        const char *device = be->cuda_loaded ? be->gpu.name : be->cpu.name;
        rt_err find_err;
        if (rt_machine_find(machine_dir, device, 0, path, sizeof path, &ctx->generic, &find_err) != 0) {
            if (rank == 0 && log)
                fprintf(log, "  roofline: no machine model (%s); points carry no bound\n",
                        find_err.msg);
            free(ctx);
            return 0;
        }
    } else {
        snprintf(path, sizeof path, "%s", cfg->machine);
    }
    if (rt_machine_load(path, &ctx->machine, err) != 0) {
        free(ctx);
        return rt_err_prefix(err, "machine model");
    }
    if (rank == 0 && log)
        fprintf(log, "  roofline: machine model %s (%s)%s\n", ctx->machine.name, path,
                ctx->generic ? " - generic: run `rooftune probe` for this host's own ceilings" : "");
    *out = ctx;
    return 0;
}

void rt_roofline_glue_free(struct rt_roofline_ctx *ctx)
{
    free(ctx);
}

void rt_roofline_glue_bound(struct rt_roofline_ctx *ctx, const rt_kernel_desc *k, const void *inputs,
                            const rt_params *params, const rt_kernel_env *env, void *comm,
                            rt_point_record *rec, rt_metrics *metrics)
{
    (void)ctx, (void)k, (void)inputs, (void)params, (void)env, (void)comm, (void)rec, (void)metrics;
}

int rt_roofline_glue_counters(struct rt_roofline_ctx *ctx, const rt_backend *be,
                              const rt_kernel_desc *k, void *kernel_state, const rt_config *cfg,
                              rt_metrics *metrics, rt_err *err)
{
    for (int i = 0; i < cfg->n_counters; ++i)
        rt_metrics_unavailable(metrics, cfg->counters[i], "", "counter collection not wired yet");
    return 0;
}
