#include "sp2_output.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "sp2_state.h"

/* ---------------------------------------------------------------------------------------------
 * Output: the canonical rows of C (see sp2_problem.h) */

static int output_dense(sp2_state *s, double *out, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int P = L->P, me = L->me;
    const int64_t m = L->m, n = L->n;
    const int64_t r0 = sp2_split(m, P, me), r1 = sp2_split(m, P, me + 1);
    int64_t *scount = calloc((size_t)P, sizeof *scount),
            *rcount = calloc((size_t)P, sizeof *rcount);
    int *sc = malloc((size_t)P * sizeof *sc), *sd = malloc((size_t)P * sizeof *sd);
    int *rc = malloc((size_t)P * sizeof *rc), *rd = malloc((size_t)P * sizeof *rd);
    int64_t *cursor = malloc((size_t)P * sizeof *cursor);
    double *sbuf = NULL, *rbuf = NULL;
    int ok = scount && rcount && sc && sd && rc && rd && cursor;
    if (!ok)
        rt_err_set(err, "out of memory redistributing C");
    /* What goes where: my tiles' rows to their canonical owners, in tile then row order. */
    for (int q = 0; ok && q < s->n_c; ++q) {
        const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
        for (int64_t r = s->A.row_bounds[i]; r < s->A.row_bounds[i + 1]; ++r)
            scount[sp2_part_of(m, P, r)] += sp2_c_cols(s, j);
    }
    for (int src = 0; ok && src < P; ++src)
        for (int i = 0; i < L->MT; ++i) {
            const int64_t lo = s->A.row_bounds[i] > r0 ? s->A.row_bounds[i] : r0;
            const int64_t hi = s->A.row_bounds[i + 1] < r1 ? s->A.row_bounds[i + 1] : r1;
            if (lo >= hi)
                continue;
            for (int j = 0; j < L->NT; ++j)
                if (sp2_owner(L, SP2_OWN_C, i, j) == src)
                    rcount[src] += (hi - lo) * sp2_c_cols(s, j);
        }
    int64_t stot = 0, rtot = 0;
    for (int p = 0; ok && p < P; ++p) {
        if (stot > INT_MAX || rtot > INT_MAX || scount[p] > INT_MAX || rcount[p] > INT_MAX) {
            ok = rt_err_set(err, "C is too large to redistribute with 32-bit counts") == 0;
            break;
        }
        sd[p] = (int)stot;
        rd[p] = (int)rtot;
        sc[p] = (int)scount[p];
        rc[p] = (int)rcount[p];
        stot += scount[p];
        rtot += rcount[p];
    }
    if (ok && (stot > INT_MAX || rtot > INT_MAX))
        ok = rt_err_set(err, "C is too large to redistribute with 32-bit counts") == 0;
    if (ok) {
        sbuf = malloc((size_t)(stot > 0 ? stot : 1) * sizeof *sbuf);
        rbuf = malloc((size_t)(rtot > 0 ? rtot : 1) * sizeof *rbuf);
        ok = sbuf && rbuf;
        if (!ok)
            rt_err_set(err, "out of memory redistributing C");
    }
    if (ok) {
        for (int p = 0; p < P; ++p)
            cursor[p] = sd[p];
        for (int q = 0; q < s->n_c; ++q) {
            const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
            const int64_t cols = sp2_c_cols(s, j);
            for (int64_t r = 0; r < sp2_c_rows(s, i); ++r) {
                const int dest = sp2_part_of(m, P, s->A.row_bounds[i] + r);
                double *d = sbuf + cursor[dest];
                for (int64_t c = 0; c < cols; ++c)
                    d[c] = s->prec == RT_FP32
                               ? (double)((const float *)sp2_c_tile_ptr(s, q))[r * cols + c]
                               : ((const double *)sp2_c_tile_ptr(s, q))[r * cols + c];
                cursor[dest] += cols;
            }
        }
    }
    /* Every rank enters the exchange, with empty buffers when it failed above. */
    if (sp2_agree(s->comm, ok, err) != 0) {
        ok = 0;
    } else {
        const int mrc = MPI_Alltoallv(sbuf, sc, sd, MPI_DOUBLE, rbuf, rc, rd, MPI_DOUBLE,
                                      rt_comm_mpi(s->comm, RT_COMM_WORLD));
        if (mrc != MPI_SUCCESS)
            ok = rt_err_set(err, "MPI_Alltoallv of C failed (code %d)", mrc) == 0;
    }
    if (ok) {
        for (int src = 0; src < P; ++src) {
            int64_t at = rd[src];
            for (int i = 0; i < L->MT; ++i) {
                const int64_t lo = s->A.row_bounds[i] > r0 ? s->A.row_bounds[i] : r0;
                const int64_t hi = s->A.row_bounds[i + 1] < r1 ? s->A.row_bounds[i + 1] : r1;
                if (lo >= hi)
                    continue;
                for (int j = 0; j < L->NT; ++j) {
                    if (sp2_owner(L, SP2_OWN_C, i, j) != src)
                        continue;
                    const int64_t c0 = s->B.col_bounds[j], cols = sp2_c_cols(s, j);
                    for (int64_t r = lo; r < hi; ++r) {
                        memcpy(out + (r - r0) * n + c0, rbuf + at, (size_t)cols * sizeof *out);
                        at += cols;
                    }
                }
            }
        }
    }
    free(scount);
    free(rcount);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(cursor);
    free(sbuf);
    free(rbuf);
    return ok ? 0 : -1;
}

