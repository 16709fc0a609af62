#include "dspmm_sender_common.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_schema.h"

int dspmm_sender_read_cfg(const rt_param_schema *schema, int n_schema, const char *kname,
                          const rt_params *p, dspmm_sender_cfg *cfg, rt_err *err)
{
    int64_t pb = 1;
    char name[32], fail_at[16];
    memset(cfg, 0, sizeof *cfg);
    if (rt_schema_int(schema, n_schema, kname, p, "p_batch", &pb, err) != 0 ||
        rt_schema_int(schema, n_schema, kname, p, "minibatch", &cfg->minibatch, err) != 0 ||
        rt_schema_int(schema, n_schema, kname, p, "stages", &cfg->stages, err) != 0 ||
        rt_schema_int(schema, n_schema, kname, p, "stage_buffers", &cfg->stage_buffers, err) != 0 ||
        rt_schema_str(schema, n_schema, kname, p, "comm", name, sizeof name, err) != 0 ||
        rt_schema_int(schema, n_schema, kname, p, "fail_rank", &cfg->fail_rank, err) != 0 ||
        rt_schema_str(schema, n_schema, kname, p, "fail_at", fail_at, sizeof fail_at, err) != 0)
        return -1;
    const int c = dspmm_comm_parse(name);
    if (c < 0)
        return rt_err_set(err, "%s: unknown comm '%s'", kname, name);
    cfg->p_batch = (int)pb;
    cfg->comm = (dspmm_comm_kind)c;
    cfg->fail_in_setup = strcmp(fail_at, "setup") == 0;
    return 0;
}

int dspmm_sender_check(const char *kname, const rt_dspmm_inputs *in, const dspmm_sender_cfg *cfg,
                       const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    if (!env || !env->comm)
        return rt_err_set(err, "%s: no communication layer (the kernel needs the MPI layer)",
                          kname);
    if (env->nranks % cfg->p_batch != 0) {
        snprintf(why, whylen, "p_batch = %d does not divide the %d ranks of the job", cfg->p_batch,
                 env->nranks);
        return RT_INFEASIBLE;
    }
    if (in && (int64_t)cfg->p_batch > in->spmm->k) {
        snprintf(why, whylen, "p_batch = %d exceeds K = %" PRId64, cfg->p_batch, in->spmm->k);
        return RT_INFEASIBLE;
    }
    return 0;
}

static void *alloc_elems(int64_t n, size_t esize)
{
    return malloc((size_t)(n > 0 ? n : 1) * esize);
}

/* The local multiply's operands: my level-0 rows restricted to my block of columns, and my rows of
 * B for my group's columns, copied once so the timed multiply reads only what the rank owns. */
static int build_local(dspmm_sender_base *b, rt_err *err)
{
    const rt_csr *a = b->in->spmm->a;
    const int64_t cs = b->grid.col_start[b->data], ce = b->grid.col_start[b->data + 1];
    const int64_t n0 = b->role.level_rows[0];
    b->lrowptr = malloc((size_t)(n0 + 1) * sizeof *b->lrowptr);
    if (!b->lrowptr)
        return rt_err_set(err, "%s: out of memory for the local matrix", b->kname);
    b->lrowptr[0] = 0;
    /* Columns are sorted within a row, so a row's part in [cs, ce) is one contiguous range. */
    for (int64_t r = 0; r < n0; ++r) {
        const int64_t i = b->role.level0_rows[r];
        int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
        while (lo < hi && a->colidx[lo] < cs)
            ++lo;
        int64_t e = lo;
        while (e < hi && a->colidx[e] < ce)
            ++e;
        b->lrowptr[r + 1] = b->lrowptr[r] + (e - lo);
    }
    b->lnnz = b->lrowptr[n0];
    b->lcol = malloc((size_t)(b->lnnz > 0 ? b->lnnz : 1) * sizeof *b->lcol);
    b->lval = alloc_elems(b->lnnz, b->esize);
    b->bcols = ce - cs;
    b->bblk = alloc_elems(b->bcols * b->kb, b->esize);
    if (!b->lcol || !b->lval || !b->bblk)
        return rt_err_set(err,
                          "%s: out of memory for the local matrix (%" PRId64 " nonzeros) or B "
                          "block (%" PRId64 " x %" PRId64 ")",
                          b->kname, b->lnnz, b->bcols, b->kb);
    for (int64_t r = 0; r < n0; ++r) {
        const int64_t i = b->role.level0_rows[r];
        int64_t lo = a->rowptr[i];
        while (lo < a->rowptr[i + 1] && a->colidx[lo] < cs)
            ++lo;
        for (int64_t e = b->lrowptr[r]; e < b->lrowptr[r + 1]; ++e, ++lo) {
            b->lcol[e] = (int32_t)(a->colidx[lo] - cs);
            if (b->prec == RT_FP32)
                ((float *)b->lval)[e] = (float)a->val[lo];
            else
                ((double *)b->lval)[e] = a->val[lo];
        }
    }
    const rt_dense *bd = &b->in->spmm->b;
    for (int64_t j = 0; j < b->bcols; ++j)
        for (int64_t t = 0; t < b->kb; ++t) {
            const int64_t from = (cs + j) * bd->ld + b->k0 + t, to = j * b->kb + t;
            if (b->prec == RT_FP32)
                ((float *)b->bblk)[to] = ((const float *)bd->data)[from];
            else
                ((double *)b->bblk)[to] = ((const double *)bd->data)[from];
        }
    return 0;
}

