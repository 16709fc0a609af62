/* Block LOBPCG (Knyazev) without preconditioner, as task graphs over row tiles.
 *
 * Block vectors X, R, P and their images AX, AR, AP (width b); X, P, AX, AP are double-buffered by
 * iteration parity so that updates never overwrite their own inputs. One iteration:
 *   residual   Rt = AX - X diag(lambda)                        per tile
 *   X'*Y       g_i = Rt_i' Rt_i, summed on the device -> host: column norms, D
 *   X*Y        R = Rt D (unit columns)                          per tile
 *   SpMM       AR = A R                                          per block A(i, j)
 *   X'*Y       GA_i = [X R P]_i' [AX AR AP]_i, GB_i = [X R P]_i' [X R P]_i
 *   reduce     GA = sum GA_i, GB = sum GB_i on the device, in tile order (eg_add_reduce): only
 *              the two reduced matrices cross to the host, once each
 *   host       Rayleigh-Ritz: GA c = theta GB c (eigen_rr.c, 3b or, without P, 2b), the b
 *              smallest; the new P's coefficients made GB-orthonormal in the small space
 *              (Cholesky of Cp' GB Cp), P dropped for one iteration when that fails
 *   X*Y        X+ = [X R P] C, AX+ = [AX AR AP] C, P+ = [R P] Cp, AP+ = [AR AP] Cp
 * Iteration 0 starts with AX = A X and lambda = 0 (so R spans AX), and Rayleigh-Ritz on [X R].
 * The final graph (it = iters) computes the residuals of the returned pairs only. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "eigen_rr.h"
#include "eigen_solver_impl.h"

typedef struct lob {
    eg_algo base; /* first: the buffers below */
    int64_t b;
    eg_bvec x[2], p[2], ax[2], ap[2], r, ar, rt;
    eg_small *gr, *ga, *gb;   /* per tile partials */
    eg_small gr_sum, gsum[2]; /* their sums (gsum: GA, GB), reduced on the device */
    eg_small lam, d, c, cp;
    double *theta, *res_norm;
    double *wa, *wb, *wbk, *gp; /* host work for the small solve */
    int p_valid;
} lob;

static int lob_norms(void *ctx, int64_t arg, rt_err *err)
{
    (void)arg;
    (void)err;
    eg_solver *s = ctx;
    lob *L = s->algo;
    const int64_t b = L->b;
    for (int64_t j = 0; j < b; ++j) {
        const double sum = L->gr_sum.host[j * b + j];
        const double nrm = sqrt(sum > 0.0 ? sum : 0.0);
        L->res_norm[j] = nrm;
        for (int64_t k = 0; k < b; ++k)
            L->d.host[j * b + k] = 0.0;
        L->d.host[j * b + j] = nrm > 0.0 ? 1.0 / nrm : 1.0;
    }
    return 0;
}

/* A 3b x 3b Gram matrix (reduced on the device), symmetrised into out. */
static void symmetrised(const eg_small *sum, double *out, int64_t n3)
{
    memcpy(out, sum->host, (size_t)(n3 * n3) * sizeof *out);
    for (int64_t r = 0; r < n3; ++r)
        for (int64_t c = r + 1; c < n3; ++c) {
            const double v = 0.5 * (out[r * n3 + c] + out[c * n3 + r]);
            out[r * n3 + c] = out[c * n3 + r] = v;
        }
}

/* Leading m x m block of a row-major n3 x n3 matrix into dst (m x m). */
static void leading(const double *src, int64_t n3, int64_t m, double *dst)
{
    for (int64_t r = 0; r < m; ++r)
        memcpy(dst + r * m, src + r * n3, (size_t)m * sizeof *dst);
}

