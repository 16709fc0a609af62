/* sptrsv in one process: the DAGs' level counts and the model's critical paths against hand counts
 * on small hand-made triangular matrices; CHOLMOD factors of grid Laplacians (plain and with split
 * supernodes) solved by the level-set kernel and the supernodal block solve, against the family
 * reference and with a tiny residual; clear errors for non-symmetric, indefinite and singular
 * matrices. */
#include <math.h>
#include <stdlib.h>

#include "rt_generators.h"
#include "rt_test.h"
#include "sptrsv_test_matrix.h"
#include "sptrsv_block.h"
#include "sptrsv_cpu_levelset.h"
#include "sptrsv_family.h"
#include "sptrsv_model.h"
#include "sptrsv_plan.h"

static void lower(rt_csr *l, int64_t n, int64_t nnz, const int64_t *ri, const int64_t *ci)
{
    double v[64];
    for (int64_t e = 0; e < nnz; ++e)
        v[e] = ri[e] == ci[e] ? 2.0 : -0.5;
    rt_err err;
    RT_CHECK(rt_csr_from_coo(l, n, n, nnz, ri, ci, v, &err) == 0);
}

static const sptrsv_costs unit_costs = {.unit_bps = 1e30,
                                        .peak_bps = 1e30,
                                        .sync_s = 0.0,
                                        .task_s = 1.0,
                                        .lat_s = {0},
                                        .bw_bps = {1e30, 1e30, 1e30}};

/* Chain 0 -> 1 -> 2 -> 4 and 3 -> 4: four levels; the longest chain has 4 supernodes. */
static void test_hand_dag(void)
{
    const int64_t ri[] = {0, 1, 1, 2, 2, 3, 4, 4, 4};
    const int64_t ci[] = {0, 0, 1, 1, 2, 3, 2, 3, 4};
    rt_csr l;
    lower(&l, 5, 9, ri, ci);
    sptrsv_factor f;
    sptrsv_dag d;
    rt_err err;
    RT_CHECK(sptrsv_factor_from_lower(&l, &f, &err) == 0);
    RT_CHECK(sptrsv_dag_build(&f, &d, &err) == 0);
    RT_CHECK_MSG(d.n_levels == 4, "levels %lld", (long long)d.n_levels);
    RT_CHECK(d.super_levels == 4);
    RT_CHECK(d.n_edges == 4);
    RT_CHECK(d.max_level_width == 2); /* rows 0 and 3 */
    sptrsv_prediction p;
    sptrsv_model_syncfree(&f, &d, 1, &unit_costs, &p);
    RT_CHECK_MSG(p.path_tasks == 4 && fabs(p.time_s - 4.0) < 1e-9, "syncfree %lld %g",
                 (long long)p.path_tasks, p.time_s);
    sptrsv_model_levelset(&f, &d, 1, 8, &unit_costs, &p);
    RT_CHECK(p.path_tasks == 4);
    /* One rank: every task runs on it, one after another: the path holds all 5, no messages. */
    sptrsv_plan plan;
    int tier1[1] = {0};
    RT_CHECK(sptrsv_plan_build(&f, &d, 1, 1, &plan, &err) == 0);
    RT_CHECK(plan.messages == 0);
    RT_CHECK(sptrsv_model_distributed(&f, &d, &plan, tier1, &unit_costs, &p, &err) == 0);
    RT_CHECK_MSG(p.path_tasks == 5 && p.path_messages == 0 && fabs(p.time_s - 5.0) < 1e-9,
                 "P=1: %lld tasks %lld messages %g s", (long long)p.path_tasks,
                 (long long)p.path_messages, p.time_s);
    sptrsv_plan_free(&plan);
    /* Two ranks (even supernodes on 0, odd on 1), message latency 10 s per hop: the chain
     * 0 -> 1 -> 2 -> 4 crosses ranks three times (0:r0, 1:r1, 2:r0, 4:r0): 4 tasks + 2 messages
     * (1 -> 2 and 0 -> 1; 2 -> 4 is local) = 4 + 20 = 24 s; 3 (r1) -> 4 arrives at 1 + 10 s. */
    sptrsv_costs slow = unit_costs;
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        slow.lat_s[t] = 10.0;
    int tier2[4] = {0, 0, 0, 0};
    RT_CHECK(sptrsv_plan_build(&f, &d, 2, 1, &plan, &err) == 0);
    RT_CHECK_MSG(plan.messages == 3, "messages %lld", (long long)plan.messages); /* x0, x1, x3 */
    RT_CHECK(sptrsv_model_distributed(&f, &d, &plan, tier2, &slow, &p, &err) == 0);
    RT_CHECK_MSG(p.path_tasks == 4 && p.path_messages == 2 && fabs(p.time_s - 24.0) < 1e-9,
                 "P=2: %lld tasks %lld messages %g s", (long long)p.path_tasks,
                 (long long)p.path_messages, p.time_s);
    sptrsv_plan_free(&plan);
    sptrsv_dag_free(&d);
    sptrsv_factor_free(&f);
    rt_csr_free(&l);
}

