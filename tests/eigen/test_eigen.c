/* Tests of the eigen family's building blocks on the host-memory device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_dev_host.h"
#include "eigen_family.h"
#include "eigen_micro.h"
#include "eigen_mem.h"
#include "eigen_solver.h"
#include "rt_registry.h"
#include "rt_test.h"

/* 2D Laplacian (5-point, Dirichlet) on an nx x ny grid. */
static void laplacian2d(rt_csr *a, int64_t nx, int64_t ny)
{
    const int64_t n = nx * ny;
    int64_t *ri = malloc((size_t)(5 * n) * sizeof *ri), *ci = malloc((size_t)(5 * n) * sizeof *ci);
    double *v = malloc((size_t)(5 * n) * sizeof *v);
    int64_t o = 0;
    for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x) {
            const int64_t r = y * nx + x;
            ri[o] = r, ci[o] = r, v[o++] = 4.0;
            if (x > 0)
                ri[o] = r, ci[o] = r - 1, v[o++] = -1.0;
            if (x + 1 < nx)
                ri[o] = r, ci[o] = r + 1, v[o++] = -1.0;
            if (y > 0)
                ri[o] = r, ci[o] = r - nx, v[o++] = -1.0;
            if (y + 1 < ny)
                ri[o] = r, ci[o] = r + nx, v[o++] = -1.0;
        }
    rt_err err;
    RT_CHECK(rt_csr_from_coo(a, n, n, o, ri, ci, v, &err) == 0);
    free(ri);
    free(ci);
    free(v);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k smallest eigenvalues of the 2D Laplacian: 4 - 2 cos(i pi/(nx+1)) - 2 cos(j pi/(ny+1)). */
static void closed_form(int64_t nx, int64_t ny, double *out, int k)
{
    double *all = malloc((size_t)(nx * ny) * sizeof *all);
    for (int64_t i = 1; i <= nx; ++i)
        for (int64_t j = 1; j <= ny; ++j)
            all[(i - 1) * ny + (j - 1)] =
                4.0 - 2.0 * cos((double)i * 3.14159265358979323846 / (double)(nx + 1)) -
                2.0 * cos((double)j * 3.14159265358979323846 / (double)(ny + 1));
    qsort(all, (size_t)(nx * ny), sizeof *all, cmp_double);
    memcpy(out, all, (size_t)k * sizeof *out);
    free(all);
}

static int solve(const rt_csr *a, eg_config c, eg_result *res, rt_err *err)
{
    eg_solver *s = NULL;
    const int rc = eg_solver_create(a, &c, eg_dev_host(), &s, err);
    if (rc != 0)
        return rc;
    const int r2 = eg_solver_run(s, res, err);
    eg_solver_destroy(s);
    return r2;
}

static void test_mem_exact_bytes(void)
{
    /* Budget for two 1000-byte tiles (rounded to 1024 each); three tiles A, B, C. */
    rt_err err;
    eg_mem m;
    eg_mem_init(&m, eg_dev_host());
    char ha[1000], hb[1000], hc[1000];
    memset(ha, 1, sizeof ha);
    memset(hb, 2, sizeof hb);
    const int a = eg_mem_add(&m, ha, 1000, "A", 0, &err);
    const int b = eg_mem_add(&m, hb, 1000, "B", 1, &err);
    const int c = eg_mem_add(&m, hc, 1000, "C", 2, &err);
    RT_CHECK(eg_mem_open(&m, 2048, &err) == 0);
    void *pa, *pb, *pc;
    /* read A (1000 in), write C (no copy), both pinned */
    RT_CHECK(eg_mem_acquire(&m, a, EG_READ, &pa, &err) == 0);
    RT_CHECK(eg_mem_acquire(&m, c, EG_WRITE, &pc, &err) == 0);
    memset(pc, 7, 1000);
    /* a third pinned tile cannot fit: infeasible, with the reason */
    RT_CHECK(eg_mem_acquire(&m, b, EG_READ, &pb, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "cannot hold B"));
    eg_mem_release(&m, a);
    eg_mem_release(&m, c);
    /* now B evicts A (first in, clean: no write-back) */
    RT_CHECK(eg_mem_acquire(&m, b, EG_READ, &pb, &err) == 0);
    eg_mem_release(&m, b);
    RT_CHECK(m.st.h2d_bytes == 2000.0 && m.st.d2h_bytes == 0.0 && m.st.evictions == 1);
    /* A again: evicts C (dirty: 1000 written back), then the host sees C's values */
    RT_CHECK(eg_mem_acquire(&m, a, EG_READ, &pa, &err) == 0);
    eg_mem_release(&m, a);
    RT_CHECK(m.st.h2d_bytes == 3000.0 && m.st.d2h_bytes == 1000.0 && m.st.evictions == 2);
    RT_CHECK(hc[0] == 7 && hc[999] == 7);
    RT_CHECK(m.st.peak_resident_bytes <= 2048);
    /* compulsory: A and B in once each; C never read back by the host */
    RT_CHECK(m.st.compulsory_h2d == 2000.0 && m.st.compulsory_d2h == 0.0);
    RT_CHECK(eg_mem_host_read(&m, c, &err) == 0);
    RT_CHECK(m.st.compulsory_d2h == 1000.0 && m.st.d2h_bytes == 1000.0);
    eg_mem_destroy(&m);
}

