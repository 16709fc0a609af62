/* The parts of the 2D kernels under mpirun: tile splits and ownership (square and non-square
 * grids), tiles fetched through the directory against the whole matrix, the local SpMM/SpGEMM and
 * the sparse accumulator against naive products, the remote accumulation queue under contention
 * with tiny rings (every message accumulated exactly once), the fetch-and-add work grid (every
 * piece claimed once), the families (references, the SpGEMM signature catching a one-entry error),
 * every kernel driven directly against its family's reference, and setup failing on one rank
 * (every rank fails, the rank named).
 *
 * Usage: test_spmm2d_parts [RANKS_PER_NODE] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_generators.h"
#include "rt_kernels.h"
#include "sp2_dist.h"
#include "sp2_problem.h"
#include "spgemm2d_cpu_kernels.h"
#include "spgemm2d_family.h"
#include "spmm2d_cpu_kernels.h"
#include "spmm2d_family.h"
#include "sp2_layout.h"
#include "sp2_local.h"
#include "sp2_queue.h"
#include "sp2_workgrid.h"
#include "rt_test_mpi.h"

#define CHECK     RT_MPI_CHECK
#define CHECK_MSG RT_MPI_CHECK_MSG

static int P = 1;

static void test_layout(void)
{
    CHECK(sp2_default_pr(1) == 1 && sp2_default_pr(3) == 1 && sp2_default_pr(4) == 2);
    CHECK(sp2_default_pr(6) == 2 && sp2_default_pr(12) == 3 && sp2_default_pr(16) == 4);
    /* Splits cover the range, parts differ by at most one, part_of inverts them. */
    for (int64_t len = 1; len < 40; ++len)
        for (int T = 1; T <= len && T < 9; ++T) {
            CHECK(sp2_split(len, T, 0) == 0 && sp2_split(len, T, T) == len);
            for (int t = 0; t < T; ++t) {
                const int64_t a = sp2_split(len, T, t), b = sp2_split(len, T, t + 1);
                CHECK(b - a == len / T || b - a == len / T + 1);
                for (int64_t x = a; x < b; ++x)
                    CHECK(sp2_part_of(len, T, x) == t);
            }
        }
    sp2_layout L;
    char why[256];
    /* 6 ranks as 2 x 3 with refine 2: 4 x 12 x 6 tiles; every process owns as many tiles of each
     * matrix; 4 does not divide 6. */
    CHECK(sp2_layout_init(&L, 6, 5, 0, 2, 100, 100, 100, why, sizeof why) == 0);
    CHECK(L.pr == 2 && L.pc == 3 && L.myr == 1 && L.myc == 2);
    CHECK(L.MT == 4 && L.NT == 6 && L.KT == 12);
    int own_a[6] = {0}, own_b[6] = {0}, own_c[6] = {0}, own_bt[6] = {0};
    for (int i = 0; i < L.MT; ++i)
        for (int k = 0; k < L.KT; ++k)
            own_a[sp2_owner(&L, SP2_OWN_A, i, k)]++;
    for (int k = 0; k < L.KT; ++k)
        for (int j = 0; j < L.NT; ++j) {
            own_b[sp2_owner(&L, SP2_OWN_B, k, j)]++;
            own_bt[sp2_owner(&L, SP2_OWN_BT, k, j)]++;
        }
    for (int i = 0; i < L.MT; ++i)
        for (int j = 0; j < L.NT; ++j)
            own_c[sp2_owner(&L, SP2_OWN_C, i, j)]++;
    for (int r = 0; r < 6; ++r)
        CHECK(own_a[r] == 8 && own_b[r] == 12 && own_bt[r] == 12 && own_c[r] == 4);
    CHECK(sp2_layout_init(&L, 6, 0, 4, 1, 100, 100, 100, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "pr = 4") != NULL, "%s", why);
    CHECK(sp2_layout_init(&L, 4, 0, 2, 8, 10, 100, 100, why, sizeof why) == 1);
    CHECK_MSG(strstr(why, "empty") != NULL, "%s", why);
}

