#include "sp2_setup.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sp2_accum.h"
#include "sp2_state.h"
#include "sp2_stationary.h"
#include "sp2_steal.h"

/* ---------------------------------------------------------------------------------------------
 * Life cycle */

static void free_local(sp2_state *s)
{
    free(s->a_nnz);
    free(s->col_nonempty);
    free(s->c_tiles);
    free(s->c_slot);
    free(s->c_off);
    free(s->c_data);
    for (int q = 0; s->c_acc && q < s->n_c; ++q)
        sp2_spacc_free(&s->c_acc[q]);
    for (int q = 0; s->c_csr && q < s->n_c; ++q)
        sp2_csrbuf_free(&s->c_csr[q]);
    free(s->c_acc);
    free(s->c_csr);
    sp2_spa_free(&s->spa);
    sp2_csrbuf_free(&s->part);
    free(s->part_dense);
    free(s->c_rows_of);
    free(s->c_cols_of);
    free(s->ops_a);
    free(s->ops_b);
    for (int q = 0; q < 2; ++q) {
        free(s->stage_a[q]);
        free(s->stage_b[q]);
    }
    free(s->items);
    free(s->cand);
    free(s->task_seen);
    free(s->task_all);
    free(s->bc_a);
    free(s->bc_b);
    free(s->blk_a);
    free(s->blk_b);
    free(s->stage_flops);
}

/* Frees everything; the collective objects in the same order on every rank. */
void sp2_teardown(void *state)
{
    sp2_state *s = state;
    if (!s)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) {
        if (s->row_comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->row_comm);
        if (s->col_comm != MPI_COMM_NULL)
            MPI_Comm_free(&s->col_comm);
    }
    if (s->eng && s->es)
        s->eng->teardown(s->es); /* device state and pinned host buffers, before they are freed */
    sp2_workgrid_free(s->wg);
    sp2_queue_free(s->queue);
    if (s->have_b)
        sp2_dmat_free(&s->B);
    if (s->have_a)
        sp2_dmat_free(&s->A);
    free_local(s);
    free(s);
}

static double b_value_fn(const void *ctx, int64_t row, int64_t col)
{
    const sp2_inputs *in = ctx;
    return sp2_b_value(in->seed, row, col);
}