int dspmm_sender_base_init(dspmm_sender_base *b, const char *kname, const rt_dspmm_inputs *in,
                           const rt_kernel_env *env, const dspmm_sender_cfg *cfg, rt_err *err)
{
    memset(b, 0, sizeof *b);
    b->kname = kname;
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: no inputs or no communication layer", kname);
    if (in->rank != env->rank || in->nranks != env->nranks)
        return rt_err_set(err,
                          "%s: the inputs were made for rank %d of %d, the kernel runs as rank "
                          "%d of %d",
                          kname, in->rank, in->nranks, env->rank, env->nranks);
    b->in = in;
    b->comm = env->comm;
    b->mpi = rt_comm_mpi(b->comm, RT_COMM_WORLD);
    b->rank = env->rank;
    b->nranks = env->nranks;
    b->prec = in->spmm->prec;
    b->esize = rt_precision_bytes(b->prec);
    b->fail_run = cfg->fail_rank == env->rank && !cfg->fail_in_setup;
    char why[256] = "";
    if (dspmm_topo_from_comm(b->comm, &b->topo, err) != 0)
        return -1;
    const int rc = dspmm_grid_build(in->spmm->a, in->spmm->k, cfg->p_batch, &b->topo, &b->grid, why,
                                    sizeof why, err);
    if (rc == RT_INFEASIBLE)
        rt_err_set(err, "%s", why);
    if (rc != 0)
        return rc;
    b->batch = dspmm_grid_batch_of(&b->grid, b->rank);
    b->data = dspmm_grid_data_of(&b->grid, b->rank);
    b->k0 = b->grid.k_start[b->batch];
    b->kb = b->grid.k_start[b->batch + 1] - b->k0;
    b->minibatch = cfg->minibatch;
    b->chunks = dspmm_chunks(b->kb, cfg->minibatch, cfg->stages);
    b->chunk_max = dspmm_chunk_max(b->kb, b->chunks);
    b->stage_buffers = (int)cfg->stage_buffers;
    if (dspmm_plan_build(in->spmm->a, &b->grid, b->batch, &b->topo, cfg->comm, &b->plan, err) !=
            0 ||
        dspmm_role_build(&b->plan, b->data, &b->role, err) != 0 || build_local(b, err) != 0)
        return rt_err_prefix(err, "%s", kname);
    /* MPI counts are ints: a message of more than INT_MAX bytes needs a smaller minibatch. */
    for (int k = 0; k < b->plan.hops; ++k) {
        const dspmm_hop_role *h = &b->role.hop[k];
        for (int i = 0; i < h->n_send + h->n_recv; ++i) {
            const dspmm_xfer *x = i < h->n_send ? &h->send[i] : &h->recv[i - h->n_send];
            if ((double)x->rows * (double)b->chunk_max * (double)b->esize > (double)INT_MAX) {
                rt_err_set(err,
                           "a message of %" PRId64 " rows x %" PRId64 " columns exceeds the "
                           "2 GiB an MPI count can address: use a smaller minibatch",
                           x->rows, b->chunk_max);
                return RT_INFEASIBLE;
            }
        }
    }
    b->pair_bytes = calloc((size_t)b->nranks, sizeof *b->pair_bytes);
    if (!b->pair_bytes)
        return rt_err_set(err, "%s: out of memory", kname);
    return 0;
}