static double rel_err(const double *x, const double *y, int64_t n)
{
    double num = 0.0, den = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        num += (x[i] - y[i]) * (x[i] - y[i]);
        den += y[i] * y[i];
    }
    return sqrt(num / den);
}

static void test_solve(int stencil, int nx, int64_t nrhs, sptrsv_ordering ord, int64_t cap)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, stencil, nx);
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_sptrsv_inputs_create(&a, nrhs, ord, cap, 3, 0, 1, &in, &err) == 0, "%s",
                 err.msg);
    if (!in) {
        rt_csr_free(&a);
        return;
    }
    if (cap > 0)
        for (int64_t s = 0; s < in->f.nsuper; ++s)
            RT_CHECK(sptrsv_ncols(&in->f, s) <= cap);
    const int64_t m = in->n * nrhs;
    double *ref = malloc((size_t)m * sizeof *ref), *x = malloc((size_t)m * sizeof *x),
           *lsum = malloc((size_t)m * sizeof *lsum);
    const rt_family_desc *fam = rt_sptrsv_family();
    RT_CHECK(fam->reference(in, ref, &err) == 0);
    RT_CHECK(sptrsv_residual(in, ref) < 1e-15);
    sptrsv_block_solve_all(&in->f, &in->dag, nrhs, in->b, x, lsum);
    RT_CHECK_MSG(rel_err(x, ref, m) < 1e-13, "block solve error %g", rel_err(x, ref, m));
    /* The level-set kernel through its descriptor, as the runner drives it. */
    const rt_kernel_desc *k = rt_sptrsv_cpu_levelset_kernel();
    rt_params kp;
    rt_params_init(&kp);
    RT_CHECK(rt_params_set(&kp, "threads", rt_value_int(2), &err) == 0);
    rt_device_info dev = {.sm_count = 2};
    rt_kernel_env env = {.device = &dev, .rank = 0, .nranks = 1};
    void *st = NULL;
    RT_CHECK_MSG(k->setup(k, in, &kp, &env, &st, &err) == 0, "%s", err.msg);
    double sec = 0.0;
    for (int64_t i = 0; i < m; ++i)
        x[i] = NAN;
    RT_CHECK(k->run(st, &sec, &err) == 0 && k->output(st, x, &err) == 0);
    RT_CHECK_MSG(rel_err(x, ref, m) < fam->tolerance(in), "level-set error %g", rel_err(x, ref, m));
    rt_metrics met;
    rt_metrics_init(&met);
    RT_CHECK(k->metrics(st, &met, &err) == 0);
    const rt_metric *r = rt_metrics_get(&met, "residual");
    RT_CHECK(r && r->value < 1e-15);
    const rt_metric *cp = rt_metrics_get(&met, "critical_path_len");
    RT_CHECK(cp && cp->value == (double)in->dag.n_levels);
    k->teardown(st);
    free(ref);
    free(x);
    free(lsum);
    rt_sptrsv_inputs_destroy(in);
    rt_csr_free(&a);
}

static void expect_error(const rt_csr *a, const char *needle)
{
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK(rt_sptrsv_inputs_create(a, 1, SPTRSV_ORDER_AMD, 0, 1, 0, 1, &in, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, needle), "'%s' lacks '%s'", err.msg, needle);
    rt_sptrsv_inputs_destroy(in);
}

static void test_bad_inputs(void)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, 5, 4);
    a.val[0] = -4.0; /* indefinite */
    expect_error(&a, "not positive definite");
    a.val[0] = 4.0;
    a.val[1] = -2.0; /* A(1,2) != A(2,1) */
    expect_error(&a, "not symmetric");
    rt_csr_free(&a);
    /* Singular: [[1, 0], [0, 0]]. */
    const int64_t ri[] = {0, 1}, ci[] = {0, 1};
    const double v[] = {1.0, 0.0};
    rt_err err;
    RT_CHECK(rt_csr_from_coo(&a, 2, 2, 2, ri, ci, v, &err) == 0);
    expect_error(&a, "not positive definite");
    rt_csr_free(&a);
    /* One triangle only: A(1,2) = 1 but A(2,1) absent; the message ends the clause cleanly (it
     * once printed "is absent0"). */
    const int64_t ri2[] = {0, 0, 1}, ci2[] = {0, 1, 1};
    const double v2[] = {4.0, 1.0, 4.0};
    RT_CHECK(rt_csr_from_coo(&a, 2, 2, 3, ri2, ci2, v2, &err) == 0);
    expect_error(&a, "A(2,1) is absent (sptrsv needs an SPD matrix");
    rt_csr_free(&a);
}

int main(void)
{
    test_hand_dag();
    test_solve(5, 12, 1, SPTRSV_ORDER_AMD, 0);
    test_solve(7, 6, 4, SPTRSV_ORDER_METIS, 0);
    test_solve(27, 5, 3, SPTRSV_ORDER_NATURAL, 2);
    test_solve(5, 9, 64, SPTRSV_ORDER_AMD, 1);
    test_bad_inputs();
    return RT_TEST_RESULT();
}
