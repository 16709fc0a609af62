#include "sp2_traffic.h"

#include <stdlib.h>
#include <string.h>

#include "rt_comm.h"
#include "sp2_dist.h"
#include "sp2_problem.h"
#include "sp2_layout.h"
#include "sp2_local.h"
#include "sp2_schema.h"

/* ---------------------------------------------------------------------------------------------
 * Traffic model: what this rank must move and compute in one execution, by the static assignment
 * of its algorithm (work stealing is modelled by the assignment it starts from). */

typedef struct sp2_model {
    const sp2_layout *L;
    const sp2_inputs *in;
    size_t eb;
    int64_t *annz;               /* MT x KT */
    int64_t *bnnz;               /* KT x NT (SpGEMM) */
    int64_t *arow, *acol, *bcol; /* tile bounds */
    rt_comm *comm;
    rt_traffic *t;
    char *used_a, *used_b;
} sp2_model;

/* Bytes a get of the tile moves (exactly what sp2_dmat_fetch asks for). */
static int64_t model_get_bytes_a(const sp2_model *md, int i, int k)
{
    const int64_t rows = md->arow[i + 1] - md->arow[i], nnz = md->annz[(int64_t)i * md->L->KT + k];
    return 8 * (rows + 1) + (4 + (int64_t)md->eb) * nnz;
}

static int64_t model_get_bytes_b(const sp2_model *md, int k, int j)
{
    const int64_t rows = md->acol[k + 1] - md->acol[k], cols = md->bcol[j + 1] - md->bcol[j];
    if (md->in->spgemm) {
        const int64_t nnz = md->bnnz[(int64_t)k * md->L->NT + j];
        return 8 * (rows + 1) + (4 + (int64_t)md->eb) * nnz;
    }
    return sp2_dense_block_bytes(rows, cols, md->in->prec);
}

static int64_t model_block_bytes_a(const sp2_model *md, int i, int k)
{
    return sp2_sparse_block_bytes(md->arow[i + 1] - md->arow[i],
                                  md->annz[(int64_t)i * md->L->KT + k], md->in->prec);
}

static int64_t model_block_bytes_b(const sp2_model *md, int k, int j)
{
    if (md->in->spgemm)
        return sp2_sparse_block_bytes(md->acol[k + 1] - md->acol[k],
                                      md->bnnz[(int64_t)k * md->L->NT + j], md->in->prec);
    return sp2_dense_block_bytes(md->acol[k + 1] - md->acol[k], md->bcol[j + 1] - md->bcol[j],
                                 md->in->prec);
}

static void model_net(sp2_model *md, int from, int64_t bytes, int messages)
{
    if (from == md->L->me || bytes <= 0)
        return;
    const int tier = rt_comm_tier_of(md->comm, from);
    if (tier < 0)
        return;
    md->t->net_bytes[tier] += (double)bytes;
    md->t->net_messages[tier] += messages;
}

/* One product executed here: its flops, its operands' DRAM traffic, the remote operands' gets. */
static void model_product(sp2_model *md, int i, int j, int k, int get_a, int get_b, int push_c)
{
    const sp2_layout *L = md->L;
    const int64_t annz = md->annz[(int64_t)i * L->KT + k];
    const int64_t cols = md->bcol[j + 1] - md->bcol[j];
    if (!md->in->spgemm)
        md->t->flops += 2.0 * (double)annz * (double)cols;
    md->used_a[(int64_t)i * L->KT + k] = 1;
    md->used_b[(int64_t)k * L->NT + j] = 1;
    const int sparse_msgs = 3;
    if (get_a)
        model_net(md, sp2_owner(L, SP2_OWN_A, i, k), model_get_bytes_a(md, i, k), sparse_msgs);
    if (get_b)
        model_net(md, sp2_owner(L, SP2_OWN_B, k, j), model_get_bytes_b(md, k, j),
                  md->in->spgemm ? sparse_msgs : 1);
    if (push_c && !md->in->spgemm) {
        /* Dense partial C sent to its owner (SpGEMM partials depend on the product's structure
         * and are left out: the model stays a lower bound). */
        const int64_t rows = md->arow[i + 1] - md->arow[i];
        model_net(md, sp2_owner(L, SP2_OWN_C, i, j), rows * cols * (int64_t)md->eb, 1);
    }
}

