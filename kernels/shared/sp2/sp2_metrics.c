#include "sp2_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sp2_state.h"

/* ---------------------------------------------------------------------------------------------
 * Metrics: the breakdown per rank, reduced to max and average over ranks */

int sp2_metrics(void *state, rt_metrics *m, rt_err *err)
{
    sp2_state *s = state;
    const sp2_layout *L = &s->L;
    MPI_Comm world = rt_comm_mpi(s->comm, RT_COMM_WORLD);
    const double runs = s->runs > 0 ? (double)s->runs : 1.0;
    enum {
        T_COMPUTE,
        T_COMM,
        T_ACCUM,
        T_IMB,
        T_RUN,
        FLOPS,
        ANNZ,
        PUSHED,
        FULL,
        EXEC,
        STOLEN,
        B_SOCKET,
        B_NODE,
        B_GLOBAL,
        CNNZ,
        T_STAGE,
        NV
    };
    double v[NV], mx[NV], sm[NV];
    memset(v, 0, sizeof v);
    v[T_COMPUTE] = s->sum.compute / runs;
    v[T_COMM] = s->sum.comm / runs;
    v[T_ACCUM] = s->sum.accum / runs;
    v[T_IMB] = s->sum.imbalance / runs;
    v[T_RUN] = s->sum.total / runs;
    v[T_STAGE] = s->sum.staging / runs;
    v[FLOPS] = s->run_flops;
    v[ANNZ] = (double)s->A.local_nnz;
    v[PUSHED] = (double)s->qstats.pushed;
    v[FULL] = (double)s->qstats.full_waits;
    v[EXEC] = (double)s->tasks_exec;
    v[STOLEN] = (double)s->tasks_stolen;
    v[B_SOCKET] = (double)s->run_bytes[RT_TIER_SOCKET];
    v[B_NODE] = (double)s->run_bytes[RT_TIER_NODE];
    v[B_GLOBAL] = (double)s->run_bytes[RT_TIER_GLOBAL];
    for (int q = 0; s->spgemm && q < s->n_c; ++q)
        v[CNNZ] += (double)s->c_csr[q].nnz;
    double *stage_mx = malloc((size_t)L->KT * 2 * sizeof *stage_mx);
    int rc = stage_mx ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(v, mx, NV, MPI_DOUBLE, MPI_MAX, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(v, sm, NV, MPI_DOUBLE, MPI_SUM, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(s->stage_flops, stage_mx, L->KT, MPI_DOUBLE, MPI_MAX, world);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(s->stage_flops, stage_mx + L->KT, L->KT, MPI_DOUBLE, MPI_SUM, world);
    if (rc != MPI_SUCCESS) {
        free(stage_mx);
        return rt_err_set(err, "%s metrics: reduction over ranks failed (code %d)", s->desc->name,
                          rc);
    }
    const double P = (double)L->P;
    static const char *const tname[] = {"compute_s", "comm_s", "accum_s", "imbalance_s", "run_s"};
    for (int q = T_COMPUTE; q <= T_RUN; ++q) {
        char name[64];
        snprintf(name, sizeof name, "%s_max", tname[q]);
        rt_metrics_add(m, name, "s", mx[q], 0);
        snprintf(name, sizeof name, "%s_avg", tname[q]);
        rt_metrics_add(m, name, "s", sm[q] / P, 0);
    }
    /* Load imbalance of the work (max / avg over ranks), end to end and as a bulk-synchronous
     * algorithm stepping through k would see it: the sum over stages of each stage's maximum
     * against the sum of its averages (the paper's Fig. 1). Work stealing changes it per run. */
    const int det = !sp2_is_ws(s->alg);
    if (sm[FLOPS] > 0) {
        rt_metrics_add(m, "flops_rank_max", "flop", mx[FLOPS], det);
        rt_metrics_add(m, "flops_rank_avg", "flop", sm[FLOPS] / P, det);
        rt_metrics_add(m, "flops_imbalance", "ratio", mx[FLOPS] / (sm[FLOPS] / P), det);
        double smax = 0.0, ssum = 0.0;
        for (int k = 0; k < L->KT; ++k) {
            smax += stage_mx[k];
            ssum += stage_mx[L->KT + k];
        }
        if (ssum > 0)
            rt_metrics_add(m, "flops_stage_imbalance", "ratio", smax / (ssum / P), det);
    }
    free(stage_mx);
    if (sm[ANNZ] > 0)
        rt_metrics_add(m, "a_nnz_imbalance", "ratio", mx[ANNZ] / (sm[ANNZ] / P), 1);
    rt_metrics_add(m, "grid_pr", "count", L->pr, 1);
    rt_metrics_add(m, "grid_pc", "count", L->pc, 1);
    rt_metrics_add(m, "tiles_m", "count", L->MT, 1);
    rt_metrics_add(m, "tiles_k", "count", L->KT, 1);
    rt_metrics_add(m, "tiles_n", "count", L->NT, 1);
    if (s->queue) {
        rt_metrics_add(m, "queue_messages", "count", sm[PUSHED], 0);
        rt_metrics_add(m, "queue_full_waits", "count", sm[FULL], 0);
    }
    if (sp2_is_ws(s->alg)) {
        rt_metrics_add(m, "tasks_total", "count", (double)s->tasks_total, 1);
        rt_metrics_add(m, "tasks_executed", "count", sm[EXEC], 1);
        rt_metrics_add(m, "tasks_stolen", "count", sm[STOLEN], 0);
    }
    /* Measured traffic of the last execution: the busiest rank's (the inter-node roofline's
     * operand) and the whole job's, per tier. */
    static const char *const tiers[] = {"socket", "node", "global"};
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        char name[64];
        snprintf(name, sizeof name, "net_bytes_%s_max", tiers[t]);
        rt_metrics_add(m, name, "bytes", mx[B_SOCKET + t], 0);
        snprintf(name, sizeof name, "net_bytes_%s_sum", tiers[t]);
        rt_metrics_add(m, name, "bytes", sm[B_SOCKET + t], 0);
    }
    if (s->spgemm)
        rt_metrics_add(m, "c_nnz", "count", sm[CNNZ], 1);
    if (s->eng->stages) {
        rt_metrics_add(m, "staging_s_max", "s", mx[T_STAGE], 0);
        rt_metrics_add(m, "staging_s_avg", "s", sm[T_STAGE] / P, 0);
    }
    return 0;
}