static void test_laplacian(eg_solver_kind kind)
{
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 12, 10);
    double exact[4];
    closed_form(12, 10, exact, 4);
    eg_config c = {kind, 8, 4, kind == EG_LOBPCG ? 60 : 60, 32, 5, EG_SCHED_DAG, 0};
    eg_result res;
    rt_err err;
    RT_CHECK_MSG(solve(&a, c, &res, &err) == 0, "%s", err.msg);
    for (int j = 0; j < 4; ++j)
        RT_CHECK_MSG(fabs(res.ritz[j] - exact[j]) < 1e-8, "%s pair %d: %.12f vs %.12f",
                     eg_solver_name(kind), j, res.ritz[j], exact[j]);
    RT_CHECK_MSG(res.max_rel_res < 1e-6, "%s residual %g", eg_solver_name(kind), res.max_rel_res);
    rt_csr_free(&a);
}

static void test_schedules(eg_solver_kind kind)
{
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 20, 15);
    rt_err err;
    eg_config base = {kind, 8, 4, 12, 300, 9, EG_SCHED_KBK, 0};
    eg_result ref, r;
    RT_CHECK_MSG(solve(&a, base, &ref, &err) == 0, "%s", err.msg);
    const eg_schedule sch[2] = {EG_SCHED_KBK, EG_SCHED_DAG};
    double kbk_h2d = 0.0;
    for (int k = 0; k < 2; ++k) {
        eg_config c = base;
        c.tile = 40;
        c.sched = sch[k];
        c.budget = kind == EG_LOBPCG ? 40000 : 30000;
        eg_solver *s = NULL;
        RT_CHECK_MSG(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == 0, "%s", err.msg);
        if (!s)
            continue;
        RT_CHECK_MSG(eg_solver_run(s, &r, &err) == 0, "%s", err.msg);
        RT_CHECK(r.st.peak_resident_bytes <= c.budget);
        RT_CHECK(r.st.evictions > 0);
        RT_CHECK(r.st.h2d_bytes >= r.st.compulsory_h2d && r.st.d2h_bytes >= r.st.compulsory_d2h);
        for (int j = 0; j < 4; ++j)
            RT_CHECK_MSG(fabs(r.ritz[j] - ref.ritz[j]) <= 1e-10 * fabs(ref.ritz[j]),
                         "%s schedule %d pair %d: %.15g vs %.15g", eg_solver_name(kind), k, j,
                         r.ritz[j], ref.ritz[j]);
        if (k == 0)
            kbk_h2d = r.st.h2d_bytes;
        else
            RT_CHECK_MSG(r.st.h2d_bytes < kbk_h2d, "dag %g bytes in, kbk %g", r.st.h2d_bytes,
                         kbk_h2d);
        eg_solver_destroy(s);
    }
    /* a budget below one task's operands: infeasible, naming the task */
    eg_config tiny = base;
    tiny.tile = 40;
    tiny.budget = 4096;
    eg_solver *s = NULL;
    RT_CHECK(eg_solver_create(&a, &tiny, eg_dev_host(), &s, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "gpu_mem_budget = 4096 bytes is smaller than"));
    rt_csr_free(&a);
}