/* Local structures (no communication); failures are agreed on by the caller. */
static int build_local(sp2_state *s, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int64_t ntiles_a = (int64_t)L->MT * L->KT, ntiles_c = (int64_t)L->MT * L->NT;
    s->a_nnz = malloc((size_t)ntiles_a * sizeof *s->a_nnz);
    s->col_nonempty = calloc((size_t)L->KT, sizeof *s->col_nonempty);
    s->c_slot = malloc((size_t)ntiles_c * sizeof *s->c_slot);
    s->c_tiles = malloc((size_t)ntiles_c * sizeof *s->c_tiles);
    s->stage_flops = calloc((size_t)L->KT, sizeof *s->stage_flops);
    if (!s->a_nnz || !s->col_nonempty || !s->c_slot || !s->c_tiles || !s->stage_flops)
        return rt_err_set(err, "out of memory for the tile maps");
    for (int i = 0; i < L->MT; ++i)
        for (int k = 0; k < L->KT; ++k) {
            const int64_t nnz = sp2_dmat_info(&s->A, i, k)->nnz;
            s->a_nnz[(int64_t)i * L->KT + k] = nnz;
            if (nnz > 0)
                s->col_nonempty[k] = 1;
        }
    s->n_c = 0;
    for (int64_t t = 0; t < ntiles_c; ++t) {
        const int i = (int)(t / L->NT), j = (int)(t % L->NT);
        s->c_slot[t] = -1;
        if (sp2_owner(L, SP2_OWN_C, i, j) == L->me) {
            s->c_slot[t] = s->n_c;
            s->c_tiles[s->n_c++] = (int)t;
        }
        const int64_t r = sp2_c_rows(s, i), c = sp2_c_cols(s, j);
        if (r > s->max_c_rows)
            s->max_c_rows = r;
        if (c > s->max_c_cols)
            s->max_c_cols = c;
    }
    const size_t nc = (size_t)(s->n_c > 0 ? s->n_c : 1);
    if (!s->spgemm) {
        s->c_off = malloc(nc * sizeof *s->c_off);
        if (!s->c_off)
            return rt_err_set(err, "out of memory for the C tile map");
        s->c_elems = 0;
        for (int q = 0; q < s->n_c; ++q) {
            s->c_off[q] = s->c_elems;
            s->c_elems +=
                sp2_c_rows(s, s->c_tiles[q] / L->NT) * sp2_c_cols(s, s->c_tiles[q] % L->NT);
        }
        s->c_data = calloc((size_t)(s->c_elems > 0 ? s->c_elems : 1), s->eb);
        s->part_bytes = (size_t)(s->max_c_rows * s->max_c_cols) * s->eb;
        s->part_dense = malloc(s->part_bytes);
        if (!s->c_data || !s->part_dense)
            return rt_err_set(err, "out of memory for C (%lld values)", (long long)s->c_elems);
    } else {
        s->c_acc = calloc(nc, sizeof *s->c_acc);
        s->c_csr = calloc(nc, sizeof *s->c_csr);
        if (!s->c_acc || !s->c_csr)
            return rt_err_set(err, "out of memory for the C accumulators");
        for (int q = 0; q < s->n_c; ++q)
            sp2_spacc_init(&s->c_acc[q], s->prec, sp2_c_rows(s, s->c_tiles[q] / L->NT),
                           sp2_c_cols(s, s->c_tiles[q] % L->NT), err);
        if (sp2_spa_init(&s->spa, s->prec, s->max_c_cols, err) != 0)
            return -1;
    }
    s->c_rows_of = malloc(nc * sizeof *s->c_rows_of);
    s->c_cols_of = malloc(nc * sizeof *s->c_cols_of);
    if (!s->c_rows_of || !s->c_cols_of)
        return rt_err_set(err, "out of memory for the C tile shapes");
    for (int q = 0; q < s->n_c; ++q) {
        s->c_rows_of[q] = sp2_c_rows(s, s->c_tiles[q] / L->NT);
        s->c_cols_of[q] = sp2_c_cols(s, s->c_tiles[q] % L->NT);
    }
    if (sp2_is_rdma(s->alg)) {
        s->stage_a_bytes = (size_t)(s->A.max_bytes > 0 ? s->A.max_bytes : 8);
        s->stage_b_bytes = (size_t)(s->B.max_bytes > 0 ? s->B.max_bytes : 8);
        for (int q = 0; q < 2; ++q) {
            s->stage_a[q] = malloc(s->stage_a_bytes);
            s->stage_b[q] = malloc(s->stage_b_bytes);
            if (!s->stage_a[q] || !s->stage_b[q])
                return rt_err_set(err, "out of memory for the staging buffers");
        }
    } else {
        const int nb = s->alg == SP2_ALG_SUMMA_A ? L->KT / L->pc : L->refine;
        s->bc_a_bytes = (size_t)(L->refine * (s->A.max_bytes > 0 ? s->A.max_bytes : 8));
        s->bc_b_bytes = (size_t)(nb * (s->B.max_bytes > 0 ? s->B.max_bytes : 8));
        s->bc_a = malloc(s->bc_a_bytes);
        s->bc_b = malloc(s->bc_b_bytes);
        s->blk_a = calloc((size_t)L->refine, sizeof *s->blk_a);
        s->blk_b = calloc((size_t)nb, sizeof *s->blk_b);
        s->ops_a = calloc((size_t)nb, sizeof *s->ops_a);
        s->ops_b = calloc((size_t)nb, sizeof *s->ops_b);
        if (!s->bc_a || !s->bc_b || !s->blk_a || !s->blk_b || !s->ops_a || !s->ops_b)
            return rt_err_set(err, "out of memory for the broadcast buffers");
    }

    if ((s->alg == SP2_ALG_SC || s->alg == SP2_ALG_SA || s->alg == SP2_ALG_SB) &&
        sp2_stationary_build_items(s, err) != 0)
        return -1;
    if (sp2_is_ws(s->alg) && sp2_steal_build(s, err) != 0)
        return -1;
    return 0;
}