void dspmm_sender_base_free(dspmm_sender_base *b)
{
    dspmm_role_free(&b->role);
    dspmm_plan_free(&b->plan);
    dspmm_grid_free(&b->grid);
    dspmm_topo_free(&b->topo);
    free(b->lrowptr);
    free(b->lcol);
    free(b->lval);
    free(b->bblk);
    free(b->pair_bytes);
    b->lrowptr = NULL;
    b->lcol = NULL;
    b->lval = NULL;
    b->bblk = NULL;
    b->pair_bytes = NULL;
}

void dspmm_sender_begin(dspmm_sender_base *b)
{
    memset(b->tally_bytes, 0, sizeof b->tally_bytes);
    memset(b->tally_msgs, 0, sizeof b->tally_msgs);
    memset(b->pair_bytes, 0, (size_t)b->nranks * sizeof *b->pair_bytes);
    b->t_begin = rt_clock_now();
}

void dspmm_sender_chunk(const dspmm_sender_base *b, int64_t ch, int64_t *c0, int64_t *w)
{
    dspmm_chunk_cols(b->kb, b->chunks, ch, c0, w);
}

void dspmm_sender_add_busy(dspmm_sender_base *b, const dspmm_busy *busy)
{
    for (int ph = 0; ph < DSPMM_PH_COUNT; ++ph)
        b->t_busy[ph] += busy->phase[ph];
    b->t_busy_sum += busy->sum;
    b->t_busy_union += busy->uni;
    b->t_busy_overlap += busy->sum - busy->uni;
}

double dspmm_pipeline_model(int64_t chunks, double compute_s, double communicate_s)
{
    const double slow = compute_s > communicate_s ? compute_s : communicate_s;
    const double fast = compute_s > communicate_s ? communicate_s : compute_s;
    return (double)chunks * slow + fast;
}

int dspmm_sender_count(dspmm_sender_base *b, int peer, int64_t bytes, rt_err *err)
{
    rt_err cerr;
    rt_err_clear(&cerr);
    const int tier = rt_comm_tier_of(b->comm, peer);
    if (tier < 0 || rt_comm_count_to(b->comm, peer, bytes, &cerr) != 0)
        return rt_err_set(err, "%s: counting a message to rank %d (%s)", b->kname, peer, cerr.msg);
    b->tally_bytes[tier] += bytes;
    b->tally_msgs[tier] += 1;
    b->pair_bytes[peer] += bytes;
    return 0;
}

void dspmm_exec_fail_mpi(dspmm_exec_ctx *x, const char *who, const char *what, int rc)
{
    if (!x->ok)
        return;
    x->ok = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
    rt_err_set(&x->err, "%s: %s%s%s", who, what, text[0] ? ": " : "", text);
}

int dspmm_sender_finish(dspmm_sender_base *b, int ok, const rt_err *local, rt_err *err)
{
    b->t_wall += rt_clock_now() - b->t_begin;
    rt_err mine;
    rt_err_clear(&mine);
    if (!ok && local)
        mine = *local;
    b->n_exec++;
    if (b->fail_run && ok) {
        ok = 0;
        rt_err_set(&mine, "%s: injected failure on rank %d (test hook fail_rank)", b->kname,
                   b->rank);
    }
    /* Every rank has sent and received everything; agree before anyone moves on, so a failure
     * here fails this execution on every rank (and no rank enters the output exchange alone). */
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(b->comm, ok, mine.msg, &all_ok, &first, msg, sizeof msg) != 0)
        return rt_err_set(err, "%s: agreeing on the execution's success failed: %s", b->kname,
                          rt_comm_last_error(b->comm));
    if (all_ok)
        return 0;
    if (!ok) {
        *err = mine;
        return -1;
    }
    return rt_err_set(err, "rank %d failed in the same execution: %s", first, msg);
}

/* ---- Output: my block of C moved to the family's canonical row blocks -------------------- */

