#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gemm_cpu_engine.h"
#include "gemm_cpu_kernels.h"
#include "gemm_params.h"
#include "rt_comm.h"
#include "rt_cpu_kernel.h"
#include "rt_schema.h"

#define KNAME "gemm.cpu.summa"

static const rt_param_schema summa_params[] = {GEMM_PARAM_T, GEMM_PARAM_P, GEMM_PARAM_FAIL_RANK};
#define N_SUMMA ((int)(sizeof summa_params / sizeof summa_params[0]))

typedef struct summa {
    const gemm_inputs *in;
    rt_comm *comm;
    MPI_Comm row_comm, col_comm;
    MPI_Datatype type;
    int64_t t, fail_rank;
    int p, q, u, v, rank;
    int64_t mt, nt, kt, rows, cols, kq, kp;
    size_t elem, tile_bytes;
    char *a_store, *b_store, *c_store, *panel_a, *panel_b;
    double sent_bytes[3], sent_tiles;
} summa;

static int64_t tile_len(int64_t n, int64_t t, int64_t i)
{
    return n - i * t < t ? n - i * t : t;
}

static int read_grid(const gemm_inputs *in, const rt_params *p, const rt_kernel_env *env,
                     int64_t *t, int64_t *fail, int *pr, int *pc, rt_err *err)
{
    int64_t p_req = 0;
    if (rt_schema_int(summa_params, N_SUMMA, KNAME, p, "t", t, err) != 0 ||
        rt_schema_int(summa_params, N_SUMMA, KNAME, p, "p", &p_req, err) != 0 ||
        rt_schema_int(summa_params, N_SUMMA, KNAME, p, "fail_rank", fail, err) != 0)
        return -1;
    (void)in;
    char why[256];
    if (gemm_grid(env->nranks, p_req, pr, pc, why, sizeof why) != 0) {
        rt_err_set(err, "%s", why);
        return RT_INFEASIBLE;
    }
    return 0;
}

static int summa_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    (void)self;
    int64_t t, fail;
    int pr, pc;
    const int rc = read_grid(inputs, p, env, &t, &fail, &pr, &pc, err);
    if (rc == RT_INFEASIBLE)
        snprintf(why, whylen, "%s", err->msg);
    return rc;
}

static void summa_teardown(void *state)
{
    summa *s = state;
    if (!s)
        return;
    if (s->row_comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->row_comm);
    if (s->col_comm != MPI_COMM_NULL)
        MPI_Comm_free(&s->col_comm);
    free(s->a_store);
    free(s->b_store);
    free(s->c_store);
    free(s->panel_a);
    free(s->panel_b);
    free(s);
}

static int summa_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                       const rt_kernel_env *env, void **state, rt_err *err)
{
    (void)self;
    const gemm_inputs *in = inputs;
    if (!env->comm)
        return rt_err_set(err, KNAME ": needs the harness's MPI layer");
    summa *s = calloc(1, sizeof *s);
    if (!s)
        return rt_err_set(err, KNAME ": out of memory");
    *state = s;
    s->row_comm = s->col_comm = MPI_COMM_NULL;
    const int rc = read_grid(in, p, env, &s->t, &s->fail_rank, &s->p, &s->q, err);
    if (rc != 0)
        return rc;
    const int64_t t = s->t;
    s->in = in;
    s->comm = env->comm;
    s->rank = env->rank;
    s->u = env->rank / s->q;
    s->v = env->rank % s->q;
    s->type = in->prec == RT_FP64 ? MPI_DOUBLE : MPI_FLOAT;
    s->mt = (in->m + t - 1) / t;
    s->nt = (in->n + t - 1) / t;
    s->kt = (in->k + t - 1) / t;
    s->rows = gemm_count_mod(s->mt, s->p, s->u);
    s->cols = gemm_count_mod(s->nt, s->q, s->v);
    s->kq = gemm_count_mod(s->kt, s->q, s->v);
    s->kp = gemm_count_mod(s->kt, s->p, s->u);
    s->elem = rt_precision_bytes(in->prec);
    s->tile_bytes = (size_t)(t * t) * s->elem;
    const MPI_Comm world = rt_comm_mpi(env->comm, RT_COMM_WORLD);
    if (MPI_Comm_split(world, s->u, s->v, &s->row_comm) != MPI_SUCCESS ||
        MPI_Comm_split(world, s->v, s->u, &s->col_comm) != MPI_SUCCESS)
        return rt_err_set(err, KNAME ": splitting the grid's communicators failed");
    s->a_store = malloc((size_t)(s->rows * s->kq) * s->tile_bytes + 1);
    s->b_store = malloc((size_t)(s->kp * s->cols) * s->tile_bytes + 1);
    s->c_store = malloc((size_t)(s->rows * s->cols) * s->tile_bytes + 1);
    s->panel_a = malloc((size_t)s->rows * s->tile_bytes + 1);
    s->panel_b = malloc((size_t)s->cols * s->tile_bytes + 1);
    if (!s->a_store || !s->b_store || !s->c_store || !s->panel_a || !s->panel_b)
        return rt_err_set(err, KNAME ": out of memory for the tiles of rank %d", env->rank);
    for (int64_t il = 0; il < s->rows; ++il)
        for (int64_t kl = 0; kl < s->kq; ++kl) {
            const int64_t i = s->u + s->p * il, k = s->v + s->q * kl;
            gemm_fill_tile(in, 'A', i * t, k * t, tile_len(in->m, t, i), tile_len(in->k, t, k),
                           s->a_store + (size_t)(il * s->kq + kl) * s->tile_bytes);
        }
    for (int64_t kl = 0; kl < s->kp; ++kl)
        for (int64_t jl = 0; jl < s->cols; ++jl) {
            const int64_t k = s->u + s->p * kl, j = s->v + s->q * jl;
            gemm_fill_tile(in, 'B', k * t, j * t, tile_len(in->k, t, k), tile_len(in->n, t, j),
                           s->b_store + (size_t)(kl * s->cols + jl) * s->tile_bytes);
        }
    const size_t c_elems = (size_t)(s->rows * s->cols) * (size_t)(t * t);
    for (size_t e = 0; e < c_elems; ++e) {
        if (in->prec == RT_FP64)
            ((double *)s->c_store)[e] = NAN;
        else
            ((float *)s->c_store)[e] = NAN;
    }
    return 0;
}