static int lob_rr(void *ctx, int64_t arg, rt_err *err)
{
    (void)arg;
    eg_solver *s = ctx;
    lob *L = s->algo;
    const int64_t b = L->b, n3 = 3 * b;
    double *ga = L->gp, *gb = L->gp + n3 * n3;
    symmetrised(&L->gsum[0], ga, n3);
    symmetrised(&L->gsum[1], gb, n3);
    int64_t m = L->p_valid ? n3 : 2 * b;
    int rc = 0;
    for (;;) {
        leading(ga, n3, m, L->wa);
        leading(gb, n3, m, L->wb);
        rc = eg_rr_solve(L->wa, L->wb, m, b, L->theta, L->gp, err);
        if (rc < 0)
            return -1;
        if (rc == 0 || m == 2 * b)
            break;
        m = 2 * b; /* [X R P] lost rank: restart without P */
    }
    if (rc != 0)
        return rt_err_set(err,
                          "LOBPCG: [X R] has fewer than %lld independent columns: the block "
                          "lost rank",
                          (long long)b);
    /* C: the b smallest pairs (m x b, in gp, which the reductions no longer need), rows beyond m
     * zero. */
    memset(L->c.host, 0, (size_t)(n3 * b) * sizeof(double));
    memset(L->cp.host, 0, (size_t)(n3 * b) * sizeof(double));
    for (int64_t r = 0; r < m; ++r)
        for (int64_t k = 0; k < b; ++k) {
            L->c.host[r * b + k] = L->gp[r * b + k];
            if (r >= b)
                L->cp.host[r * b + k] = L->gp[r * b + k];
        }
    for (int64_t k = 0; k < b; ++k) {
        for (int64_t j = 0; j < b; ++j)
            L->lam.host[k * b + j] = 0.0;
        L->lam.host[k * b + k] = L->theta[k];
    }
    /* P+ = [R P] Cp made orthonormal: its Gram Cp' GB Cp is known in the small space. */
    double *tmp = L->wb; /* n3 x b */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n3, (int)b, (int)n3, 1.0, gb,
                (int)n3, L->cp.host, (int)b, 0.0, tmp, (int)b);
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)b, (int)b, (int)n3, 1.0, L->cp.host,
                (int)b, tmp, (int)b, 0.0, L->wbk, (int)b);
    const lapack_int info =
        LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)b, L->wbk, (lapack_int)b);
    /* Once the pairs have converged, [R P] Cp is rounding noise: its Gram still factors, but the
     * triangular solve would scale that noise up by 1/sqrt(pivot) into a "unit" P (X is
     * GB-orthonormal, so pivots are relative to 1). Drop P below a pivot of 1e-20 (a direction
     * of norm 1e-10) and restart from [X R], as for a failed factorisation. */
    double min_pivot = info == 0 ? INFINITY : 0.0;
    for (int64_t k = 0; info == 0 && k < b; ++k) {
        const double d = L->wbk[k * b + k];
        if (d * d < min_pivot)
            min_pivot = d * d;
    }
    if (info == 0 && min_pivot > 1e-20) {
        cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, (int)n3,
                    (int)b, 1.0, L->wbk, (int)b, L->cp.host, (int)b);
        L->p_valid = 1;
    } else {
        memset(L->cp.host, 0, (size_t)(n3 * b) * sizeof(double));
        L->p_valid = 0;
    }
    return 0;
}