static void free_all(int64_t *cstart, int *scount, int *sdispl, int *rcount, int *rdispl,
                     double *sbuf, double *rbuf)
{
    free(cstart);
    free(scount);
    free(sdispl);
    free(rcount);
    free(rdispl);
    free(sbuf);
    free(rbuf);
}

int dspmm_sender_output(const dspmm_sender_base *b, const void *c, double *out, rt_err *err)
{
    const rt_csr *a = b->in->spmm->a;
    const int n = b->nranks;
    const int64_t k = b->in->spmm->k;
    const int64_t r0 = b->role.c_row0, r1 = r0 + b->role.c_rows;
    int64_t *cstart = malloc((size_t)(n + 1) * sizeof *cstart);
    int *scount = calloc((size_t)n, sizeof(int)), *sdispl = calloc((size_t)n, sizeof(int));
    int *rcount = calloc((size_t)n, sizeof(int)), *rdispl = calloc((size_t)n, sizeof(int));
    double *sbuf =
        malloc((size_t)(b->role.c_rows * b->kb > 0 ? b->role.c_rows * b->kb : 1) * sizeof(double));
    const int64_t my0 = b->in->c_row0, my1 = b->in->c_row1;
    double *rbuf = malloc((size_t)((my1 - my0) * k > 0 ? (my1 - my0) * k : 1) * sizeof(double));
    int ok = cstart && scount && sdispl && rcount && rdispl && sbuf && rbuf;
    const char *why = ok ? "" : "out of memory";
    if (!c) {
        ok = 0;
        why = "its rows of C could not be read";
    }
    if (ok) {
        dspmm_split_weighted(a->rowptr, a->rows, n, cstart);
        int64_t so = 0, ro = 0;
        for (int t = 0; t < n && ok; ++t) {
            /* To canonical owner t: my rows inside its block, my group's columns. */
            const int64_t lo = r0 > cstart[t] ? r0 : cstart[t],
                          hi = r1 < cstart[t + 1] ? r1 : cstart[t + 1];
            const int64_t cnt = hi > lo ? (hi - lo) * b->kb : 0;
            /* From rank t: its data rows inside my block, its group's columns. */
            const int tb = dspmm_grid_batch_of(&b->grid, t), td = dspmm_grid_data_of(&b->grid, t);
            const int64_t tlo = b->grid.row_start[td] > my0 ? b->grid.row_start[td] : my0;
            const int64_t thi = b->grid.row_start[td + 1] < my1 ? b->grid.row_start[td + 1] : my1;
            const int64_t tk = b->grid.k_start[tb + 1] - b->grid.k_start[tb];
            const int64_t rcnt = thi > tlo ? (thi - tlo) * tk : 0;
            if (so + cnt > INT_MAX || ro + rcnt > INT_MAX) {
                ok = 0;
                why = "its block exceeds 2^31 values";
                break;
            }
            scount[t] = (int)cnt;
            sdispl[t] = (int)so;
            rcount[t] = (int)rcnt;
            rdispl[t] = (int)ro;
            for (int64_t i = lo; i < hi; ++i)
                for (int64_t j = 0; j < b->kb; ++j) {
                    const int64_t at = (i - r0) * b->kb + j;
                    sbuf[so++] = b->prec == RT_FP32 ? (double)((const float *)c)[at]
                                                    : ((const double *)c)[at];
                }
            ro += rcnt;
        }
    }
    /* Collective from here: agree first, so a rank short of memory does not strand the others. */
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX] = "";
    if (rt_comm_all_ok_msg(b->comm, ok, why, &all_ok, &first, msg, sizeof msg) != 0 || !all_ok) {
        free_all(cstart, scount, sdispl, rcount, rdispl, sbuf, rbuf);
        return rt_err_set(err, "%s: output exchange: rank %d: %s", b->kname, first,
                          msg[0] ? msg : rt_comm_last_error(b->comm));
    }
    const int rc =
        MPI_Alltoallv(sbuf, scount, sdispl, MPI_DOUBLE, rbuf, rcount, rdispl, MPI_DOUBLE, b->mpi);
    if (rc == MPI_SUCCESS) {
        for (int t = 0; t < n; ++t) {
            const int tb = dspmm_grid_batch_of(&b->grid, t), td = dspmm_grid_data_of(&b->grid, t);
            const int64_t tlo = b->grid.row_start[td] > my0 ? b->grid.row_start[td] : my0;
            const int64_t thi = b->grid.row_start[td + 1] < my1 ? b->grid.row_start[td + 1] : my1;
            const int64_t tk0 = b->grid.k_start[tb], tk = b->grid.k_start[tb + 1] - tk0;
            int64_t at = rdispl[t];
            for (int64_t i = tlo; i < thi; ++i)
                for (int64_t j = 0; j < tk; ++j)
                    out[(i - my0) * k + tk0 + j] = rbuf[at++];
        }
    }
    free_all(cstart, scount, sdispl, rcount, rdispl, sbuf, rbuf);
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "%s: output exchange (MPI_Alltoallv) failed", b->kname);
    return 0;
}