/* A small random sparse matrix, the same on every rank. */
static int make_matrix(rt_csr *a, int64_t rows, int64_t cols, int per_row, uint64_t seed)
{
    rt_err err;
    const int64_t nnz = rows * per_row;
    int64_t *ri = malloc((size_t)nnz * sizeof *ri), *ci = malloc((size_t)nnz * sizeof *ci);
    double *v = malloc((size_t)nnz * sizeof *v);
    uint64_t x = seed;
    for (int64_t e = 0; e < nnz; ++e) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        ri[e] = e / per_row;
        /* Skewed columns: some tiles get much more than others. */
        const uint64_t r = x >> 33;
        ci[e] = (int64_t)((r % 3 == 0) ? r % (uint64_t)(cols / 4 + 1) : r % (uint64_t)cols);
        v[e] = (double)((x >> 20) % 1000) / 500.0 - 1.0;
    }
    const int rc = rt_csr_from_coo(a, rows, cols, nnz, ri, ci, v, &err);
    free(ri);
    free(ci);
    free(v);
    return rc;
}

static void test_local(void)
{
    rt_err err;
    rt_csr a, b;
    CHECK(make_matrix(&a, 37, 29, 4, 11) == 0 && make_matrix(&b, 29, 23, 3, 12) == 0);
    /* Tile views of whole matrices (one tile each), in both precisions. */
    for (int pi = 0; pi < 2; ++pi) {
        const rt_precision prec = pi ? RT_FP64 : RT_FP32;
        const size_t eb = rt_precision_bytes(prec);
        void *av = malloc((size_t)a.nnz * eb), *bv = malloc((size_t)b.nnz * eb);
        for (int64_t e = 0; e < a.nnz; ++e)
            prec == RT_FP32 ? (void)(((float *)av)[e] = (float)a.val[e])
                            : (void)(((double *)av)[e] = a.val[e]);
        for (int64_t e = 0; e < b.nnz; ++e)
            prec == RT_FP32 ? (void)(((float *)bv)[e] = (float)b.val[e])
                            : (void)(((double *)bv)[e] = b.val[e]);
        const sp2_tile ta = {SP2_SPARSE, prec, a.rows, a.cols, a.nnz, a.rowptr, a.colidx, av};
        const sp2_tile tb = {SP2_SPARSE, prec, b.rows, b.cols, b.nnz, b.rowptr, b.colidx, bv};
        /* Naive dense product. */
        double *want = calloc((size_t)(a.rows * b.cols), sizeof *want);
        for (int64_t r = 0; r < a.rows; ++r)
            for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e)
                for (int64_t f = b.rowptr[a.colidx[e]]; f < b.rowptr[a.colidx[e] + 1]; ++f)
                    want[r * b.cols + b.colidx[f]] += a.val[e] * b.val[f];
        sp2_spa w;
        sp2_csrbuf out;
        memset(&out, 0, sizeof out);
        CHECK(sp2_spa_init(&w, prec, b.cols, &err) == 0);
        double flops = 0;
        CHECK(sp2_spgemm_tile(&ta, &tb, &w, &out, &flops, &err) == 0);
        CHECK(out.rows == a.rows && out.cols == b.cols);
        double d2 = 0, r2 = 0, f = 0;
        for (int64_t r = 0; r < a.rows; ++r)
            for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e)
                f += 2.0 * (double)(b.rowptr[a.colidx[e] + 1] - b.rowptr[a.colidx[e]]);
        CHECK(flops == f);
        for (int64_t r = 0; r < out.rows; ++r)
            for (int64_t e = out.rowptr[r]; e < out.rowptr[r + 1]; ++e) {
                if (e > out.rowptr[r])
                    CHECK(out.colidx[e] > out.colidx[e - 1]);
                const double got = prec == RT_FP32 ? ((float *)out.val)[e] : ((double *)out.val)[e];
                const double d = got - want[r * b.cols + out.colidx[e]];
                d2 += d * d;
                want[r * b.cols + out.colidx[e]] = 0.0; /* consumed */
            }
        for (int64_t q = 0; q < a.rows * b.cols; ++q)
            r2 += want[q] * want[q]; /* entries the product missed */
        CHECK_MSG(sqrt(d2) < (prec == RT_FP32 ? 1e-4 : 1e-12) && r2 == 0.0, "d2 %g missed %g", d2,
                  r2);

        /* The sparse accumulator: the product split in two row halves and added twice sums to 2x.
         */
        sp2_spacc acc;
        sp2_csrbuf fin;
        memset(&fin, 0, sizeof fin);
        CHECK(sp2_spacc_init(&acc, prec, out.rows, out.cols, &err) == 0);
        const int64_t half = out.rows / 2;
        for (int rep = 0; rep < 2; ++rep) {
            CHECK(sp2_spacc_add_csr(
                      &acc, half, out.rows - half, out.rowptr + half, out.colidx + out.rowptr[half],
                      (unsigned char *)out.val + (size_t)out.rowptr[half] * eb, &err) == 0);
            CHECK(sp2_spacc_add_csr(&acc, 0, half, out.rowptr, out.colidx, out.val, &err) == 0);
        }
        CHECK(sp2_spacc_finalize(&acc, &w, &fin, &err) == 0);
        CHECK(fin.nnz == out.nnz);
        int same = fin.nnz == out.nnz;
        for (int64_t e = 0; same && e < out.nnz; ++e) {
            const double x = prec == RT_FP32 ? ((float *)out.val)[e] : ((double *)out.val)[e];
            const double y = prec == RT_FP32 ? ((float *)fin.val)[e] : ((double *)fin.val)[e];
            same &= fin.colidx[e] == out.colidx[e] && fabs(y - 2 * x) <= 1e-6 * (1 + fabs(x));
        }
        CHECK(same);
        /* A column outside the tile is refused. */
        const int64_t rp[2] = {0, 1};
        const int32_t bad_col[1] = {(int32_t)out.cols};
        CHECK(sp2_spacc_add_csr(&acc, 0, 1, rp, bad_col, out.val, &err) != 0);

        /* SpMM of the sparse tile with a dense one. */
        const int64_t n = 5;
        void *bd = calloc((size_t)(a.cols * n), eb), *c = calloc((size_t)(a.rows * n), eb);
        for (int64_t q = 0; q < a.cols * n; ++q)
            prec == RT_FP32 ? (void)(((float *)bd)[q] = (float)(q % 7) - 3.0f)
                            : (void)(((double *)bd)[q] = (double)(q % 7) - 3.0);
        const sp2_tile td = {SP2_DENSE, prec, a.cols, n, a.cols * n, NULL, NULL, bd};
        CHECK(sp2_spmm_acc(&ta, &td, c, n) == 2.0 * (double)a.nnz * (double)n);
        double err2 = 0;
        for (int64_t r = 0; r < a.rows; ++r)
            for (int64_t j = 0; j < n; ++j) {
                double s = 0;
                for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e)
                    s += a.val[e] * ((double)((a.colidx[e] * n + j) % 7) - 3.0);
                const double got =
                    prec == RT_FP32 ? ((float *)c)[r * n + j] : ((double *)c)[r * n + j];
                err2 += (got - s) * (got - s);
            }
        CHECK_MSG(sqrt(err2) < 1e-3, "spmm error %g", sqrt(err2));
        free(bd);
        free(c);
        sp2_spacc_free(&acc);
        sp2_csrbuf_free(&fin);
        sp2_csrbuf_free(&out);
        sp2_spa_free(&w);
        free(want);
        free(av);
        free(bv);
    }
    rt_csr_free(&a);
    rt_csr_free(&b);
}