static int output_signature(sp2_state *s, double *out, rt_err *err)
{
    const sp2_layout *L = &s->L;
    const int P = L->P, S = SP2_SIG_COLS;
    const int64_t m = L->m;
    double *sig = calloc((size_t)m * S, sizeof *sig);
    int *counts = malloc((size_t)P * sizeof *counts);
    int ok = sig && counts && m * S <= INT_MAX;
    if (!ok)
        rt_err_set(err, "cannot build the %lld x %d signature of C", (long long)m, S);
    for (int p = 0; ok && p < P; ++p)
        counts[p] = (int)((sp2_split(m, P, p + 1) - sp2_split(m, P, p)) * S);
    for (int q = 0; ok && q < s->n_c; ++q) {
        const int ci = s->c_tiles[q], i = ci / L->NT, j = ci % L->NT;
        const sp2_csrbuf *c = &s->c_csr[q];
        const int64_t rb = s->A.row_bounds[i], cb = s->B.col_bounds[j];
        for (int64_t r = 0; r < c->rows; ++r)
            for (int64_t e = c->rowptr[r]; e < c->rowptr[r + 1]; ++e) {
                const double v = s->prec == RT_FP32 ? (double)((const float *)c->val)[e]
                                                    : ((const double *)c->val)[e];
                const int64_t gc = cb + c->colidx[e];
                for (int t = 0; t < S; ++t)
                    sig[(rb + r) * S + t] += v * sp2_sig_value(s->in->seed, gc, t);
            }
    }
    if (sp2_agree(s->comm, ok, err) != 0) {
        ok = 0;
    } else {
        const int rc = MPI_Reduce_scatter(sig, out, counts, MPI_DOUBLE, MPI_SUM,
                                          rt_comm_mpi(s->comm, RT_COMM_WORLD));
        if (rc != MPI_SUCCESS)
            ok = rt_err_set(err, "MPI_Reduce_scatter of the signatures failed (code %d)", rc) == 0;
    }
    free(sig);
    free(counts);
    return ok ? 0 : -1;
}

int sp2_output(void *state, double *out, rt_err *err)
{
    sp2_state *s = state;
    /* C tiles the engine holds on a device join the host C (which holds what arrived through the
     * queues or reductions); agreed on, so no rank enters the exchange below alone. */
    if (!s->spgemm && s->eng->merge_c) {
        const int ok = s->eng->merge_c(s->es, s->c_data, err) == 0;
        if (sp2_agree(s->comm, ok, err) != 0)
            return rt_err_prefix(err, "%s output", s->desc->name);
    }
    const int rc = s->spgemm ? output_signature(s, out, err) : output_dense(s, out, err);
    return rc == 0 ? 0 : rt_err_prefix(err, "%s output", s->desc->name);
}