/* ---- Metrics ---------------------------------------------------------------------------- */

static const char *const tier_names[RT_TIER_COUNT] = {"socket", "node", "global"};

int dspmm_sender_metrics(const dspmm_sender_base *b, const char *staging_why, rt_metrics *m,
                         rt_err *err)
{
    /* Collective: every rank reaches the metrics hook of a timed point. */
    int64_t local[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS], hi[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS],
        sum[2 * RT_TIER_COUNT + DSPMM_MAX_HOPS];
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        local[t] = b->tally_bytes[t];
        local[RT_TIER_COUNT + t] = b->tally_msgs[t];
    }
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        local[2 * RT_TIER_COUNT + k] =
            k < b->plan.hops ? b->role.level_rows[k] * b->kb * (int64_t)b->esize : 0;
    const int nv = 2 * RT_TIER_COUNT + DSPMM_MAX_HOPS;
    /* times: kernel, reduce, hops, staging, then wall, phase sum and pipeline model of this rank
     * (each reduced by its maximum over the ranks). */
    enum {
        T_WALL = 3 + DSPMM_MAX_HOPS,
        T_SUM,
        T_MODEL,
        T_BUSY, /* DSPMM_PH_COUNT phases, then their sum, union and overlap */
        T_BUSY_SUM = T_BUSY + DSPMM_PH_COUNT,
        T_BUSY_UNION,
        T_BUSY_OVERLAP,
        N_TIMES
    };
    double times[N_TIMES];
    const double execs = b->n_exec > 0 ? (double)b->n_exec : 1.0;
    times[0] = b->t_kernel / execs;
    times[1] = b->t_reduce / execs;
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        times[2 + k] = b->t_hop[k] / execs;
    times[2 + DSPMM_MAX_HOPS] = b->t_staging / execs;
    double comm_s = times[1] + times[2 + DSPMM_MAX_HOPS];
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        comm_s += times[2 + k];
    times[T_WALL] = b->t_wall / execs;
    times[T_SUM] = times[0] + comm_s;
    const double per_stage = (double)b->chunks;
    times[T_MODEL] = dspmm_pipeline_model(b->chunks, times[0] / per_stage, comm_s / per_stage);
    for (int ph = 0; ph < DSPMM_PH_COUNT; ++ph)
        times[T_BUSY + ph] = b->t_busy[ph] / execs;
    times[T_BUSY_SUM] = b->t_busy_sum / execs;
    times[T_BUSY_UNION] = b->t_busy_union / execs;
    times[T_BUSY_OVERLAP] = b->t_busy_overlap / execs;
    const int n = b->nranks;
    const int want_mat = n <= DSPMM_COMMMAT_MAX_RANKS;
    int64_t mat[DSPMM_COMMMAT_MAX_RANKS * DSPMM_COMMMAT_MAX_RANKS];
    int64_t mat_sum[DSPMM_COMMMAT_MAX_RANKS * DSPMM_COMMMAT_MAX_RANKS];
    if (want_mat) {
        memset(mat, 0, sizeof mat);
        for (int j = 0; j < n; ++j)
            mat[b->rank * n + j] = b->pair_bytes[j];
    }
    int rc = MPI_Allreduce(local, hi, nv, MPI_INT64_T, MPI_MAX, b->mpi);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(local, sum, nv, MPI_INT64_T, MPI_SUM, b->mpi);
    if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(MPI_IN_PLACE, times, N_TIMES, MPI_DOUBLE, MPI_MAX, b->mpi);
    if (rc == MPI_SUCCESS && want_mat)
        rc = MPI_Allreduce(mat, mat_sum, n * n, MPI_INT64_T, MPI_SUM, b->mpi);
    if (rc != MPI_SUCCESS)
        return rt_err_set(err, "%s: reducing the traffic metrics failed", b->kname);

    char name[64];
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        snprintf(name, sizeof name, "comm_bytes_%s_max", tier_names[t]);
        rt_metrics_add(m, name, "bytes", (double)hi[t], 1);
        snprintf(name, sizeof name, "comm_bytes_%s_total", tier_names[t]);
        rt_metrics_add(m, name, "bytes", (double)sum[t], 1);
        snprintf(name, sizeof name, "comm_msgs_%s_max", tier_names[t]);
        rt_metrics_add(m, name, "count", (double)hi[RT_TIER_COUNT + t], 1);
        snprintf(name, sizeof name, "comm_msgs_%s_total", tier_names[t]);
        rt_metrics_add(m, name, "count", (double)sum[RT_TIER_COUNT + t], 1);
    }
    rt_metrics_add(m, "p_data", "count", (double)b->grid.p_data, 1);
    rt_metrics_add(m, "p_batch", "count", (double)b->grid.p_batch, 1);
    rt_metrics_add(m, "chunks", "count", (double)b->chunks, 1);
    for (int k = 0; k < b->plan.hops; ++k) {
        snprintf(name, sizeof name, "partial_bytes_l%d", k);
        rt_metrics_add(m, name, "bytes", (double)sum[2 * RT_TIER_COUNT + k], 1);
    }
    rt_metrics_add(m, "time_kernel_s", "s", times[0], 0);
    rt_metrics_add(m, "time_reduce_s", "s", times[1], 0);
    for (int k = 0; k < b->plan.hops; ++k) {
        snprintf(name, sizeof name, "time_%s_s", dspmm_hop_phase(&b->plan, k));
        rt_metrics_add(m, name, "s", times[2 + k], 0);
    }
    if (staging_why)
        rt_metrics_unavailable(m, "time_staging_s", "s", staging_why);
    else
        rt_metrics_add(m, "time_staging_s", "s", times[2 + DSPMM_MAX_HOPS], 0);
    /* The overlap: the largest phase sum over the ranks less the largest wall time (0 when
     * nothing overlapped; host-timed phases never overlap one another on one rank, the GPU
     * multiply's device time may overlap them). */
    rt_metrics_add(m, "stage_buffers", "count", (double)b->stage_buffers, 1);
    rt_metrics_add(m, "time_wall_s", "s", times[T_WALL], 0);
    rt_metrics_add(m, "time_phases_sum_s", "s", times[T_SUM], 0);
    rt_metrics_add(m, "time_overlap_s", "s",
                   times[T_SUM] > times[T_WALL] ? times[T_SUM] - times[T_WALL] : 0.0, 0);
    rt_metrics_add(m, "pipeline_model_s", "s", times[T_MODEL], 0);
    rt_metrics_add(m, "pipeline_model_ratio", "ratio",
                   times[T_MODEL] > 0 ? times[T_WALL] / times[T_MODEL] : 0.0, 0);
    /* The timeline's busy times (each the maximum over the ranks; the overlap is each rank's sum
     * less its union, so device work that ran at once shows here, unlike time_overlap_s). Every
     * rank of one point takes the same branch: the timeline depends only on the plan. */
    for (int ph = 0; b->timeline != 0 && ph <= DSPMM_PH_COUNT + 2; ++ph) {
        const char *stem = ph < DSPMM_PH_COUNT        ? dspmm_phase_name((dspmm_phase)ph)
                           : ph == DSPMM_PH_COUNT     ? "sum"
                           : ph == DSPMM_PH_COUNT + 1 ? "union"
                                                      : "overlap";
        snprintf(name, sizeof name, "time_busy_%s_s", stem);
        if (b->timeline == 1)
            rt_metrics_add(m, name, "s", times[T_BUSY + ph], 0);
        else
            rt_metrics_unavailable(m, name, "s", b->timeline_why ? b->timeline_why : "not kept");
    }
    /* The pair matrix only when it fits beside what the runner adds after this hook (the
     * roofline model's metrics and the config's counters). */
    int entries = 0;
    if (want_mat)
        for (int i = 0; i < n * n; ++i)
            entries += mat_sum[i] != 0 && i / n != i % n;
    const int reserve = 16;
    const int stored = want_mat && m->n + 1 + entries <= RT_MAX_METRICS - reserve;
    rt_metrics_add(m, "commmat_stored", "flag", stored ? 1.0 : 0.0, 1);
    if (stored)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (i != j && mat_sum[i * n + j] != 0) {
                    snprintf(name, sizeof name, "commmat_%s_%d_%d",
                             tier_names[dspmm_topo_tier(&b->topo, i, j)], i, j);
                    rt_metrics_add(m, name, "bytes", (double)mat_sum[i * n + j], 1);
                }
    return 0;
}