static int sp2_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                     const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    const sp2_kind_info *kd = sp2_kind_of(self);
    const sp2_inputs *in = inputs;
    if (!kd)
        return rt_err_set(err, "%s: not a 2D kernel of this build", self->name);
    if (!in || in->spgemm != kd->spgemm)
        return rt_err_set(err, "%s: inputs of the wrong family", self->name);
    if (!env || !env->comm)
        return rt_err_set(err, "%s: needs the MPI layer (env->comm)", self->name);
    if (env->nranks != in->nranks || env->rank != in->rank)
        return rt_err_set(err, "%s: inputs were built for rank %d of %d, this is rank %d of %d",
                          self->name, in->rank, in->nranks, env->rank, env->nranks);
    sp2_opts o;
    if (sp2_read_opts(self, p, &o, err) != 0)
        return -1;
    sp2_layout L;
    if (sp2_layout_init(&L, env->nranks, env->rank, o.pr, o.refine, in->a->rows, in->a->cols, in->n,
                        why, whylen) != 0)
        return RT_INFEASIBLE;
    if (sp2_is_ws(kd->alg) && (int64_t)L.MT * L.KT * L.NT > ((int64_t)1 << 24)) {
        snprintf(why, whylen, "a %d x %d x %d work grid is too large to check task by task", L.MT,
                 L.KT, L.NT);
        return RT_INFEASIBLE;
    }
    const int64_t max_tile = (L.m / L.MT + 1) * (L.n / L.NT + 1);
    if (kd->alg == SP2_ALG_SUMMA_A && max_tile > INT_MAX) {
        snprintf(why, whylen, "C tiles of %lld values exceed one MPI_Reduce", (long long)max_tile);
        return RT_INFEASIBLE;
    }
    return 0;
}

/* The engine's setup, agreed on: an error on any rank fails every rank; otherwise a rank whose
 * engine cannot hold the point (device memory) makes it infeasible everywhere. Returns 0, -1 or
 * RT_INFEASIBLE. */
static int setup_engine(sp2_state *s, void *backend, rt_err *err)
{
    sp2_engine_setup info;
    memset(&info, 0, sizeof info);
    info.kernel = s->desc->name;
    info.prec = s->prec;
    info.spgemm = s->spgemm;
    info.A = &s->A;
    info.B = &s->B;
    info.n_c = s->n_c;
    info.c_rows = s->c_rows_of;
    info.c_cols = s->c_cols_of;
    info.c_off = s->c_off;
    info.c_elems = s->c_elems;
    info.max_c_rows = s->max_c_rows;
    info.max_c_cols = s->max_c_cols;
    void *const bufs[] = {s->stage_a[0], s->stage_a[1], s->stage_b[0], s->stage_b[1],
                          s->bc_a,       s->bc_b,       s->part_dense};
    const size_t bytes[] = {s->stage_a_bytes, s->stage_a_bytes, s->stage_b_bytes, s->stage_b_bytes,
                            s->bc_a_bytes,    s->bc_b_bytes,    s->part_bytes};
    for (size_t q = 0; q < sizeof bufs / sizeof bufs[0]; ++q)
        if (bufs[q] && bytes[q] > 0) {
            info.bufs[info.n_bufs] = bufs[q];
            info.buf_bytes[info.n_bufs++] = bytes[q];
        }
    const int rc = s->eng->setup(backend, &info, &s->es, err);
    if (sp2_agree(s->comm, rc != -1, err) != 0)
        return -1;
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(s->comm, rc == 0, rc == 0 ? NULL : err->msg, &all_ok, &first, msg,
                           sizeof msg) != 0)
        return rt_err_set(err, "agreeing on the %s engine's setup: %s", s->eng->name,
                          rt_comm_last_error(s->comm));
    if (!all_ok) {
        rt_err_set(err, "rank %d: %s", first, msg);
        return RT_INFEASIBLE;
    }
    return 0;
}

int sp2_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
              const rt_kernel_env *env, void **state, rt_err *err)
{
    return sp2_setup_with_engine(self, inputs, p, env, sp2_cpu_engine(), NULL, state, err);
}