static void test_no_live_eviction(void)
{
    /* Tight budget: a task's operands fill most of the pool; the observer sees no pinned tile go.
     */
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 10, 10);
    rt_err err;
    eg_config c = {EG_LOBPCG, 4, 2, 5, 20, 3, EG_SCHED_DAG, 0};
    eg_solver *s = NULL;
    c.budget = 1;
    RT_CHECK(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == RT_INFEASIBLE);
    /* the message names the bytes needed: use them as the budget, the smallest feasible one */
    const char *p = strstr(err.msg, "than the ");
    const size_t need = p ? (size_t)strtoull(p + 9, NULL, 10) : 0;
    RT_CHECK(need > 0);
    c.budget = need + 4096;
    RT_CHECK_MSG(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == 0, "%s", err.msg);
    if (s) {
        eg_result r;
        RT_CHECK_MSG(eg_solver_run(s, &r, &err) == 0, "%s", err.msg);
        RT_CHECK(r.st.peak_resident_bytes <= c.budget);
        eg_solver_destroy(s);
    }
    rt_csr_free(&a);
}

/* The graph schedule (in core): the same iterates as kbk and the same copies as dag; segments are
 * captured on their second sight and replayed after; the first and last iterations' segments
 * occur once per run, so the second run captures those and the third captures nothing (the host
 * device has no graphs, so its "graph" is the bound list, replayed as recorded). */
static void test_graph_schedule(void)
{
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 20, 15);
    rt_err err;
    eg_config c = {EG_LOBPCG, 8, 4, 12, 40, 9, EG_SCHED_KBK, 0};
    eg_result ref, dag, r;
    RT_CHECK_MSG(solve(&a, c, &ref, &err) == 0, "%s", err.msg);
    c.sched = EG_SCHED_DAG;
    RT_CHECK_MSG(solve(&a, c, &dag, &err) == 0, "%s", err.msg);
    c.sched = EG_SCHED_GRAPH;
    eg_solver *s = NULL;
    RT_CHECK_MSG(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == 0, "%s", err.msg);
    for (int run = 0; s && run < 3; ++run) {
        RT_CHECK_MSG(eg_solver_run(s, &r, &err) == 0, "%s", err.msg);
        for (int j = 0; j < 4; ++j)
            RT_CHECK_MSG(fabs(r.ritz[j] - ref.ritz[j]) <= 1e-10 * fabs(ref.ritz[j]),
                         "graph run %d pair %d: %.15g vs %.15g", run, j, r.ritz[j], ref.ritz[j]);
        RT_CHECK_MSG(r.st.h2d_bytes == dag.st.h2d_bytes && r.st.d2h_bytes == dag.st.d2h_bytes,
                     "graph moved %g/%g bytes, dag %g/%g", r.st.h2d_bytes, r.st.d2h_bytes,
                     dag.st.h2d_bytes, dag.st.d2h_bytes);
        RT_CHECK(r.graph.segments > 0 && r.graph.launches + r.graph.eager == r.graph.segments);
        /* 12 iterations of identical segments: most are replays */
        RT_CHECK_MSG(r.graph.launches > r.graph.segments / 2, "%lld launches of %lld segments",
                     (long long)r.graph.launches, (long long)r.graph.segments);
        if (run == 0)
            RT_CHECK(r.graph.captures > 0 && r.graph.eager > 0);
        else if (run == 2)
            RT_CHECK_MSG(r.graph.captures == 0 && r.graph.eager == 0,
                         "third run captured %lld graphs", (long long)r.graph.captures);
    }
    eg_solver_destroy(s);
    /* out of core, or Lanczos: infeasible, saying why */
    c.budget = 40000;
    s = NULL;
    RT_CHECK(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "schedule graph runs in core only"));
    c.budget = 0;
    c.solver = EG_LANCZOS;
    RT_CHECK(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "schedule graph is for lobpcg"));
    rt_csr_free(&a);
}

/* The microbenchmarks' problems (solver spmm and xty) through the family: output sizes, and the
 * reference against products written out entry by entry from the matrix in dense form. */