/* Tiles fetched with gets (and local ones read in place) equal the whole matrix's entries. */
static void test_dist(rt_comm *c)
{
    rt_err err;
    rt_csr a;
    CHECK(make_matrix(&a, 53, 41, 5, 21) == 0);
    sp2_layout L;
    char why[256];
    const int pr = (P % 2 == 0) ? 2 : 1;
    CHECK(sp2_layout_init(&L, P, rt_mpi_rank, pr, 2, a.rows, a.cols, 17, why, sizeof why) == 0);
    sp2_dmat d;
    CHECK_MSG(sp2_dmat_sparse(&d, c, &L, SP2_OWN_A, &a, L.MT, L.KT, RT_FP64, "A", &err) == 0, "%s",
              err.msg);
    unsigned char *stage = malloc((size_t)d.max_bytes);
    int64_t seen = 0;
    for (int ti = 0; ti < d.tr; ++ti)
        for (int tj = 0; tj < d.tc; ++tj) {
            const void *blk = sp2_dmat_local_block(&d, ti, tj);
            const sp2_tile_info *e = sp2_dmat_info(&d, ti, tj);
            CHECK((blk != NULL) == (e->owner == rt_mpi_rank));
            CHECK(e->owner == sp2_owner(&L, SP2_OWN_A, ti, tj));
            if (!blk) {
                sp2_fetch f;
                CHECK(sp2_dmat_fetch(&d, ti, tj, stage, &f, &err) == 0);
                CHECK(sp2_fetch_wait(&f, &err) == 0);
                blk = stage;
            }
            sp2_tile t;
            sp2_dmat_view(&d, ti, tj, blk, &t);
            for (int64_t r = 0; r < t.rows; ++r) {
                const int64_t gr = d.row_bounds[ti] + r;
                for (int64_t q = t.rowptr[r]; q < t.rowptr[r + 1]; ++q) {
                    const int64_t gc = d.col_bounds[tj] + t.colidx[q];
                    /* Find (gr, gc) in the whole matrix. */
                    double v = NAN;
                    for (int64_t x = a.rowptr[gr]; x < a.rowptr[gr + 1]; ++x)
                        if (a.colidx[x] == gc)
                            v = a.val[x];
                    CHECK(v == ((const double *)t.val)[q]);
                    ++seen;
                }
            }
        }
    CHECK(seen == a.nnz);
    free(stage);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    sp2_dmat_free(&d);
    rt_csr_free(&a);
}