/* ---- Traffic model ------------------------------------------------------------------------ */

int dspmm_sender_traffic(const char *kname, const rt_dspmm_inputs *in, const dspmm_sender_cfg *cfg,
                         const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    memset(t, 0, sizeof *t);
    if (!in || !env || !env->comm)
        return rt_err_set(err, "%s: traffic model needs inputs and the communication layer", kname);
    dspmm_topo topo;
    dspmm_grid grid;
    dspmm_plan plan;
    memset(&grid, 0, sizeof grid);
    memset(&plan, 0, sizeof plan);
    char why[256] = "";
    dspmm_tally *per = NULL;
    int rc = dspmm_topo_from_comm(env->comm, &topo, err);
    if (rc == 0) {
        rc = dspmm_grid_build(in->spmm->a, in->spmm->k, cfg->p_batch, &topo, &grid, why, sizeof why,
                              err);
        if (rc == RT_INFEASIBLE)
            rc = rt_err_set(err, "%s: %s", kname, why);
    }
    const int me = env->rank;
    const int batch = rc == 0 ? dspmm_grid_batch_of(&grid, me) : 0;
    if (rc == 0)
        rc = dspmm_plan_build(in->spmm->a, &grid, batch, &topo, cfg->comm, &plan, err);
    if (rc == 0) {
        per = calloc((size_t)topo.nranks, sizeof *per);
        rc = per ? 0 : rt_err_set(err, "%s: out of memory", kname);
    }
    const size_t esize = rt_precision_bytes(in->spmm->prec);
    if (rc == 0)
        rc = dspmm_plan_tally(&plan, &topo, -1, esize, cfg->minibatch, cfg->stages, per, NULL, err);
    if (rc == 0) {
        /* The network: what this rank sends per tier (the runner takes the busiest rank's
         * bound). Memory: compulsory bytes of this rank: its block of A, its rows of B, its
         * partial rows written once, its rows of C written once. */
        const rt_csr *a = in->spmm->a;
        const int d = dspmm_grid_data_of(&grid, me);
        const int64_t cs = grid.col_start[d], ce = grid.col_start[d + 1];
        const int64_t kb = grid.k_start[batch + 1] - grid.k_start[batch];
        int64_t nnz = 0;
        for (int64_t e = 0; e < a->nnz; ++e)
            nnz += a->colidx[e] >= cs && a->colidx[e] < ce;
        const dspmm_level *l0 = &plan.level[0];
        const int64_t n0 = l0->holder_row[d + 1] - l0->holder_row[d];
        const int64_t crows = grid.row_start[d + 1] - grid.row_start[d];
        const double eb = (double)esize;
        t->flops = 2.0 * (double)nnz * (double)kb;
        t->bytes[RT_LEVEL_DRAM] = (double)nnz * (eb + 4.0) + (double)(n0 + 1) * 8.0 +
                                  (double)(ce - cs) * (double)kb * eb +
                                  (double)n0 * (double)kb * eb + (double)crows * (double)kb * eb;
        for (int tr = 0; tr < RT_TIER_COUNT; ++tr) {
            t->net_bytes[tr] = (double)per[me].bytes[tr];
            t->net_messages[tr] = (double)per[me].msgs[tr];
        }
    }
    free(per);
    dspmm_plan_free(&plan);
    dspmm_grid_free(&grid);
    dspmm_topo_free(&topo);
    return rc == 0 ? 0 : -1;
}
