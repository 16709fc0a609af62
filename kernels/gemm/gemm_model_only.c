/* gemm's model-only hook: see gemm_model_only.h. */
#include "gemm_model_only.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_family.h"
#include "gemm_params.h"
#include "gemm_plan.h"

/* The tier between two world ranks of the virtual job, as rt_comm assigns it: nodes of
 * ranks_per_node consecutive ranks (0: one node), sockets of ranks_per_socket within a node. */
static int tier_between(const rt_model_job *job, int a, int b)
{
    const int rpn = job->ranks_per_node, rps = job->ranks_per_socket;
    if (rpn > 0 && a / rpn != b / rpn)
        return RT_TIER_GLOBAL;
    const int la = rpn > 0 ? a % rpn : a, lb = rpn > 0 ? b % rpn : b;
    if (rps > 0 && la / rps != lb / rps)
        return RT_TIER_NODE;
    return RT_TIER_SOCKET;
}

/* What the model says for one point over every process and GPU of the job. */
typedef struct model_sums {
    double gpu_avg, gpu_max, h2d_avg, d2d_avg, recv_avg, recv_max;
    double tail_max; /* C tiles of the busiest GPU's tail (its last block's) */
    double bytes_max[RT_TIER_COUNT];
} model_sums;

static int sum_point(const gemm_plan *pl, const rt_model_job *job, double tile_bytes,
                     model_sums *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    const int P = pl->p * pl->q;
    int *tier_of = malloc((size_t)P * sizeof *tier_of);
    if (!tier_of)
        return rt_err_set(err, "gemm --model-only: out of memory");
    double gpu_sum = 0.0, h2d = 0.0, d2d = 0.0, recv = 0.0;
    for (int r = 0; r < P; ++r) {
        for (int w = 0; w < P; ++w)
            tier_of[w] = tier_between(job, r, w);
        const int u = r / pl->q, v = r % pl->q;
        gemm_proc_counts pc;
        gemm_model_process(pl, u, v, tier_of, &pc);
        h2d += pc.h2d_a + pc.h2d_b;
        d2d += pc.d2d_a + pc.d2d_b;
        recv += pc.recv_a + pc.recv_b;
        out->recv_max = fmax(out->recv_max, pc.recv_a + pc.recv_b);
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            out->bytes_max[t] = fmax(out->bytes_max[t], pc.sent_tier[t] * tile_bytes);
        for (int g = 0; g < pl->G; ++g) {
            gemm_gpu_counts gc;
            gemm_model_gpu(pl, u, v, g, &gc);
            gpu_sum += gc.total;
            out->gpu_max = fmax(out->gpu_max, gc.total);
            out->tail_max = fmax(out->tail_max, gc.c_tail);
        }
    }
    free(tier_of);
    const double gpus = (double)P * pl->G;
    out->gpu_avg = gpu_sum / gpus;
    out->h2d_avg = h2d / gpus;
    out->d2d_avg = d2d / gpus;
    out->recv_avg = recv / P;
    return 0;
}

/* The table's columns, in the order of `columns` below. */
enum {
    C_EXPERIMENT,
    C_KERNEL,
    C_M,
    C_N,
    C_K,
    C_PRECISION,
    C_T,
    C_RANKS,
    C_RANKS_PER_NODE,
    C_RANKS_PER_SOCKET,
    C_GRID_P,
    C_GRID_Q,
    C_GPUS,
    C_BLOCK_B,
    C_BLOCK_C,
    C_CHUNK_D,
    C_LOOKAHEAD,
    C_BUDGET_TILES,
    C_MEM_CASE,
    C_BLOCKS_X,
    C_BLOCKS_Y,
    C_CHUNKS_Z,
    C_TAIL_SPLIT,
    C_STATUS,
    C_REASON,
    C_TILES_GPU_AVG,
    C_TILES_GPU_MAX,
    C_EQ1,
    C_RATIO_EQ1,
    C_H2D,
    C_D2D,
    C_SHARE_D2D,
    C_RECV_AVG,
    C_RECV_MAX,
    C_EQ_RECV,
    C_FLOPS_GPU,
    C_TAIL_MAX,
    C_TAIL_BYTES_MAX,
    C_BYTES_MAX,                          /* bytes_<tier>_max of the busiest process */
    C_TIME = C_BYTES_MAX + RT_TIER_COUNT, /* time_<tier>_s: those bytes at the tier's ceiling */
    C_MACHINE = C_TIME + RT_TIER_COUNT,
    N_COLUMNS
};

#define OWN(name)                                                                                  \
    {                                                                                              \
        name, RT_MODEL_INT, RT_MODEL_OWN, 0, 0                                                     \
    }