static int lob_build(eg_solver *s, int64_t it, rt_err *err)
{
    lob *L = s->algo;
    const int64_t b = L->b, nt = s->til.ntiles;
    const int cur = (int)(it % 2), nxt = 1 - cur;
    eg_bvec *X = &L->x[cur], *P = &L->p[cur], *AX = &L->ax[cur], *AP = &L->ap[cur];
    eg_bvec *Xn = &L->x[nxt], *Pn = &L->p[nxt], *AXn = &L->ax[nxt], *APn = &L->ap[nxt];
    if (it == 0) {
        eg_dag_next_call(&s->dag);
        for (int64_t i = 0; i < nt; ++i)
            if (eg_task_spmm(s, i, X, 0, AX, 0, b, err) < 0)
                return -1;
    }
    /* residual */
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i) {
        eg_task t;
        eg_task_init(&t, "residual", i);
        const int64_t rows = eg_tile_rows(&s->til, i);
        const int srt = eg_task_operand(&t, L->rt.obj[i], EG_WRITE);
        const int sax = eg_task_operand(&t, AX->obj[i], EG_READ);
        const int sx = eg_task_operand(&t, X->obj[i], EG_READ);
        const int sl = eg_task_operand(&t, L->lam.obj, EG_READ);
        eg_op_geam(&t.op[t.n_ops++], rows, b, 1.0, sax, eg_ref_tile(AX, i, 0), 0.0, sax,
                   eg_ref_tile(AX, i, 0), srt, eg_ref_tile(&L->rt, i, 0));
        eg_op_gemm_nn(&t.op[t.n_ops++], rows, b, b, -1.0, sx, eg_ref_tile(X, i, 0), sl,
                      eg_ref_small(&L->lam, 0, 0), 1.0, srt, eg_ref_tile(&L->rt, i, 0));
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i) {
        eg_task t;
        eg_task_init(&t, "X'Y residual", i);
        const int sg = eg_task_operand(&t, L->gr[i].obj, EG_WRITE);
        const int sr = eg_task_operand(&t, L->rt.obj[i], EG_READ);
        eg_op_gemm_tn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), b, b, sr,
                      eg_ref_tile(&L->rt, i, 0), sr, eg_ref_tile(&L->rt, i, 0), 0.0, sg,
                      eg_ref_small(&L->gr[i], 0, 0));
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    if (eg_add_reduce(s, "reduce residual Gram", L->gr, nt, b, &L->gr_sum, err) != 0)
        return -1;
    const eg_small *wd[] = {&L->d};
    if (eg_add_host(s, "residual norms", lob_norms, &L->gr_sum, 1, wd, 1, err) != 0)
        return -1;
    if (it == s->cfg.iters)
        return 0; /* the final graph: residuals of the returned pairs */
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i) {
        eg_task t;
        eg_task_init(&t, "X*Y scale", i);
        const int sr = eg_task_operand(&t, L->r.obj[i], EG_WRITE);
        const int st = eg_task_operand(&t, L->rt.obj[i], EG_READ);
        const int sd = eg_task_operand(&t, L->d.obj, EG_READ);
        eg_op_gemm_nn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), b, b, 1.0, st,
                      eg_ref_tile(&L->rt, i, 0), sd, eg_ref_small(&L->d, 0, 0), 0.0, sr,
                      eg_ref_tile(&L->r, i, 0));
        if (eg_dag_add(&s->dag, &t, err) < 0)
            return -1;
    }
    eg_dag_next_call(&s->dag);
    for (int64_t i = 0; i < nt; ++i)
        if (eg_task_spmm(s, i, &L->r, 0, &L->ar, 0, b, err) < 0)
            return -1;
    const eg_bvec *v[3] = {X, &L->r, P}, *av[3] = {AX, &L->ar, AP};
    for (int which = 0; which < 2; ++which) {
        eg_dag_next_call(&s->dag);
        const eg_bvec *const *rhs = which == 0 ? av : v;
        eg_small *part = which == 0 ? L->ga : L->gb;
        for (int64_t i = 0; i < nt; ++i) {
            eg_task t;
            eg_task_init(&t, which == 0 ? "gram A" : "gram B", i);
            const int sg = eg_task_operand(&t, part[i].obj, EG_WRITE);
            for (int bi = 0; bi < 3; ++bi)
                for (int bj = 0; bj < 3; ++bj) {
                    const int su = eg_task_operand(&t, v[bi]->obj[i], EG_READ);
                    const int sv = eg_task_operand(&t, rhs[bj]->obj[i], EG_READ);
                    eg_op_gemm_tn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), b, b, su,
                                  eg_ref_tile(v[bi], i, 0), sv, eg_ref_tile(rhs[bj], i, 0), 0.0, sg,
                                  eg_ref_small(&part[i], bi * b, bj * b));
                }
            if (eg_dag_add(&s->dag, &t, err) < 0)
                return -1;
        }
        if (eg_add_reduce(s, which == 0 ? "reduce gram A" : "reduce gram B", part, nt, 3 * b,
                          &L->gsum[which], err) != 0)
            return -1;
    }
    const eg_small *wrr[] = {&L->lam, &L->c, &L->cp};
    if (eg_add_host(s, "rayleigh-ritz", lob_rr, L->gsum, 2, wrr, 3, err) != 0)
        return -1;
    /* updates */
    struct {
        eg_bvec *out;
        const eg_bvec *const *src;
        const eg_small *coef;
        int first;
        const char *name;
    } up[4] = {{Xn, v, &L->c, 0, "X*Y update X"},
               {AXn, av, &L->c, 0, "X*Y update AX"},
               {Pn, v, &L->cp, 1, "X*Y update P"},
               {APn, av, &L->cp, 1, "X*Y update AP"}};
    for (int u = 0; u < 4; ++u) {
        eg_dag_next_call(&s->dag);
        for (int64_t i = 0; i < nt; ++i) {
            eg_task t;
            eg_task_init(&t, up[u].name, i);
            const int so = eg_task_operand(&t, up[u].out->obj[i], EG_WRITE);
            const int sc = eg_task_operand(&t, up[u].coef->obj, EG_READ);
            for (int bi = up[u].first; bi < 3; ++bi) {
                const int ss = eg_task_operand(&t, up[u].src[bi]->obj[i], EG_READ);
                eg_op_gemm_nn(&t.op[t.n_ops++], eg_tile_rows(&s->til, i), b, b, 1.0, ss,
                              eg_ref_tile(up[u].src[bi], i, 0), sc,
                              eg_ref_small(up[u].coef, bi * b, 0), bi == up[u].first ? 0.0 : 1.0,
                              so, eg_ref_tile(up[u].out, i, 0));
            }
            if (eg_dag_add(&s->dag, &t, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int lob_start(eg_solver *s, rt_err *err)
{
    (void)err;
    lob *L = s->algo;
    const int64_t b = L->b, n = s->til.n;
    for (int k = 0; k < 2; ++k) {
        memset(L->p[k].host, 0, (size_t)(n * b) * sizeof(double));
        memset(L->ap[k].host, 0, (size_t)(n * b) * sizeof(double));
    }
    for (int64_t r = 0; r < n; ++r)
        for (int64_t c = 0; c < b; ++c)
            L->x[0].host[r * b + c] = eg_start_value(s->cfg.seed, r, c);
    memset(L->lam.host, 0, (size_t)(b * b) * sizeof(double));
    L->p_valid = 0;
    return 0;
}

static int lob_finish(eg_solver *s, eg_result *res, rt_err *err)
{
    (void)err;
    lob *L = s->algo;
    res->nev = s->cfg.nev;
    for (int64_t j = 0; j < res->nev; ++j) {
        res->ritz[j] = L->lam.host[j * L->b + j];
        res->rel_res[j] = L->res_norm[j] / (s->a_norm_inf > 0.0 ? s->a_norm_inf : 1.0);
    }
    return 0;
}

int eg_lobpcg_setup(eg_solver *s, rt_err *err)
{
    lob *L = eg_algo_new(s, sizeof *L, lob_build, lob_start, lob_finish, "LOBPCG", err);
    if (!L)
        return -1;
    const int64_t b = s->cfg.block, n3 = 3 * b;
    L->b = b;
    /* The blocks X, P, AX, AP (current and next), R, AR and the raw residual over the tiles; the
     * host work of the 3b x 3b Rayleigh-Ritz; the Gram matrices reduced per tile, then summed,
     * and the small problem's coefficients. */
    L->base.bufs = (eg_buffers){.nv = 11,
                                .v = {{&L->x[0], b, "X tile"},
                                      {&L->p[0], b, "P tile"},
                                      {&L->ax[0], b, "AX tile"},
                                      {&L->ap[0], b, "AP tile"},
                                      {&L->x[1], b, "X tile"},
                                      {&L->p[1], b, "P tile"},
                                      {&L->ax[1], b, "AX tile"},
                                      {&L->ap[1], b, "AP tile"},
                                      {&L->r, b, "R tile"},
                                      {&L->ar, b, "AR tile"},
                                      {&L->rt, b, "raw residual tile"}},
                                .nd = 6,
                                .d = {{&L->theta, n3},
                                      {&L->res_norm, b},
                                      {&L->wa, n3 * n3},
                                      {&L->wb, n3 * n3},
                                      {&L->wbk, b * b},
                                      {&L->gp, 2 * n3 * n3}},
                                .ns = 10,
                                .s = {{NULL, &L->gr, b, b, "residual Gram partial"},
                                      {NULL, &L->ga, n3, n3, "Gram A partial"},
                                      {NULL, &L->gb, n3, n3, "Gram B partial"},
                                      {&L->gr_sum, NULL, b, b, "residual Gram"},
                                      {&L->gsum[0], NULL, n3, n3, "Gram A"},
                                      {&L->gsum[1], NULL, n3, n3, "Gram B"},
                                      {&L->lam, NULL, b, b, "Ritz values"},
                                      {&L->d, NULL, b, b, "residual scaling"},
                                      {&L->c, NULL, n3, b, "X coefficients"},
                                      {&L->cp, NULL, n3, b, "P coefficients"}}};
    return eg_algo_buffers(s, "LOBPCG", err);
}