int sp2_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    const sp2_kind_info *kd = sp2_kind_of(self);
    const sp2_inputs *in = inputs;
    if (!kd || !in || !env->comm)
        return rt_err_set(err, "%s: traffic model needs its inputs and the MPI layer", self->name);
    sp2_opts o;
    if (sp2_read_opts(self, p, &o, err) != 0)
        return -1;
    sp2_layout L;
    char why[256];
    if (sp2_layout_init(&L, env->nranks, env->rank, o.pr, o.refine, in->a->rows, in->a->cols, in->n,
                        why, sizeof why) != 0)
        return rt_err_set(err, "%s: %s", self->name, why);
    memset(t, 0, sizeof *t);
    sp2_model md;
    memset(&md, 0, sizeof md);
    md.L = &L;
    md.in = in;
    md.eb = rt_precision_bytes(in->prec);
    md.comm = env->comm;
    md.t = t;
    md.annz = malloc((size_t)L.MT * L.KT * sizeof *md.annz);
    md.bnnz = in->spgemm ? malloc((size_t)L.KT * L.NT * sizeof *md.bnnz) : NULL;
    md.arow = malloc((size_t)(L.MT + 1) * sizeof *md.arow);
    md.acol = malloc((size_t)(L.KT + 1) * sizeof *md.acol);
    md.bcol = malloc((size_t)(L.NT + 1) * sizeof *md.bcol);
    md.used_a = calloc((size_t)L.MT * L.KT, 1);
    md.used_b = calloc((size_t)L.KT * L.NT, 1);
    int rc = -1;
    if (!md.annz || (in->spgemm && !md.bnnz) || !md.arow || !md.acol || !md.bcol || !md.used_a ||
        !md.used_b) {
        rt_err_set(err, "%s: out of memory for the traffic model", self->name);
        goto done;
    }
    for (int q = 0; q <= L.MT; ++q)
        md.arow[q] = sp2_split(L.m, L.MT, q);
    for (int q = 0; q <= L.KT; ++q)
        md.acol[q] = sp2_split(L.k, L.KT, q);
    for (int q = 0; q <= L.NT; ++q)
        md.bcol[q] = sp2_split(L.n, L.NT, q);
    if (sp2_tile_nnz(in->a, L.MT, md.arow, L.KT, md.acol, md.annz, err) != 0 ||
        (in->spgemm && sp2_tile_nnz(in->a, L.KT, md.acol, L.NT, md.bcol, md.bnnz, err) != 0))
        goto done;
    const int me = L.me;
    switch (kd->alg) {
    case SP2_ALG_SC:
    case SP2_ALG_WS_LOCALITY:
        for (int i = 0; i < L.MT; ++i)
            for (int j = 0; j < L.NT; ++j) {
                if (sp2_owner(&L, SP2_OWN_C, i, j) != me)
                    continue;
                for (int k = 0; k < L.KT; ++k)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 1, 1, 0);
            }
        break;
    case SP2_ALG_SA:
    case SP2_ALG_WS_RANDOM:
        for (int i = 0; i < L.MT; ++i)
            for (int k = 0; k < L.KT; ++k) {
                if (sp2_owner(&L, SP2_OWN_A, i, k) != me || md.annz[(int64_t)i * L.KT + k] == 0)
                    continue;
                for (int j = 0; j < L.NT; ++j)
                    model_product(&md, i, j, k, 0, 1, 1);
            }
        break;
    case SP2_ALG_SB:
        for (int k = 0; k < L.KT; ++k)
            for (int j = 0; j < L.NT; ++j) {
                if (sp2_owner(&L, SP2_OWN_B, k, j) != me)
                    continue;
                for (int i = 0; i < L.MT; ++i)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 1, 0, 1);
            }
        break;
    case SP2_ALG_SUMMA:
        for (int k = 0; k < L.KT; ++k) {
            int col_nonempty = 0;
            for (int i = 0; i < L.MT; ++i)
                col_nonempty |= md.annz[(int64_t)i * L.KT + k] > 0;
            for (int ta = 0; ta < L.refine; ++ta) {
                const int i = L.myr + ta * L.pr;
                if (md.annz[(int64_t)i * L.KT + k] > 0)
                    model_net(&md, L.myr * L.pc + k % L.pc, model_block_bytes_a(&md, i, k), 1);
            }
            for (int tb = 0; tb < L.refine; ++tb) {
                const int j = L.myc + tb * L.pc;
                if (col_nonempty)
                    model_net(&md, (k % L.pr) * L.pc + L.myc, model_block_bytes_b(&md, k, j), 1);
            }
            for (int ta = 0; ta < L.refine; ++ta)
                for (int tb = 0; tb < L.refine; ++tb) {
                    const int i = L.myr + ta * L.pr, j = L.myc + tb * L.pc;
                    if (md.annz[(int64_t)i * L.KT + k] > 0 && col_nonempty)
                        model_product(&md, i, j, k, 0, 0, 0);
                }
        }
        break;
    case SP2_ALG_SUMMA_A:
        for (int j = 0; j < L.NT; ++j) {
            for (int k = L.myc; k < L.KT; k += L.pc) {
                int col_nonempty = 0;
                for (int i = 0; i < L.MT; ++i)
                    col_nonempty |= md.annz[(int64_t)i * L.KT + k] > 0;
                if (!col_nonempty)
                    continue;
                model_net(&md, (j % L.pr) * L.pc + L.myc, model_block_bytes_b(&md, k, j), 1);
                for (int i = L.myr; i < L.MT; i += L.pr)
                    if (md.annz[(int64_t)i * L.KT + k] > 0)
                        model_product(&md, i, j, k, 0, 0, 0);
            }
            if (j % L.pc == L.myc)
                for (int i = L.myr; i < L.MT; i += L.pr)
                    for (int c = 0; c < L.pc; ++c)
                        if (c != L.myc)
                            model_net(&md, L.myr * L.pc + c,
                                      (md.arow[i + 1] - md.arow[i]) *
                                          (md.bcol[j + 1] - md.bcol[j]) * (int64_t)md.eb,
                                      1);
        }
        break;
    }
    /* Compulsory DRAM traffic: every operand tile used read once, every owned C tile written. */
    for (int i = 0; i < L.MT; ++i)
        for (int k = 0; k < L.KT; ++k)
            if (md.used_a[(int64_t)i * L.KT + k])
                t->bytes[RT_LEVEL_DRAM] += (double)model_block_bytes_a(&md, i, k);
    for (int k = 0; k < L.KT; ++k)
        for (int j = 0; j < L.NT; ++j)
            if (md.used_b[(int64_t)k * L.NT + j])
                t->bytes[RT_LEVEL_DRAM] += (double)model_block_bytes_b(&md, k, j);
    if (!in->spgemm)
        for (int i = 0; i < L.MT; ++i)
            for (int j = 0; j < L.NT; ++j)
                if (sp2_owner(&L, SP2_OWN_C, i, j) == me)
                    t->bytes[RT_LEVEL_DRAM] +=
                        (double)((md.arow[i + 1] - md.arow[i]) * (md.bcol[j + 1] - md.bcol[j]) *
                                 (int64_t)md.eb);
    rc = 0;
done:
    free(md.annz);
    free(md.bnnz);
    free(md.arow);
    free(md.acol);
    free(md.bcol);
    free(md.used_a);
    free(md.used_b);
    return rc;
}
