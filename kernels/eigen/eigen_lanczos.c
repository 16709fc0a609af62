/* Lanczos with full reorthogonalisation (classical Gram-Schmidt, two passes) as task graphs over
 * row tiles. The basis Q (n x (m+1), m = iters) and the work vector w are tiled like the matrix.
 * One step k (one task graph):
 *   SpMM   w = A q_k                                     per block A(i, j)
 *   twice: X'*Y  h_i = Q_i(:, 0..k)' w_i, h = sum h_i     partials reduced on the device
 *                -> host: alpha_k                          (only the reduced h crosses)
 *          X*Y   w = w - Q(:, 0..k) h                     per tile
 *   X'*Y   n_i = w_i' w_i, summed on the device -> host: beta_k = sqrt(sum), s = 1 / beta_k
 *   X*Y    q_{k+1} = w s
 * alpha_k is the sum of both passes' h_k. After m steps the Ritz values are the eigenvalues of the
 * tridiagonal T (LAPACKE_dstev) and the residual of pair j is |beta_{m-1} z_{m-1, j}|. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_solver_impl.h"

typedef struct lan {
    eg_algo base; /* first: the buffers below */
    int64_t m;
    eg_bvec q, w;
    eg_small *h, *nn;      /* per tile partials */
    eg_small hs, nsum, sc; /* the reduced projection and norm, the scaling */
    double *alpha, *beta, *d, *e, *z;
} lan;

static int lan_h(void *ctx, int64_t arg, rt_err *err)
{
    (void)err;
    eg_solver *s = ctx;
    lan *L = s->algo;
    const int64_t k = arg / 2, pass = arg % 2;
    L->alpha[k] = (pass == 0 ? 0.0 : L->alpha[k]) + L->hs.host[k];
    return 0;
}

static int lan_beta(void *ctx, int64_t k, rt_err *err)
{
    (void)err;
    eg_solver *s = ctx;
    lan *L = s->algo;
    const double sum = L->nsum.host[0];
    L->beta[k] = sqrt(sum > 0.0 ? sum : 0.0);
    /* An exact breakdown (invariant subspace found) continues with q = 0: T keeps its values. */
    L->sc.host[0] = L->beta[k] > 0.0 ? 1.0 / L->beta[k] : 0.0;
    return 0;
}

static int lan_build(eg_solver *s, int64_t k, rt_err *err)
{
    lan *L = s->algo;
    const int64_t nt = s->til.ntiles, ldq = L->m + 1;
    if (k == s->cfg.iters)
        return 0; /* the residual estimates come from T: no final graph */
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i)
        if (eg_task_spmm(s, i, &L->q, k, &L->w, 0, 1, err) < 0)
            return -1;
    for (int pass = 0; pass < 2; ++pass) {
        eg_dag_next_call(&s->dag);
        for (int64_t i = 0; i < nt; ++i) {
            eg_task t;
            eg_task_init(&t, "X'Y project", i);
            const int sh = eg_task_operand(&t, L->h[i].obj, EG_WRITE);
            const int sq = eg_task_operand(&t, L->q.obj[i], EG_READ);
            const int sw = eg_task_operand(&t, L->w.obj[i], EG_READ);
            eg_op_gemm_tn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), k + 1, 1, sq,
                          eg_ref_tile(&L->q, i, 0), sw, eg_ref_tile(&L->w, i, 0), 0.0, sh,
                          eg_ref_small(&L->h[i], 0, 0));
            if (eg_dag_add(&s->dag, &t, err) < 0)
                return -1;
        }
        if (eg_add_reduce(s, "reduce projection", L->h, nt, k + 1, &L->hs, err) != 0 ||
            eg_add_host(s, "alpha", lan_h, &L->hs, 1, NULL, 0, err) != 0)
            return -1;
        s->dag.task[s->dag.n - 1].host_arg = 2 * k + pass;
        eg_dag_next_call(&s->dag);
        for (int64_t i = 0; i < nt; ++i) {
            eg_task t;
            eg_task_init(&t, "X*Y orthogonalise", i);
            const int sw = eg_task_operand(&t, L->w.obj[i], EG_RW);
            const int sq = eg_task_operand(&t, L->q.obj[i], EG_READ);
            const int sh = eg_task_operand(&t, L->hs.obj, EG_READ);
            eg_op_gemm_nn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), k + 1, 1, -1.0, sq,
                          eg_ref_tile(&L->q, i, 0), sh, eg_ref_small(&L->hs, 0, 0), 1.0, sw,
                          eg_ref_tile(&L->w, i, 0));
            if (eg_dag_add(&s->dag, &t, err) < 0)
                return -1;
        }
    }
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i) {
        eg_task t;
        eg_task_init(&t, "X'Y norm", i);
        const int sn = eg_task_operand(&t, L->nn[i].obj, EG_WRITE);
        const int sw = eg_task_operand(&t, L->w.obj[i], EG_READ);
        eg_op_gemm_tn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), 1, 1, sw,
                      eg_ref_tile(&L->w, i, 0), sw, eg_ref_tile(&L->w, i, 0), 0.0, sn,
                      eg_ref_small(&L->nn[i], 0, 0));
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    const eg_small *wsc[] = {&L->sc};
    if (eg_add_reduce(s, "reduce norm", L->nn, nt, 1, &L->nsum, err) != 0 ||
        eg_add_host(s, "norm", lan_beta, &L->nsum, 1, wsc, 1, err) != 0)
        return -1;
    s->dag.task[s->dag.n - 1].host_arg = k;
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i) {
        eg_task t;
        eg_task_init(&t, "X*Y next vector", i);
        const int sq = eg_task_operand(&t, L->q.obj[i], EG_RW);
        const int sw = eg_task_operand(&t, L->w.obj[i], EG_READ);
        const int ss = eg_task_operand(&t, L->sc.obj, EG_READ);
        eg_op_gemm_nn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), 1, 1, 1.0, sw,
                      eg_ref_tile(&L->w, i, 0), ss, eg_ref_small(&L->sc, 0, 0), 0.0, sq,
                      eg_ref_tile(&L->q, i, k + 1));
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    (void)ldq;
    return 0;
}

