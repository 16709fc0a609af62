/* The eigen family's verification gate (eigen_family.c): a Laplacian is checked against its
 * closed-form eigenvalues, a 125-point stencil (no closed form) against the in-core run, and
 * every returned pair must reach res_tol: an unconverged run fails the gate. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eigen_dev_host.h"
#include "eigen_family.h"
#include "eigen_model.h"
#include "rt_generators.h"
#include "rt_test.h"

/* The runner's relative L2 error of output against reference. */
static double rel_error(const double *o, const double *r, int64_t n)
{
    double d2 = 0.0, r2 = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(o[i]))
            return INFINITY;
        d2 += (o[i] - r[i]) * (o[i] - r[i]);
        r2 += r[i] * r[i];
    }
    return sqrt(d2 / r2);
}

/* Runs one point as the runner would and returns the gate's relative error (or -1). */
static double gate(const rt_csr *a, const char *solver, int64_t iters, int *exact, double *tol)
{
    rt_err err;
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "solver", rt_value_str(solver), &err);
    rt_params_set(&p, "block", rt_value_int(8), &err);
    rt_params_set(&p, "nev", rt_value_int(4), &err);
    rt_params_set(&p, "iters", rt_value_int(iters), &err);
    rt_params_set(&p, "res_tol", rt_value_real(1e-6), &err);
    const rt_family_desc *f = rt_eigen_family();
    void *inputs = NULL;
    const rt_job alone = rt_job_alone();
    RT_CHECK_MSG(f->make_inputs(a, &p, &alone, &inputs, &err) == 0, "%s", err.msg);
    if (!inputs)
        return -1.0;
    const eg_inputs *in = inputs;
    *exact = in->exact;
    *tol = f->tolerance(inputs);
    const int64_t n = f->output_elems(inputs);
    double *ref = calloc((size_t)n, sizeof *ref), *out = calloc((size_t)n, sizeof *out);
    RT_CHECK_MSG(f->reference(inputs, ref, &err) == 0, "%s", err.msg);
    eg_config c = in->cfg;
    c.tile = 50;
    c.sched = EG_SCHED_DAG;
    c.budget = 0;
    eg_solver *s = NULL;
    eg_result res;
    double e = -1.0;
    if (eg_solver_create(in->a, &c, eg_dev_host(), &s, &err) == 0 &&
        eg_solver_run(s, &res, &err) == 0) {
        eg_gate_output(in, &res, out);
        e = rel_error(out, ref, n);
    } else {
        RT_CHECK_MSG(0, "%s", err.msg);
    }
    eg_solver_destroy(s);
    free(ref);
    free(out);
    f->free_inputs(inputs);
    return e;
}

static void build(int points, int64_t nx, int64_t ny, int64_t nz, rt_csr *a)
{
    rt_err err;
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "points", rt_value_int(points), &err);
    rt_params_set(&args, "nx", rt_value_int(nx), &err);
    rt_params_set(&args, "ny", rt_value_int(ny), &err);
    rt_params_set(&args, "nz", rt_value_int(nz), &err);
    RT_CHECK_MSG(rt_matrix_build("stencil", &args, NULL, NULL, a, &err) == 0, "%s", err.msg);
}

/* The link projection: compute plus bytes over bandwidth, one entry per link. */
static void test_projection(void)
{
    RT_CHECK(fabs(eg_model_project(0.01, 16e9, 16e9) - 1.01) < 1e-12);
    RT_CHECK(fabs(eg_model_project(-1.0, 32e9, 32e9) - 1.0) < 1e-12); /* negative compute: 0 */
    int n = 0;
    const eg_link *l = eg_model_links(&n);
    RT_CHECK(n == 4 && l[0].bytes_per_s < l[1].bytes_per_s && l[2].bytes_per_s < l[3].bytes_per_s);
    rt_metrics m;
    rt_metrics_init(&m);
    eg_model_add_metrics(&m, 0.5, 64e9);
    const rt_metric *p5 = rt_metrics_get(&m, "projected_s_per_iter_pcie5");
    RT_CHECK(p5 && fabs(p5->value - 1.5) < 1e-12);
}

int main(void)
{
    test_projection();
    rt_csr lap, s125;
    build(5, 12, 10, 1, &lap);
    build(125, 5, 5, 4, &s125);
    int exact = -1;
    double tol = 0.0;
    /* converged: closed form matched, residuals below res_tol */
    double e = gate(&lap, "lobpcg", 80, &exact, &tol);
    RT_CHECK(exact == 1 && tol == 1e-6);
    RT_CHECK_MSG(e >= 0.0 && e <= tol, "lobpcg Laplacian gate error %g", e);
    e = gate(&lap, "lanczos", 100, &exact, &tol);
    RT_CHECK_MSG(e >= 0.0 && e <= tol, "lanczos Laplacian gate error %g", e);
    /* unconverged: the gate must fail even though the iterates are computed correctly */
    e = gate(&lap, "lobpcg", 3, &exact, &tol);
    RT_CHECK_MSG(e > tol, "3 LOBPCG iterations passed the gate (error %g)", e);
    e = gate(&lap, "lanczos", 10, &exact, &tol);
    RT_CHECK_MSG(e > tol, "10 Lanczos steps passed the gate (error %g)", e);
    /* no closed form: the in-core reference and the residual scores */
    e = gate(&s125, "lobpcg", 80, &exact, &tol);
    RT_CHECK(exact == 0);
    RT_CHECK_MSG(e >= 0.0 && e <= tol, "125-point gate error %g", e);
    e = gate(&s125, "lobpcg", 3, &exact, &tol);
    RT_CHECK_MSG(e > tol, "3 iterations on the 125-point stencil passed the gate (error %g)", e);
    rt_csr_free(&lap);
    rt_csr_free(&s125);
    return RT_TEST_RESULT();
}