/* Queue test: messages carry (sender, sequence, value); the callback sums values per sender and
 * counts messages, so a lost or doubled message shows. */
typedef struct qctx {
    int64_t count;
    double sum;
    int64_t *per_sender;
} qctx;

static int q_handler(void *ctx, const void *msg, size_t bytes, rt_err *err)
{
    qctx *q = ctx;
    if (bytes != 24)
        return rt_err_set(err, "message of %zu bytes", bytes);
    int64_t h[2];
    double v;
    memcpy(h, msg, 16);
    memcpy(&v, (const char *)msg + 16, 8);
    q->count++;
    q->sum += v;
    q->per_sender[h[0]]++;
    return 0;
}

static void test_queue(rt_comm *c)
{
    rt_err err;
    qctx ctx = {0, 0.0, calloc((size_t)P, sizeof(int64_t))};
    sp2_queue *q = NULL;
    /* Two slots per queue: writers must wait for room and drain their own queue meanwhile. */
    CHECK_MSG(sp2_queue_create(c, 24, 2, q_handler, &ctx, &q, &err) == 0, "%s", err.msg);
    if (!q)
        return;
    const int M = 40;
    for (int rep = 0; rep < 2; ++rep) { /* two runs: reset must make the second one clean */
        ctx.count = 0;
        ctx.sum = 0;
        memset(ctx.per_sender, 0, (size_t)P * sizeof(int64_t));
        CHECK(sp2_queue_reset(q, &err) == 0);
        MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
        for (int s = 0; s < M; ++s)
            for (int d = 0; d < P; ++d) {
                unsigned char *buf = sp2_queue_buffer(q);
                const int64_t h[2] = {rt_mpi_rank, s};
                const double v = (double)(rt_mpi_rank + 1) * (s + 1);
                memcpy(buf, h, 16);
                memcpy(buf + 16, &v, 8);
                CHECK_MSG(sp2_queue_push(q, (rt_mpi_rank + d) % P, 24, &err) == 0, "%s", err.msg);
            }
        CHECK(sp2_queue_finish(q, &err) == 0);
        double idle = -1;
        CHECK_MSG(sp2_queue_drain_all(q, &idle, &err) == 0, "%s", err.msg);
        CHECK(idle >= 0);
        CHECK_MSG(ctx.count == (int64_t)M * P, "received %lld", (long long)ctx.count);
        double want = 0;
        for (int r = 0; r < P; ++r)
            want += (double)(r + 1) * M * (M + 1) / 2.0;
        CHECK_MSG(ctx.sum == want, "sum %g want %g", ctx.sum, want);
        for (int r = 0; r < P; ++r)
            CHECK(ctx.per_sender[r] == M);
        sp2_queue_stats st;
        sp2_queue_stats_read(q, &st);
        CHECK(st.self == M && st.pushed == (int64_t)M * (P - 1) &&
              st.popped == (int64_t)M * (P - 1));
        MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    }
    /* A message over the slot size, or to a rank that does not exist, is refused. */
    CHECK(sp2_queue_push(q, 0, 25, &err) != 0);
    CHECK(sp2_queue_push(q, P, 8, &err) != 0);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    sp2_queue_free(q);
    free(ctx.per_sender);
}

