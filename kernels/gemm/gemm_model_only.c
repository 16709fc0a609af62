#include "gemm_model_only.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm_family.h"
#include "gemm_params.h"
#include "gemm_plan.h"
#include "rt_path.h"
#include "rt_problem.h"
#include "rt_space.h"

static const char *const tier_names[RT_TIER_COUNT] = {"socket", "node", "global"};

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
    double bytes_max[RT_TIER_COUNT];
} model_sums;

static int model_point(const gemm_plan *pl, const rt_model_job *job, double tile_bytes,
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

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputc(',', f);
}

/* Reasons and names carry no comma or quote that CSV would need to escape: quote them always,
 * doubling quotes (RFC 4180). */
static void csv_text(FILE *f, const char *s)
{
    fputc(',', f);
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_header(FILE *f)
{
    fputs("experiment,kernel,M,N,K,precision,t,ranks,ranks_per_node,ranks_per_socket,grid_p,"
          "grid_q,gpus_per_process,block_b,block_c,chunk_d,lookahead,budget_tiles,mem_case,"
          "blocks_x,blocks_y,chunks_z,status,reason,tiles_gpu_avg,tiles_gpu_max,"
          "model_eq1_tiles_gpu,ratio_tiles_gpu_eq1,tiles_h2d_gpu_avg,tiles_d2d_gpu_avg,"
          "share_d2d_loads,mpi_tiles_recv_avg,mpi_tiles_recv_max,model_eq_tiles_recv,"
          "flops_gpu",
          f);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        fprintf(f, ",bytes_%s_max", tier_names[t]);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        fprintf(f, ",time_%s_s", tier_names[t]);
    fputs(",machine\r\n", f);
}

typedef struct point_ctx {
    FILE *csv, *table;
    const char *experiment, *kernel, *prec;
    const rt_model_job *job;
    const gemm_inputs *in;
    int64_t t;
} point_ctx;

static void write_infeasible(const point_ctx *c, const char *reason)
{
    fprintf(c->csv, "%s,%s,%lld,%lld,%lld,%s,%lld,%d,%d,%d", c->experiment, c->kernel,
            (long long)c->in->m, (long long)c->in->n, (long long)c->in->k, c->prec, (long long)c->t,
            c->job->nranks, c->job->ranks_per_node, c->job->ranks_per_socket);
    fputs(",,,,,,,,,,,,,infeasible", c->csv);
    csv_text(c->csv, reason);
    for (int i = 0; i < 11 + 2 * RT_TIER_COUNT; ++i)
        fputc(',', c->csv);
    csv_text(c->csv, c->job->machine_name);
    fputs("\r\n", c->csv);
    if (c->table)
        fprintf(c->table, "  %s N=%lld t=%lld infeasible: %s\n", c->kernel, (long long)c->in->n,
                (long long)c->t, reason);
}

static void write_ok(const point_ctx *c, const gemm_plan *pl, const model_sums *s)
{
    FILE *f = c->csv;
    fprintf(f,
            "%s,%s,%lld,%lld,%lld,%s,%lld,%d,%d,%d,%d,%d,%d,%lld,%lld,%lld,%d,%lld,%c,%lld,%lld,"
            "%lld,ok,\"\"",
            c->experiment, c->kernel, (long long)c->in->m, (long long)c->in->n, (long long)c->in->k,
            c->prec, (long long)c->t, c->job->nranks, c->job->ranks_per_node,
            c->job->ranks_per_socket, pl->p, pl->q, pl->G, (long long)pl->b, (long long)pl->c,
            (long long)pl->d, pl->l, (long long)pl->budget_tiles, pl->mem_case, (long long)pl->X,
            (long long)pl->Y, (long long)pl->Z);
    const double eq1 = gemm_eq1(pl), eqr = gemm_eq_recv(pl);
    const double into = s->h2d_avg + s->d2d_avg;
    csv_num(f, s->gpu_avg);
    csv_num(f, s->gpu_max);
    csv_num(f, eq1);
    csv_num(f, eq1 > 0 ? s->gpu_avg / eq1 : NAN);
    csv_num(f, s->h2d_avg);
    csv_num(f, s->d2d_avg);
    csv_num(f, into > 0 ? s->d2d_avg / into : 0.0);
    csv_num(f, s->recv_avg);
    csv_num(f, s->recv_max);
    csv_num(f, eqr);
    const double P = (double)pl->p * pl->q;
    csv_num(f, 2.0 * (double)c->in->m * (double)c->in->n * (double)c->in->k / (P * pl->G));
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        csv_num(f, s->bytes_max[t]);
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        csv_num(f, c->job->have_tiers && c->job->tier_gbs[t] > 0
                       ? s->bytes_max[t] / (c->job->tier_gbs[t] * 1e9)
                       : NAN);
    csv_text(f, c->job->machine_name);
    fputs("\r\n", f);
    if (c->table)
        fprintf(c->table,
                "  %s N=%lld t=%lld %d x %d x G=%d b=%lld c=%lld d=%lld l=%d case %c | tiles/GPU "
                "%.0f (Eq. (1) %.0f, ratio %.3f), d2d share %.3f | MPI tiles/process %.0f "
                "(formula %.0f)\n",
                c->kernel, (long long)c->in->n, (long long)c->t, pl->p, pl->q, pl->G,
                (long long)pl->b, (long long)pl->c, (long long)pl->d, pl->l, pl->mem_case,
                s->gpu_avg, eq1, eq1 > 0 ? s->gpu_avg / eq1 : NAN,
                into > 0 ? s->d2d_avg / into : 0.0, s->recv_avg, eqr);
}

/* The points of one kernel entry of the config for one problem point. */
static int model_entry(const rt_family_desc *self, const rt_kernel_cfg *kc,
                       const rt_kernel_desc *kd, const rt_params *problem, point_ctx *c,
                       int *n_points, rt_err *err)
{
    void *inputs = NULL; /* sizes and precision only: tiles are never built here */
    if (self->make_inputs(NULL, problem, &inputs, err) != 0)
        return -1;
    c->in = inputs;
    rt_space *space = NULL;
    int rc = rt_space_build(kc, kd, problem, 0, 0, 0, NULL, &space, err);
    for (int64_t idx = 0; rc == 0 && idx < rt_space_size(space); ++idx) {
        rt_params params;
        int feasible = 1;
        char why[512] = "";
        gemm_tiled_cfg tc;
        if (rt_space_point(space, idx, &params, &feasible, why, sizeof why, err) != 0 ||
            gemm_tiled_cfg_read(kd->params, kd->n_params, kd->name, &params, &tc, err) != 0) {
            rc = -1;
            break;
        }
        c->t = tc.t;
        ++*n_points;
        const int on_gpu = strcmp(kd->backend, "cuda") == 0;
        if (feasible && on_gpu && tc.budget_bytes == 0) {
            write_infeasible(c, "gpu_mem_budget = 0 is a share of the device's memory; give it "
                                "in bytes for --model-only");
            continue;
        }
        if (!feasible) {
            write_infeasible(c, why);
            continue;
        }
        gemm_plan pl;
        rt_err perr;
        rt_err_clear(&perr);
        const int prc = gemm_tiled_plan(c->in, &tc, c->job->nranks, tc.budget_bytes, &pl, &perr);
        if (prc == RT_INFEASIBLE) {
            write_infeasible(c, perr.msg);
            continue;
        }
        if (prc != 0) {
            rc = rt_err_set(err, "%s", perr.msg);
            break;
        }
        model_sums sums;
        const double tile_bytes = (double)(tc.t * tc.t) * (double)rt_precision_bytes(c->in->prec);
        if (model_point(&pl, c->job, tile_bytes, &sums, err) != 0) {
            rc = -1;
            break;
        }
        write_ok(c, &pl, &sums);
    }
    rt_space_free(space);
    self->free_inputs(inputs);
    return rc;
}

int gemm_model_only(const rt_family_desc *self, const rt_config *cfg, const rt_registry *reg,
                    const rt_model_job *job, int *n_points, rt_err *err)
{
    *n_points = 0;
    char path[PATH_MAX];
    if (rt_path_format(path, sizeof path, err, "%s/%s-model.csv", job->out_dir, cfg->name) != 0)
        return rt_err_prefix(err, "--model-only");
    FILE *csv = fopen(path, "w");
    if (!csv)
        return rt_err_set(err, "--model-only: cannot write %s", path);
    csv_header(csv);
    point_ctx c = {.csv = csv, .table = job->out, .experiment = cfg->name, .job = job};
    int rc = 0;
    for (int64_t pi = 0; pi < rt_problem_count(cfg) && rc == 0; ++pi) {
        rt_params given, problem;
        if (rt_problem_point(cfg, pi, &given, err) != 0 ||
            rt_problem_for_family(self, &given, &problem, err) != 0) {
            rc = -1;
            break;
        }
        c.prec = rt_params_str(&problem, "precision", "fp64");
        for (int ki = 0; ki < cfg->n_kernels && rc == 0; ++ki) {
            const rt_kernel_cfg *kc = &cfg->kernels[ki];
            const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
            if (!kd || strcmp(kd->family, self->name) != 0 || !strstr(kd->name, ".tiled"))
                continue; /* the baselines (SUMMA, cuBLAS, cublasXt) have no plan to model */
            c.kernel = kd->name;
            rc = model_entry(self, kc, kd, &problem, &c, n_points, err);
        }
    }
    if (fclose(csv) != 0 && rc == 0)
        rc = rt_err_set(err, "--model-only: writing %s failed", path);
    if (rc == 0 && job->out)
        fprintf(job->out, "gemm: %d point(s) modelled, written to %s\n", *n_points, path);
    return rc;
}