static int lan_start(eg_solver *s, rt_err *err)
{
    (void)err;
    lan *L = s->algo;
    const int64_t n = s->til.n, ldq = L->m + 1;
    memset(L->q.host, 0, (size_t)(n * ldq) * sizeof(double));
    double nrm = 0.0;
    for (int64_t r = 0; r < n; ++r) {
        const double v = eg_start_value(s->cfg.seed, r, 0);
        L->q.host[r * ldq] = v;
        nrm += v * v;
    }
    nrm = sqrt(nrm);
    for (int64_t r = 0; r < n; ++r)
        L->q.host[r * ldq] /= nrm;
    return 0;
}

static int lan_finish(eg_solver *s, eg_result *res, rt_err *err)
{
    lan *L = s->algo;
    const int64_t m = L->m;
    memcpy(L->d, L->alpha, (size_t)m * sizeof *L->d);
    for (int64_t k = 0; k + 1 < m; ++k)
        L->e[k] = L->beta[k];
    const lapack_int info =
        LAPACKE_dstev(LAPACK_ROW_MAJOR, 'V', (lapack_int)m, L->d, L->e, L->z, (lapack_int)m);
    if (info != 0)
        return rt_err_set(err, "Lanczos: LAPACKE_dstev failed (info %d)", (int)info);
    res->nev = s->cfg.nev;
    const double scale = s->a_norm_inf > 0.0 ? s->a_norm_inf : 1.0;
    for (int64_t j = 0; j < res->nev; ++j) {
        res->ritz[j] = L->d[j];
        res->rel_res[j] = fabs(L->beta[m - 1] * L->z[(m - 1) * m + j]) / scale;
    }
    return 0;
}

int eg_lanczos_setup(eg_solver *s, rt_err *err)
{
    lan *L = eg_algo_new(s, sizeof *L, lan_build, lan_start, lan_finish, "Lanczos", err);
    if (!L)
        return -1;
    const int64_t m = s->cfg.iters;
    L->m = m;
    /* The basis and the work vector over the tiles, the m-step recurrence's host arrays, and the
     * projections and norms reduced per tile, then summed. */
    L->base.bufs =
        (eg_buffers){.nv = 2,
                     .v = {{&L->q, m + 1, "Q tile"}, {&L->w, 1, "w tile"}},
                     .nd = 5,
                     .d = {{&L->alpha, m}, {&L->beta, m}, {&L->d, m}, {&L->e, m}, {&L->z, m * m}},
                     .ns = 5,
                     .s = {{NULL, &L->h, m + 1, 1, "projection partial"},
                           {NULL, &L->nn, 1, 1, "norm partial"},
                           {&L->hs, NULL, m + 1, 1, "projection"},
                           {&L->nsum, NULL, 1, 1, "norm"},
                           {&L->sc, NULL, 1, 1, "scale"}}};
    return eg_algo_buffers(s, "Lanczos", err);
}