/* Broadcasts tile by tile (root: process `root` of comm, world rank of member w: to_world(w)). */
static int bcast_tiles(summa *s, char *panel, int64_t n_tiles, const int64_t *elems, int root,
                       MPI_Comm comm, int me, int members, int along_row, rt_err *err)
{
    for (int64_t x = 0; x < n_tiles; ++x) {
        if (MPI_Bcast(panel + (size_t)x * s->tile_bytes, (int)elems[x], s->type, root, comm) !=
            MPI_SUCCESS)
            return rt_err_set(err, KNAME ": a broadcast failed");
        if (me != root)
            continue;
        for (int w = 0; w < members; ++w) {
            if (w == me)
                continue;
            const int dest = along_row ? s->u * s->q + w : w * s->q + s->v;
            const int64_t bytes = elems[x] * (int64_t)s->elem;
            if (rt_comm_count_to(s->comm, dest, bytes, err) != 0)
                return -1;
            s->sent_bytes[rt_comm_tier_of(s->comm, dest)] += (double)bytes;
            s->sent_tiles += 1.0;
        }
    }
    return 0;
}

static int summa_run(void *state, double *seconds, rt_err *err)
{
    summa *s = state;
    const gemm_inputs *in = s->in;
    const int64_t t = s->t;
    *seconds = -1.0;
    int first = -1;
    char msg[512] = "";
    const int failed =
        gemm_fail_hook_agree(s->comm, s->fail_rank, s->rank, &first, msg, sizeof msg);
    if (failed < 0)
        return rt_err_set(err, KNAME ": failure agreement failed");
    if (failed)
        return rt_err_set(err, KNAME ": rank %d failed: %s", first, msg);
    memset(s->sent_bytes, 0, sizeof s->sent_bytes);
    s->sent_tiles = 0.0;
    int64_t *ea = malloc((size_t)(s->rows + 1) * sizeof *ea);
    int64_t *eb = malloc((size_t)(s->cols + 1) * sizeof *eb);
    if (!ea || !eb) {
        free(ea);
        free(eb);
        return rt_err_set(err, KNAME ": out of memory");
    }
    int rc = 0;
    for (int64_t k = 0; k < s->kt && rc == 0; ++k) {
        const int64_t kd = tile_len(in->k, t, k);
        for (int64_t il = 0; il < s->rows; ++il) {
            ea[il] = tile_len(in->m, t, s->u + s->p * il) * kd;
            if (k % s->q == s->v)
                memcpy(s->panel_a + (size_t)il * s->tile_bytes,
                       s->a_store + (size_t)(il * s->kq + k / s->q) * s->tile_bytes,
                       (size_t)ea[il] * s->elem);
        }
        for (int64_t jl = 0; jl < s->cols; ++jl) {
            eb[jl] = kd * tile_len(in->n, t, s->v + s->q * jl);
            if (k % s->p == s->u)
                memcpy(s->panel_b + (size_t)jl * s->tile_bytes,
                       s->b_store + (size_t)((k / s->p) * s->cols + jl) * s->tile_bytes,
                       (size_t)eb[jl] * s->elem);
        }
        if (bcast_tiles(s, s->panel_a, s->rows, ea, (int)(k % s->q), s->row_comm, s->v, s->q, 1,
                        err) != 0 ||
            bcast_tiles(s, s->panel_b, s->cols, eb, (int)(k % s->p), s->col_comm, s->u, s->p, 0,
                        err) != 0) {
            rc = -1;
            break;
        }
        for (int64_t il = 0; il < s->rows; ++il)
            for (int64_t jl = 0; jl < s->cols; ++jl) {
                const int64_t mi = tile_len(in->m, t, s->u + s->p * il);
                const int64_t nj = tile_len(in->n, t, s->v + s->q * jl);
                gemm_cpu_tile_product(in->prec, mi, nj, kd, s->panel_a + (size_t)il * s->tile_bytes,
                                      s->panel_b + (size_t)jl * s->tile_bytes,
                                      s->c_store + (size_t)(il * s->cols + jl) * s->tile_bytes,
                                      k > 0);
            }
    }
    free(ea);
    free(eb);
    return rc;
}