/* Every rank claims from every counter until exhausted: each value below the limit once. */
static void test_workgrid(rt_comm *c)
{
    rt_err err;
    const int64_t n = 7, limit = 25;
    int owner[7];
    for (int e = 0; e < n; ++e)
        owner[e] = (e * 3) % P;
    sp2_workgrid *g = NULL;
    CHECK(sp2_workgrid_create(c, n, owner, &g, &err) == 0);
    if (!g)
        return;
    CHECK(sp2_workgrid_size(g) == n && sp2_workgrid_owner(g, 3) == owner[3]);
    int *mine = calloc((size_t)(n * limit), sizeof *mine),
        *all = calloc((size_t)(n * limit), sizeof *all);
    for (int rep = 0; rep < 2; ++rep) {
        memset(mine, 0, (size_t)(n * limit) * sizeof *mine);
        CHECK(sp2_workgrid_reset(g, &err) == 0);
        MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
        for (int64_t d = 0; d < n; ++d) {
            const int64_t e = (d + rt_mpi_rank) % n;
            for (;;) {
                int64_t got = -1;
                CHECK(sp2_workgrid_claim(g, e, &got, &err) == 0);
                if (got < 0 || got >= limit)
                    break;
                mine[e * limit + got]++;
            }
        }
        MPI_Allreduce(mine, all, (int)(n * limit), MPI_INT, MPI_SUM, rt_comm_mpi(c, RT_COMM_WORLD));
        int once = 1;
        for (int64_t q = 0; q < n * limit; ++q)
            once &= all[q] == 1;
        CHECK_MSG(once, "a piece was claimed twice or never (run %d)", rep);
        MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    }
    int64_t v;
    CHECK(sp2_workgrid_claim(g, n, &v, &err) != 0);
    free(mine);
    free(all);
    MPI_Barrier(rt_comm_mpi(c, RT_COMM_WORLD));
    sp2_workgrid_free(g);
}