#define PLAN(name)                                                                                 \
    {                                                                                              \
        name, RT_MODEL_INT, RT_MODEL_OWN, 1, 0                                                     \
    }
#define RESULT(name)                                                                               \
    {                                                                                              \
        name, RT_MODEL_REAL, RT_MODEL_OWN, 1, 0                                                    \
    }

static const rt_model_column columns[] = {
    RT_MODEL_COLUMN_EXPERIMENT,
    RT_MODEL_COLUMN_KERNEL,
    OWN("M"),
    OWN("N"),
    OWN("K"),
    {"precision", RT_MODEL_TEXT, RT_MODEL_OWN, 0, 0},
    OWN("t"),
    RT_MODEL_COLUMNS_JOB,
    PLAN("grid_p"),
    PLAN("grid_q"),
    PLAN("gpus_per_process"),
    PLAN("block_b"),
    PLAN("block_c"),
    PLAN("chunk_d"),
    PLAN("lookahead"),
    PLAN("budget_tiles"),
    {"mem_case", RT_MODEL_TEXT, RT_MODEL_OWN, 1, 0},
    PLAN("blocks_x"),
    PLAN("blocks_y"),
    PLAN("chunks_z"),
    PLAN("tail_split"),
    RT_MODEL_COLUMNS_STATUS,
    RESULT("tiles_gpu_avg"),
    RESULT("tiles_gpu_max"),
    RESULT("model_eq1_tiles_gpu"),
    RESULT("ratio_tiles_gpu_eq1"),
    RESULT("tiles_h2d_gpu_avg"),
    RESULT("tiles_d2d_gpu_avg"),
    RESULT("share_d2d_loads"),
    RESULT("mpi_tiles_recv_avg"),
    RESULT("mpi_tiles_recv_max"),
    RESULT("model_eq_tiles_recv"),
    RESULT("flops_gpu"),
    RESULT("tail_tiles_gpu_max"),
    RESULT("tail_bytes_gpu_max"),
    RESULT("bytes_socket_max"),
    RESULT("bytes_node_max"),
    RESULT("bytes_global_max"),
    RESULT("time_socket_s"),
    RESULT("time_node_s"),
    RESULT("time_global_s"),
    RT_MODEL_COLUMN_MACHINE,
};

_Static_assert(sizeof columns / sizeof columns[0] == N_COLUMNS, "one column per index");

/* The kernels with a plan to model: those whose schema holds every parameter of the tiled
 * plan (the baselines, SUMMA, cuBLAS and cublasXt, have none). */
static int has_plan(const rt_kernel_desc *kernel)
{
    static const rt_param_schema plan_params[] = {GEMM_TILED_PARAMS};
    for (size_t i = 0; i < sizeof plan_params / sizeof plan_params[0]; ++i)
        if (!rt_kernel_find_param(kernel, plan_params[i].name))
            return 0;
    return 1;
}