static int summa_output(void *state, double *out, rt_err *err)
{
    summa *s = state;
    return gemm_samples_gather(s->in, s->t, s->p, s->q, s->rank, s->c_store, s->cols, s->comm, out,
                               err);
}

static int summa_metrics(void *state, rt_metrics *m, rt_err *err)
{
    summa *s = state;
    double sum[4] = {s->sent_bytes[0], s->sent_bytes[1], s->sent_bytes[2], s->sent_tiles};
    if (MPI_Allreduce(MPI_IN_PLACE, sum, 4, MPI_DOUBLE, MPI_SUM,
                      rt_comm_mpi(s->comm, RT_COMM_WORLD)) != MPI_SUCCESS)
        return rt_err_set(err, KNAME ": summing the counters failed");
    rt_metrics_add(m, "grid_p", "count", s->p, 1);
    rt_metrics_add(m, "grid_q", "count", s->q, 1);
    rt_metrics_add(m, "mpi_tiles_sent", "count", sum[3], 1);
    static const char *const tiers[] = {"socket", "node", "global"};
    for (int k = 0; k < 3; ++k) {
        char name[64];
        snprintf(name, sizeof name, "net_bytes_%s_sum", tiers[k]);
        rt_metrics_add(m, name, "bytes", sum[k], 1);
    }
    return 0;
}

/* What this rank sends: for each k it owns in its row (k mod q = v), its A tiles of column k to
 * the q - 1 others; for each k it owns in its column (k mod p = u), its B tiles of row k to the
 * p - 1 others. */
static int summa_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                         const rt_kernel_env *env, rt_traffic *tr, rt_err *err)
{
    (void)self;
    const gemm_inputs *in = inputs;
    int64_t t, fail;
    int pr, pc;
    if (read_grid(in, p, env, &t, &fail, &pr, &pc, err) != 0)
        return -1;
    const int u = env->rank / pc, v = env->rank % pc;
    const int64_t mt = (in->m + t - 1) / t, nt = (in->n + t - 1) / t, kt = (in->k + t - 1) / t;
    const size_t elem = rt_precision_bytes(in->prec);
    double rows = 0, cols = 0;
    for (int64_t i = u; i < mt; i += pr)
        rows += (double)tile_len(in->m, t, i);
    for (int64_t j = v; j < nt; j += pc)
        cols += (double)tile_len(in->n, t, j);
    memset(tr, 0, sizeof *tr);
    tr->flops = 2.0 * rows * cols * (double)in->k;
    for (int64_t k = 0; k < kt; ++k) {
        const double kd = (double)tile_len(in->k, t, k);
        if (k % pc == v)
            for (int w = 0; w < pc; ++w)
                if (w != v) {
                    const int tier = env->comm ? rt_comm_tier_of(env->comm, u * pc + w) : 0;
                    tr->net_bytes[tier] += rows * kd * (double)elem;
                    tr->net_messages[tier] += (double)gemm_count_mod(mt, pr, u);
                }
        if (k % pr == u)
            for (int w = 0; w < pr; ++w)
                if (w != u) {
                    const int tier = env->comm ? rt_comm_tier_of(env->comm, w * pc + v) : 0;
                    tr->net_bytes[tier] += cols * kd * (double)elem;
                    tr->net_messages[tier] += (double)gemm_count_mod(nt, pc, v);
                }
    }
    return 0;
}

static const rt_kernel_desc summa_desc = RT_CPU_KERNEL(
    KNAME, "gemm", "bulk-synchronous SUMMA over MPI with the tiled kernels' tiles and grid (CBLAS)",
    summa_params, summa_check, summa_setup, summa_run, summa_output, summa_metrics, summa_teardown,
    summa_traffic);

const rt_kernel_desc *rt_gemm_cpu_summa_kernel(void)
{
    return &summa_desc;
}