int sp2_setup_with_engine(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                          const rt_kernel_env *env, const sp2_engine *eng, void *backend,
                          void **state, rt_err *err)
{
    *state = NULL;
    if (!eng)
        return rt_err_set(err, "%s: no engine for the local multiplies", self->name);
    if (!env || !env->comm)
        return rt_err_set(err, "%s: needs the MPI layer (env->comm)", self->name);
    rt_comm *comm = env->comm;
    /* Feasibility is decided here, agreed on by every rank, and not in a separate check hook: the
     * runner skips setup on a rank whose check failed, and a rank missing from the collective
     * steps below would leave the others waiting. Errors first, then infeasibility. */
    char why[512] = "";
    const int c = sp2_check(self, inputs, p, env, why, sizeof why, err);
    if (sp2_agree(comm, c != -1, err) != 0)
        return rt_err_prefix(err, "%s setup", self->name);
    {
        int all_ok = 0, first = -1;
        char msg[RT_ERR_MSG_MAX];
        if (rt_comm_all_ok_msg(comm, c == 0, why, &all_ok, &first, msg, sizeof msg) != 0)
            return rt_err_set(err, "%s setup: %s", self->name, rt_comm_last_error(comm));
        if (!all_ok) {
            /* The runner names the rank; the reason is the same on every rank in practice. */
            rt_err_set(err, "%s", msg);
            return RT_INFEASIBLE;
        }
    }
    const sp2_kind_info *kd = sp2_kind_of(self);
    const sp2_inputs *in = inputs;
    sp2_state *s = calloc(1, sizeof *s);
    if (sp2_agree(comm, s != NULL, err) != 0) {
        free(s);
        return rt_err_prefix(err, "%s setup", self->name);
    }
    s->desc = self;
    s->eng = eng;
    s->alg = kd->alg;
    s->spgemm = kd->spgemm;
    s->in = in;
    s->comm = comm;
    s->prec = in->prec;
    s->eb = rt_precision_bytes(in->prec);
    s->row_comm = s->col_comm = MPI_COMM_NULL;
    if (sp2_read_opts(self, p, &s->opt, err) != 0 ||
        sp2_layout_init(&s->L, env->nranks, env->rank, s->opt.pr, s->opt.refine, in->a->rows,
                        in->a->cols, in->n, why, sizeof why) != 0) {
        free(s);
        return rt_err_set(err, "%s: parameters changed between check and setup", self->name);
    }
    const sp2_layout *L = &s->L;

    /* Collective steps, each agreed on inside; on failure every rank tears down the same set. */
    if (sp2_dmat_sparse(&s->A, comm, L, SP2_OWN_A, in->a, L->MT, L->KT, s->prec, "A", err) != 0)
        goto fail;
    s->have_a = 1;
    if (s->spgemm) {
        if (sp2_dmat_sparse(&s->B, comm, L, SP2_OWN_B, in->a, L->KT, L->NT, s->prec, "B", err) != 0)
            goto fail;
    } else {
        const sp2_owner_kind own = s->alg == SP2_ALG_SUMMA_A ? SP2_OWN_BT : SP2_OWN_B;
        if (sp2_dmat_dense(&s->B, comm, L, own, L->k, L->n, L->KT, L->NT, s->prec, b_value_fn, in,
                           "B", err) != 0)
            goto fail;
    }
    s->have_b = 1;
    if (sp2_agree(comm, build_local(s, err) == 0, err) != 0)
        goto fail;
    if (sp2_uses_queue(s->alg)) {
        size_t payload = 256 * 1024;
        const size_t row = s->spgemm ? (size_t)sp2_sparse_msg_bytes(1, s->max_c_cols, s->eb)
                                     : SP2_HDR_DENSE + (size_t)s->max_c_cols * s->eb;
        if (row > payload)
            payload = row;
        if (sp2_queue_create(comm, payload, s->opt.slots, sp2_on_message, s, &s->queue, err) != 0)
            goto fail;
    }
    if (sp2_is_ws(s->alg) && sp2_steal_create_grid(s, err) != 0)
        goto fail;
    if (!sp2_is_rdma(s->alg)) {
        MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD);
        const int r1 = MPI_Comm_split(world, L->myr, L->myc, &s->row_comm);
        const int r2 = MPI_Comm_split(world, L->myc, L->myr, &s->col_comm);
        if (r1 != MPI_SUCCESS || r2 != MPI_SUCCESS)
            rt_err_set(err, "MPI_Comm_split of the process grid failed");
        if (sp2_agree(comm, r1 == MPI_SUCCESS && r2 == MPI_SUCCESS, err) != 0)
            goto fail;
        MPI_Comm_set_errhandler(s->row_comm, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(s->col_comm, MPI_ERRORS_RETURN);
    }
    {
        const int erc = setup_engine(s, backend, err);
        if (erc == RT_INFEASIBLE) {
            sp2_teardown(s);
            return RT_INFEASIBLE;
        }
        if (erc != 0)
            goto fail;
    }
    *state = s;
    return 0;
fail:
    rt_err_prefix(err, "%s setup", self->name);
    sp2_teardown(s);
    return -1;
}