static void fill_plan(const gemm_inputs *in, const gemm_plan *pl, const model_sums *s,
                      const rt_model_job *job, double tile_bytes, rt_model_row *row)
{
    rt_model_cell *c = row->cell;
    c[C_GRID_P].i = pl->p;
    c[C_GRID_Q].i = pl->q;
    c[C_GPUS].i = pl->G;
    c[C_BLOCK_B].i = pl->b;
    c[C_BLOCK_C].i = pl->c;
    c[C_CHUNK_D].i = pl->d;
    c[C_LOOKAHEAD].i = pl->l;
    c[C_BUDGET_TILES].i = pl->budget_tiles;
    snprintf(c[C_MEM_CASE].s, sizeof c[C_MEM_CASE].s, "%c", pl->mem_case);
    c[C_BLOCKS_X].i = pl->X;
    c[C_BLOCKS_Y].i = pl->Y;
    c[C_CHUNKS_Z].i = pl->Z;
    c[C_TAIL_SPLIT].i = pl->xs;
    const double eq1 = gemm_eq1(pl), eqr = gemm_eq_recv(pl);
    const double into = s->h2d_avg + s->d2d_avg;
    c[C_TILES_GPU_AVG].r = s->gpu_avg;
    c[C_TILES_GPU_MAX].r = s->gpu_max;
    c[C_EQ1].r = eq1;
    c[C_RATIO_EQ1].r = eq1 > 0 ? s->gpu_avg / eq1 : NAN;
    c[C_H2D].r = s->h2d_avg;
    c[C_D2D].r = s->d2d_avg;
    c[C_SHARE_D2D].r = into > 0 ? s->d2d_avg / into : 0.0;
    c[C_RECV_AVG].r = s->recv_avg;
    c[C_RECV_MAX].r = s->recv_max;
    c[C_EQ_RECV].r = eqr;
    const double P = (double)pl->p * pl->q;
    c[C_FLOPS_GPU].r = 2.0 * (double)in->m * (double)in->n * (double)in->k / (P * pl->G);
    /* The tail: what the busiest GPU writes back after its last block (full tiles: an upper
     * bound where they are ragged); at the host link's rate it is the time nothing overlaps. */
    c[C_TAIL_MAX].r = s->tail_max;
    c[C_TAIL_BYTES_MAX].r = s->tail_max * tile_bytes;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        c[C_BYTES_MAX + t].r = s->bytes_max[t];
        c[C_TIME + t].r = job->have_tiers && job->tier_gbs[t] > 0
                              ? s->bytes_max[t] / (job->tier_gbs[t] * 1e9)
                              : NAN;
    }
    const size_t used = strlen(row->line);
    snprintf(row->line + used, sizeof row->line - used,
             " %d x %d x G=%d b=%lld c=%lld d=%lld l=%d split %lld case %c | tiles/GPU %.0f "
             "(Eq. (1) %.0f, ratio %.3f), d2d share %.3f, tail %.0f | MPI tiles/process %.0f "
             "(formula %.0f)",
             pl->p, pl->q, pl->G, (long long)pl->b, (long long)pl->c, (long long)pl->d, pl->l,
             (long long)pl->xs, pl->mem_case, s->gpu_avg, eq1, eq1 > 0 ? s->gpu_avg / eq1 : NAN,
             c[C_SHARE_D2D].r, s->tail_max, s->recv_avg, eqr);
}

/* The plan of the point for the virtual job, and what it moves. */
static int plan_point(const rt_model_point *pt, const gemm_inputs *in, const gemm_tiled_cfg *tc,
                      rt_model_row *row, rt_err *err)
{
    if (strcmp(pt->kernel->backend, "cuda") == 0 && tc->budget_bytes == 0) {
        row->ok = 0;
        snprintf(row->reason, sizeof row->reason,
                 "gpu_mem_budget = 0 is a share of the device's memory; give it in bytes for "
                 "--model-only");
        return 0;
    }
    gemm_plan pl;
    rt_err perr;
    rt_err_clear(&perr);
    const int prc = gemm_tiled_plan(in, tc, pt->job->nranks, tc->budget_bytes, &pl, &perr);
    if (prc == RT_INFEASIBLE) {
        row->ok = 0;
        snprintf(row->reason, sizeof row->reason, "%s", perr.msg);
        return 0;
    }
    if (prc != 0)
        return rt_err_set(err, "%s", perr.msg);
    model_sums sums;
    const double tile_bytes = (double)(tc->t * tc->t) * (double)rt_precision_bytes(in->prec);
    if (sum_point(&pl, pt->job, tile_bytes, &sums, err) != 0)
        return -1;
    fill_plan(in, &pl, &sums, pt->job, tile_bytes, row);
    return 0;
}

static int model_point(const rt_model_point *pt, rt_model_row *row, rt_err *err)
{
    const rt_kernel_desc *kd = pt->kernel;
    void *inputs = NULL; /* sizes and precision only: tiles are never built here */
    gemm_tiled_cfg tc;
    /* The plan is the virtual job's (pt->job); the inputs, read for their sizes alone, are one
     * process's: nothing runs under MPI here. */
    const rt_job alone = rt_job_alone();
    if (gemm_make_inputs(NULL, pt->problem, &alone, &inputs, err) != 0)
        return -1;
    const gemm_inputs *in = inputs;
    int rc = gemm_tiled_cfg_read(kd->params, kd->n_params, kd->name, pt->params, &tc, err);
    if (rc == 0) {
        rt_model_cell *c = row->cell;
        c[C_M].i = in->m;
        c[C_N].i = in->n;
        c[C_K].i = in->k;
        snprintf(c[C_PRECISION].s, sizeof c[C_PRECISION].s, "%s",
                 rt_params_str(pt->problem, "precision", "fp64"));
        c[C_T].i = tc.t;
        snprintf(row->line, sizeof row->line, "%s N=%lld t=%lld", kd->name, (long long)in->n,
                 (long long)tc.t);
        if (row->ok)
            rc = plan_point(pt, in, &tc, row, err);
    }
    gemm_free_inputs(inputs);
    return rc;
}

const rt_family_model gemm_model = {
    .columns = columns, .n_columns = N_COLUMNS, .covers = has_plan, .point = model_point};