static void test_micro_reference(void)
{
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 5, 4);
    const int64_t n = a.rows, b = 3;
    double *dense = calloc((size_t)(n * n), sizeof *dense);
    double *out = malloc((size_t)(n * b) * sizeof *out);
    RT_CHECK(dense && out);
    if (!dense || !out) {
        free(dense);
        free(out);
        rt_csr_free(&a);
        return;
    }
    for (int64_t r = 0; r < n; ++r)
        for (int64_t e = a.rowptr[r]; e < a.rowptr[r + 1]; ++e)
            dense[r * n + a.colidx[e]] = a.val[e];
    const rt_family_desc *fam = rt_eigen_family();
    rt_err err;
    for (int op = EG_SPMM; op <= EG_XTY; ++op) {
        eg_config c;
        memset(&c, 0, sizeof c);
        c.solver = (eg_solver_kind)op;
        c.block = b;
        c.seed = 7;
        eg_inputs *in = NULL;
        RT_CHECK_MSG(eg_inputs_create(&a, &c, 0, 1e-6, &in, &err) == 0, "%s", err.msg);
        if (!in)
            continue;
        const int64_t elems = fam->output_elems(in);
        RT_CHECK(elems == (op == EG_SPMM ? n * b : b * b));
        RT_CHECK(fam->tolerance(in) <= 1e-12);
        RT_CHECK_MSG(fam->reference(in, out, &err) == 0, "%s", err.msg);
        double worst = 0.0;
        for (int64_t i = 0; i < (op == EG_SPMM ? n : b); ++i)
            for (int64_t j = 0; j < b; ++j) {
                double want = 0.0;
                for (int64_t k = 0; k < n; ++k)
                    want += op == EG_SPMM ? dense[i * n + k] * eg_micro_value(7, 0, k, j)
                                          : eg_micro_value(7, 0, k, i) * eg_micro_value(7, 1, k, j);
                worst = fmax(worst, fabs(out[i * b + j] - want));
            }
        RT_CHECK_MSG(worst < 1e-12, "%s reference off by %g", eg_solver_name(c.solver), worst);
        /* the solvers refuse a microbenchmark problem */
        eg_solver *s = NULL;
        c.nev = 1;
        c.iters = 1;
        RT_CHECK(eg_solver_create(&a, &c, eg_dev_host(), &s, &err) != 0);
        RT_CHECK(rt_test_contains(err.msg, "is a microbenchmark, not a solver"));
        eg_inputs_destroy(in);
    }
    free(dense);
    free(out);
    rt_csr_free(&a);
}

/* In core, one more LOBPCG iteration moves exactly the small matrices: the partial Gram buffers
 * are summed on the device, so only the three reduced ones go to the host (residual Gram b x b,
 * GA and GB 3b x 3b), and the host's four results come back (Ritz values b x b, residual scaling
 * b x b, X and P coefficients 3b x b each). The host waits twice per iteration (residual norms,
 * Rayleigh-Ritz), once in the final residual check and once at the end. */
static void test_incore_iteration_traffic(void)
{
    rt_csr a;
    memset(&a, 0, sizeof a);
    laplacian2d(&a, 20, 15);
    rt_err err;
    const int64_t b = 8;
    eg_result r[2];
    for (int k = 0; k < 2; ++k) {
        eg_config c = {EG_LOBPCG, b, 4, 5 + k, 40, 9, EG_SCHED_DAG, 0};
        RT_CHECK_MSG(solve(&a, c, &r[k], &err) == 0, "%s", err.msg);
        RT_CHECK_MSG(r[k].st.syncs == 2 * c.iters + 2, "%lld host waits in %lld iterations",
                     (long long)r[k].st.syncs, (long long)c.iters);
    }
    const double w = (double)sizeof(double);
    const double d2h = r[1].st.d2h_bytes - r[0].st.d2h_bytes;
    const double h2d = r[1].st.h2d_bytes - r[0].st.h2d_bytes;
    RT_CHECK_MSG(d2h == w * (double)(b * b + 2 * 9 * b * b), "one iteration moved %g bytes out",
                 d2h);
    RT_CHECK_MSG(h2d == w * (double)(2 * b * b + 2 * 3 * b * b), "one iteration moved %g bytes in",
                 h2d);
    RT_CHECK(r[1].st.d2h_copies - r[0].st.d2h_copies == 3);
    RT_CHECK(r[1].st.h2d_copies - r[0].st.h2d_copies == 4);
    rt_csr_free(&a);
}

int main(void)
{
    test_mem_exact_bytes();
    test_laplacian(EG_LOBPCG);
    test_laplacian(EG_LANCZOS);
    test_schedules(EG_LOBPCG);
    test_schedules(EG_LANCZOS);
    test_no_live_eviction();
    test_incore_iteration_traffic();
    test_graph_schedule();
    test_micro_reference();
    return RT_TEST_RESULT();
}
