#include "gemm_params.h"

#include <stdio.h>
#include <string.h>

#include "rt_schema.h"

int gemm_tiled_cfg_read(const rt_param_schema *schema, int n, const char *kname, const rt_params *p,
                        gemm_tiled_cfg *cfg, rt_err *err)
{
    if (rt_schema_int(schema, n, kname, p, "t", &cfg->t, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "p", &cfg->p_req, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "gpus", &cfg->gpus, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "b", &cfg->b, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "c", &cfg->c, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "d", &cfg->d, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "lookahead", &cfg->lookahead, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "tail_split", &cfg->split, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "gpu_mem_budget", &cfg->budget_bytes, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "fail_rank", &cfg->fail_rank, err) != 0 ||
        rt_schema_int(schema, n, kname, p, "ipc_deny", &cfg->ipc_deny, err) != 0)
        return -1;
    char word[16];
    if (rt_schema_str(schema, n, kname, p, "transport", word, sizeof word, err) != 0)
        return -1;
    if (strcmp(word, "auto") == 0)
        cfg->transport = GEMM_TRANSPORT_AUTO;
    else if (strcmp(word, "ipc") == 0)
        cfg->transport = GEMM_TRANSPORT_IPC;
    else if (strcmp(word, "mpi") == 0)
        cfg->transport = GEMM_TRANSPORT_MPI;
    else
        return rt_err_set(err, "%s: transport '%s' is not one of auto, ipc, mpi", kname, word);
    cfg->ipc_ok = cfg->ipc_deny == 0;
    snprintf(cfg->ipc_why, sizeof cfg->ipc_why, "%s",
             cfg->ipc_ok ? "" : "IPC is unavailable (test hook ipc_deny = 1)");
    return 0;
}

int gemm_fail_hook_agree(rt_comm *comm, int64_t fail_rank, int rank, int *first, char *msg,
                         size_t len)
{
    char mine[256] = "";
    const int ok = fail_rank != rank;
    if (!ok)
        snprintf(mine, sizeof mine, "injected failure on rank %d (test hook fail_rank)", rank);
    int all_ok = 1;
    *first = -1;
    if (rt_comm_all_ok_msg(comm, ok, mine, &all_ok, first, msg, len) != 0)
        return -1;
    return all_ok ? 0 : 1;
}

int gemm_grid(int nranks, int64_t p_req, int *p, int *q, char *why, size_t whylen)
{
    if (p_req > 0) {
        if (nranks % p_req != 0) {
            snprintf(why, whylen, "p = %lld does not divide the %d ranks", (long long)p_req,
                     nranks);
            return RT_INFEASIBLE;
        }
        *p = (int)p_req;
    } else {
        *p = 1;
        for (int r = 1; r * r <= nranks; ++r)
            if (nranks % r == 0)
                *p = r;
    }
    *q = nranks / *p;
    return 0;
}

int gemm_tiled_plan(const gemm_inputs *in, const gemm_tiled_cfg *cfg, int nranks,
                    int64_t budget_bytes, gemm_plan *plan, rt_err *err)
{
    int p, q;
    char why[256];
    if (gemm_grid(nranks, cfg->p_req, &p, &q, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    const int64_t t = cfg->t;
    const int64_t tile_bytes = t * t * (int64_t)rt_precision_bytes(in->prec);
    const gemm_plan_req req = {
        .mt = (in->m + t - 1) / t,
        .nt = (in->n + t - 1) / t,
        .kt = (in->k + t - 1) / t,
        .p = p,
        .q = q,
        .G = (int)cfg->gpus,
        .b = cfg->b,
        .c = cfg->c,
        .d = cfg->d,
        .l = (int)cfg->lookahead,
        .split = cfg->split,
        .budget_tiles = budget_bytes > 0 ? budget_bytes / tile_bytes : 0,
        .ipc = cfg->transport == GEMM_TRANSPORT_IPC ||
               (cfg->transport == GEMM_TRANSPORT_AUTO && cfg->ipc_ok),
        .m = in->m,
        .n = in->n,
        .k = in->k,
        .t = t,
    };
    if (cfg->transport == GEMM_TRANSPORT_IPC && !cfg->ipc_ok) {
        rt_err_set(err, "transport = ipc: %s", cfg->ipc_why);
        return RT_INFEASIBLE;
    }
    if (budget_bytes > 0 && req.budget_tiles < 1) {
        rt_err_set(err, "gpu_mem_budget of %lld bytes holds no %lld x %lld tile (%lld bytes)",
                   (long long)budget_bytes, (long long)t, (long long)t, (long long)tile_bytes);
        return RT_INFEASIBLE;
    }
    return gemm_plan_make(&req, plan, err);
}