static double rel_err_global(const double *out, const double *ref, int64_t n)
{
    double d[2] = {0, 0}, g[2];
    for (int64_t q = 0; q < n; ++q) {
        if (!isfinite(out[q]))
            return INFINITY;
        d[0] += (out[q] - ref[q]) * (out[q] - ref[q]);
        d[1] += ref[q] * ref[q];
    }
    MPI_Allreduce(d, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(g[0] / g[1]);
}

/* Every kernel, driven like the runner drives it, against its family's reference; then a wrong
 * output (one value changed) must exceed the tolerance. */
static void test_kernels(rt_comm *c, const rt_registry *reg)
{
    rt_err err;
    rt_csr a;
    CHECK(make_matrix(&a, 61, 61, 4, 31) == 0);
    const rt_kernel_desc *const *const lists[2] = {rt_spmm2d_kernels(), rt_spgemm2d_kernels()};
    for (int li = 0; li < 2; ++li)
        for (const rt_kernel_desc *const *kp = lists[li]; *kp; ++kp) {
            const rt_kernel_desc *k = *kp;
            const rt_family_desc *fam = rt_registry_find_family(reg, k->family);
            CHECK(fam && fam->wants_whole_matrix == 1);
            for (int pi = 0; pi < 2; ++pi) {
                rt_params prob, par;
                rt_params_init(&prob);
                rt_params_init(&par);
                rt_params_set(&prob, "precision", rt_value_str(pi ? "fp64" : "fp32"), &err);
                if (strcmp(k->family, "spmm2d") == 0)
                    rt_params_set(&prob, "N", rt_value_int(9), &err);
                rt_params_set(&par, "refine", rt_value_int(2), &err);
                if (rt_kernel_find_param(k, "queue_slots"))
                    rt_params_set(&par, "queue_slots", rt_value_int(1), &err);
                if (rt_kernel_find_param(k, "prefetch"))
                    rt_params_set(&par, "prefetch", rt_value_int(pi), &err);
                void *in = NULL;
                const rt_job job = {.rank = rt_mpi_rank, .nranks = P};
                CHECK_MSG(fam->make_inputs(&a, &prob, &job, &in, &err) == 0, "%s", err.msg);
                const int64_t n = fam->output_elems(in);
                double *ref = malloc((size_t)(n > 0 ? n : 1) * sizeof *ref);
                double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
                CHECK(fam->reference(in, ref, &err) == 0);
                const rt_kernel_env env = {NULL, NULL, rt_mpi_rank, P, c};
                void *st = NULL;
                CHECK_MSG(k->setup(k, in, &par, &env, &st, &err) == 0, "%s: %s", k->name, err.msg);
                double sec = 0;
                for (int rep = 0; st && rep < 2; ++rep) {
                    for (int64_t q = 0; q < n; ++q)
                        out[q] = NAN;
                    CHECK_MSG(k->run(st, &sec, &err) == 0, "%s: %s", k->name, err.msg);
                    CHECK(sec > 0);
                    CHECK_MSG(k->output(st, out, &err) == 0, "%s: %s", k->name, err.msg);
                    const double e = rel_err_global(out, ref, n);
                    CHECK_MSG(e <= fam->tolerance(in), "%s %s: relative error %g", k->name,
                              pi ? "fp64" : "fp32", e);
                }
                if (st) {
                    /* One changed value on the last rank with outputs fails verification. */
                    int has = n > 0, last = -1;
                    int cand = has ? rt_mpi_rank : -1;
                    MPI_Allreduce(&cand, &last, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                    if (rt_mpi_rank == last)
                        out[n / 2] += 1e-3 * (fabs(out[n / 2]) + 1.0);
                    CHECK_MSG(rel_err_global(out, ref, n) > fam->tolerance(in),
                              "%s: a wrong value passed", k->name);
                    rt_metrics mt;
                    rt_metrics_init(&mt);
                    CHECK(k->metrics(st, &mt, &err) == 0);
                    const rt_metric *tt = rt_metrics_get(&mt, "tasks_total");
                    const rt_metric *te = rt_metrics_get(&mt, "tasks_executed");
                    if (strstr(k->name, ".ws_")) {
                        CHECK(tt && te && tt->value == te->value && tt->value > 0);
                    } else {
                        CHECK(!tt && !te);
                    }
                    CHECK(rt_metrics_get(&mt, "compute_s_max") &&
                          rt_metrics_get(&mt, "imbalance_s_avg"));
                    rt_traffic tr;
                    CHECK_MSG(k->traffic(k, in, &par, &env, &tr, &err) == 0, "%s", err.msg);
                    k->teardown(st);
                }
                fam->free_inputs(in);
                free(ref);
                free(out);
            }
        }
    rt_csr_free(&a);
}

/* Setup that fails on one rank only (its inputs were made for another job size) fails on every
 * rank, naming that rank, instead of leaving the others in a collective. */
static void test_setup_failure(rt_comm *c)
{
    if (P < 2)
        return;
    rt_err err;
    rt_csr a;
    CHECK(make_matrix(&a, 30, 30, 3, 41) == 0);
    sp2_inputs *in = NULL;
    const int bad = P - 1;
    CHECK(sp2_inputs_create(0, &a, 4, RT_FP64, 1, rt_mpi_rank == bad ? 0 : rt_mpi_rank,
                            rt_mpi_rank == bad ? 1 : P, &in, &err) == 0);
    const rt_kernel_desc *k = rt_spmm2d_kernels()[0];
    const rt_kernel_env env = {NULL, NULL, rt_mpi_rank, P, c};
    rt_params par;
    rt_params_init(&par);
    void *st = NULL;
    rt_err_clear(&err);
    const int rc = k->setup(k, in, &par, &env, &st, &err);
    CHECK(rc == -1 && st == NULL);
    char want[32];
    snprintf(want, sizeof want, "rank %d", bad);
    CHECK_MSG(strstr(err.msg, want) && strstr(err.msg, "inputs were built"), "%s", err.msg);
    /* An infeasible grid is infeasible on every rank. */
    sp2_inputs_destroy(in);
    CHECK(sp2_inputs_create(0, &a, 4, RT_FP64, 1, rt_mpi_rank, P, &in, &err) == 0);
    rt_params_set(&par, "pr", rt_value_int(P + 1), &err);
    CHECK(k->setup(k, in, &par, &env, &st, &err) == 1 && st == NULL);
    CHECK_MSG(strstr(err.msg, "does not divide"), "%s", err.msg);
    sp2_inputs_destroy(in);
    /* SpGEMM needs a square matrix. */
    rt_csr r;
    CHECK(make_matrix(&r, 30, 20, 2, 5) == 0);
    CHECK(sp2_inputs_create(1, &r, 0, RT_FP64, 1, rt_mpi_rank, P, &in, &err) != 0);
    CHECK_MSG(strstr(err.msg, "square"), "%s", err.msg);
    rt_csr_free(&r);
    rt_csr_free(&a);
}

/* The SpGEMM signature: exact C through the same formula gives the reference; one changed entry
 * of C moves it far beyond the tolerance. */
static void test_signature(void)
{
    rt_err err;
    rt_csr a;
    CHECK(make_matrix(&a, 40, 40, 3, 51) == 0);
    sp2_inputs *in = NULL;
    CHECK(sp2_inputs_create(1, &a, 0, RT_FP64, 3, 0, 1, &in, &err) == 0);
    const rt_family_desc *fam = rt_spgemm2d_family();
    const int64_t n = fam->output_elems(in);
    CHECK(n == 40 * SP2_SIG_COLS);
    double *ref = malloc((size_t)n * sizeof *ref), *sig = calloc((size_t)n, sizeof *sig);
    CHECK(fam->reference(in, ref, &err) == 0);
    /* C = A * A densely, then C X. */
    double *cd = calloc(40 * 40, sizeof *cd);
    for (int64_t r = 0; r < 40; ++r)
        for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e)
            for (int64_t f = a.rowptr[a.colidx[e]]; f < a.rowptr[a.colidx[e] + 1]; ++f)
                cd[r * 40 + a.colidx[f]] += a.val[e] * a.val[f];
    for (int pass = 0; pass < 2; ++pass) {
        memset(sig, 0, (size_t)n * sizeof *sig);
        for (int64_t r = 0; r < 40; ++r)
            for (int64_t q = 0; q < 40; ++q)
                for (int s = 0; s < SP2_SIG_COLS; ++s)
                    sig[r * SP2_SIG_COLS + s] += cd[r * 40 + q] * sp2_sig_value(3, q, s);
        double d2 = 0, r2 = 0;
        for (int64_t q = 0; q < n; ++q) {
            d2 += (sig[q] - ref[q]) * (sig[q] - ref[q]);
            r2 += ref[q] * ref[q];
        }
        if (pass == 0) {
            CHECK_MSG(sqrt(d2 / r2) < fam->tolerance(in), "exact C: %g", sqrt(d2 / r2));
            cd[17 * 40 + 3] += 0.01; /* one wrong (possibly new) entry */
        } else {
            CHECK_MSG(sqrt(d2 / r2) > 1e3 * fam->tolerance(in), "one wrong entry: %g",
                      sqrt(d2 / r2));
        }
    }
    /* Flops of C = A * A: two per product pair. */
    double f = 0;
    for (int64_t e = 0; e < a.nnz; ++e)
        f += 2.0 * (double)(a.rowptr[a.colidx[e] + 1] - a.rowptr[a.colidx[e]]);
    CHECK(fam->flops(in) == f);
    free(cd);
    free(ref);
    free(sig);
    sp2_inputs_destroy(in);
    rt_csr_free(&a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    const rt_comm_opts opts = {argc > 1 ? atoi(argv[1]) : 0, 0};
    rt_comm *c = NULL;
    rt_err err;
    rt_registry reg;
    rt_registry_init(&reg);
    if (rt_comm_create(&opts, &c, &err) != 0 || rt_kernels_register_builtin(&reg, &err) != 0) {
        fprintf(stderr, "[rank %d] %s\n", rt_mpi_rank, err.msg);
        MPI_Finalize();
        return 1;
    }
    test_layout();
    test_local();
    test_signature();
    test_dist(c);
    test_queue(c);
    test_workgrid(c);
    test_kernels(c, &reg);
    test_setup_failure(c);
    int all = 0;
    MPI_Allreduce(&rt_mpi_failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rt_comm_free(c);
    MPI_Finalize();
    if (rt_mpi_rank == 0)
        printf("spmm2d parts: %s (%d failed checks over all ranks)\n", all ? "FAILED" : "ok", all);
    return all ? 1 : 0;
}
