/* The job a family builds its inputs for (rt_job.h): every family that splits its problem by rank
 * builds job->rank's share of job->nranks, whatever MPI_COMM_WORLD says. This process never
 * starts MPI, so a family that read the world's place instead (the bug of spread sptrsv baselines:
 * a quarter of x built and verified on 4 ranks) would build the whole problem for {1, 4} and fail
 * here, without mpirun.
 *
 * For each family, under the jobs {r, 4} for r = 0..3 against the one-rank job {0, 1}: every share
 * is smaller than the whole, the shares' outputs and flops add up to the whole's, each share's
 * reference is the whole's reference at the share's offset (the canonical split, whatever
 * built it), and footprint agrees with make_inputs on the output. Then GEMM's and the triangular
 * solve's {1, 4} shares against hand counts, and garbage jobs refused with the place named. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_generators.h"
#include "rt_job.h"
#include "rt_kernels.h"
#include "rt_registry.h"
#include "rt_test.h"

#define NSHARES 4

/* One family's case: its problem point and the matrix it is built on. */
typedef struct family_case {
    const char *family;
    const rt_csr *a;
    rt_params problem;
} family_case;

static void set_int(rt_params *p, const char *name, int64_t v)
{
    rt_err err;
    RT_CHECK_MSG(rt_params_set(p, name, rt_value_int(v), &err) == 0, "%s: %s", name, err.msg);
}

static void set_str(rt_params *p, const char *name, const char *v)
{
    rt_err err;
    RT_CHECK_MSG(rt_params_set(p, name, rt_value_str(v), &err) == 0, "%s: %s", name, err.msg);
}

static int build(const char *generator, rt_params *args, rt_csr *a)
{
    rt_err err;
    const int rc = rt_matrix_build(generator, args, NULL, NULL, a, &err);
    RT_CHECK_MSG(rc == 0, "%s: %s", generator, err.msg);
    return rc;
}

/* The inputs, output count, flops and reference of one family under one job; 0 when built. */
typedef struct share {
    void *inputs;
    int64_t n_out;
    double flops;
    double *ref;
} share;

static int make_share(const rt_family_desc *fam, const family_case *c, const rt_job *job, share *s)
{
    memset(s, 0, sizeof *s);
    rt_err err;
    rt_err_clear(&err);
    if (rt_family_make_inputs(fam, c->a, &c->problem, job, NULL, &s->inputs, &err) != 0) {
        RT_CHECK_MSG(0, "%s job {%d, %d}: %s", c->family, job->rank, job->nranks, err.msg);
        return -1;
    }
    s->n_out = fam->output_elems(s->inputs);
    s->flops = fam->flops(s->inputs);
    s->ref = malloc((size_t)(s->n_out > 0 ? s->n_out : 1) * sizeof *s->ref);
    RT_CHECK(s->ref != NULL);
    if (s->ref && fam->reference(s->inputs, s->ref, &err) != 0)
        RT_CHECK_MSG(0, "%s job {%d, %d}: reference: %s", c->family, job->rank, job->nranks,
                     err.msg);
    if (rt_family_has_footprint(fam)) {
        rt_footprint fp;
        memset(&fp, 0, sizeof fp);
        RT_CHECK_MSG(rt_family_footprint(fam, c->a, &c->problem, job, &fp, &err) == 0,
                     "%s job {%d, %d}: footprint: %s", c->family, job->rank, job->nranks, err.msg);
        RT_CHECK_MSG(fp.output_elems == s->n_out,
                     "%s job {%d, %d}: footprint's %lld outputs, make_inputs' %lld", c->family,
                     job->rank, job->nranks, (long long)fp.output_elems, (long long)s->n_out);
    }
    return 0;
}

static void free_share(const rt_family_desc *fam, share *s)
{
    if (s->inputs)
        fam->free_inputs(s->inputs);
    free(s->ref);
    memset(s, 0, sizeof *s);
}

/* The shares of NSHARES ranks partition the one-rank job's problem. */
static void check_partition(const rt_family_desc *fam, const family_case *c)
{
    const rt_job alone = rt_job_alone();
    share whole;
    if (make_share(fam, c, &alone, &whole) != 0)
        return;
    RT_CHECK_MSG(whole.n_out >= NSHARES, "%s: %lld outputs are too few to split", c->family,
                 (long long)whole.n_out);
    int64_t offset = 0;
    double flops = 0.0;
    for (int r = 0; r < NSHARES; ++r) {
        const rt_job job = {.rank = r, .nranks = NSHARES};
        share s;
        if (make_share(fam, c, &job, &s) != 0)
            continue;
        RT_CHECK_MSG(s.n_out < whole.n_out, "%s job {%d, %d}: %lld outputs, the whole has %lld",
                     c->family, r, NSHARES, (long long)s.n_out, (long long)whole.n_out);
        RT_CHECK_MSG(s.flops < whole.flops, "%s job {%d, %d}: %g flops, the whole %g", c->family, r,
                     NSHARES, s.flops, whole.flops);
        int64_t differ = 0;
        for (int64_t i = 0; s.ref && whole.ref && i < s.n_out && offset + i < whole.n_out; ++i) {
            const double w = whole.ref[offset + i];
            differ += !(fabs(s.ref[i] - w) <= 1e-12 * fmax(1.0, fabs(w)));
        }
        RT_CHECK_MSG(differ == 0,
                     "%s job {%d, %d}: %lld of its %lld reference values are not the whole's "
                     "from %lld on",
                     c->family, r, NSHARES, (long long)differ, (long long)s.n_out,
                     (long long)offset);
        offset += s.n_out;
        flops += s.flops;
        free_share(fam, &s);
    }
    RT_CHECK_MSG(offset == whole.n_out, "%s: the shares hold %lld outputs, the whole %lld",
                 c->family, (long long)offset, (long long)whole.n_out);
    RT_CHECK_MSG(fabs(flops - whole.flops) <= 1e-9 * whole.flops,
                 "%s: the shares' flops add to %.17g, the whole's are %.17g", c->family, flops,
                 whole.flops);
    printf("%s: %lld outputs, %.6g flops, split over %d ranks as the one-rank job's\n", c->family,
           (long long)whole.n_out, whole.flops, NSHARES);
    free_share(fam, &whole);
}

/* Hand counts: GEMM N = 64 checks all 64 x 64 entries of C, a quarter each on 4 ranks, and a
 * rank's nominal flops are 2 N^3 / 4; the triangular solve of a 64-row Laplacian with 2
 * right-hand sides reports rows 16..31 of X on rank 1 of 4, 2 x 16 values. */
static void check_counts(const rt_family_desc *gemm, const family_case *gc,
                         const rt_family_desc *sptrsv, const family_case *sc)
{
    const rt_job alone = rt_job_alone(), second = {.rank = 1, .nranks = 4};
    share w, s;
    memset(&w, 0, sizeof w);
    memset(&s, 0, sizeof s);
    if (make_share(gemm, gc, &alone, &w) == 0 && make_share(gemm, gc, &second, &s) == 0) {
        RT_CHECK_MSG(w.n_out == 64 * 64 && s.n_out == 64 * 64 / 4, "gemm: %lld and %lld outputs",
                     (long long)w.n_out, (long long)s.n_out);
        RT_CHECK_MSG(w.flops == 2.0 * 64 * 64 * 64 && s.flops == 2.0 * 64 * 64 * 64 / 4,
                     "gemm: %g and %g flops", w.flops, s.flops);
    }
    free_share(gemm, &w);
    free_share(gemm, &s);
    memset(&w, 0, sizeof w);
    memset(&s, 0, sizeof s);
    if (make_share(sptrsv, sc, &alone, &w) == 0 && make_share(sptrsv, sc, &second, &s) == 0) {
        RT_CHECK_MSG(w.n_out == 64 * 2 && s.n_out == 16 * 2, "sptrsv: %lld and %lld outputs",
                     (long long)w.n_out, (long long)s.n_out);
        for (int64_t i = 0; w.ref && s.ref && i < s.n_out; ++i)
            RT_CHECK_MSG(s.ref[i] == w.ref[16 * 2 + i], "sptrsv: X[%lld] of rank 1 of 4",
                         (long long)(16 * 2 + i));
        RT_CHECK_MSG(fabs(s.flops - w.flops / 4) <= 1e-12 * w.flops, "sptrsv: %g of %g flops",
                     s.flops, w.flops);
    }
    free_share(sptrsv, &w);
    free_share(sptrsv, &s);
}

/* A job that is no place in a job is refused by the family's own hooks and by the registry's,
 * naming the place; nothing is built. */
static void check_garbage(const rt_family_desc *fam, const family_case *c)
{
    const rt_job bad[] = {{4, 4}, {-1, 4}, {0, 0}, {0, -3}, {2, 1}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char place[64];
        snprintf(place, sizeof place, "rank %d of %d ranks", bad[i].rank, bad[i].nranks);
        rt_err err;
        rt_err_clear(&err);
        void *inputs = NULL;
        RT_CHECK_MSG(fam->make_inputs(c->a, &c->problem, &bad[i], &inputs, &err) != 0 && !inputs,
                     "%s accepts %s", c->family, place);
        RT_CHECK_MSG(rt_test_contains(err.msg, place), "%s, %s: '%s'", c->family, place, err.msg);
        rt_err_clear(&err);
        RT_CHECK(rt_family_make_inputs(fam, c->a, &c->problem, &bad[i], NULL, &inputs, &err) != 0 &&
                 !inputs && rt_test_contains(err.msg, place));
        rt_footprint fp;
        rt_err_clear(&err);
        RT_CHECK_MSG(fam->footprint(c->a, &c->problem, &bad[i], &fp, &err) != 0 &&
                         rt_test_contains(err.msg, place),
                     "%s footprint, %s: '%s'", c->family, place, err.msg);
    }
    rt_err err;
    rt_err_clear(&err);
    void *inputs = NULL;
    RT_CHECK(fam->make_inputs(c->a, &c->problem, NULL, &inputs, &err) != 0 && !inputs &&
             rt_test_contains(err.msg, "no job"));
    rt_err_clear(&err);
    RT_CHECK(rt_family_make_inputs(fam, c->a, &c->problem, NULL, NULL, &inputs, &err) != 0 &&
             !inputs && rt_test_contains(err.msg, "no job"));
    rt_footprint fp;
    rt_err_clear(&err);
    RT_CHECK(rt_family_footprint(fam, c->a, &c->problem, NULL, &fp, &err) != 0 &&
             rt_test_contains(err.msg, "no job"));
}

int main(void)
{
    rt_registry reg;
    rt_registry_init(&reg);
    rt_err err;
    if (rt_kernels_register_builtin(&reg, &err) != 0) {
        fprintf(stderr, "register: %s\n", err.msg);
        return 1;
    }
    rt_params args;
    rt_params_init(&args);
    set_int(&args, "stencil", 5);
    set_int(&args, "nx", 8);
    rt_csr lap, w0;
    memset(&lap, 0, sizeof lap);
    memset(&w0, 0, sizeof w0);
    if (build("laplacian", &args, &lap) != 0)
        return 1;
    rt_params_init(&args);
    set_int(&args, "neurons", 1024);
    set_int(&args, "layer", 0);
    set_int(&args, "seed", 1);
    if (build("sparse_dnn", &args, &w0) != 0) {
        rt_csr_free(&lap);
        return 1;
    }
    RT_CHECK(lap.rows == 64);

    enum { GEMM, SPTRSV, SPMM2D, SPGEMM2D, DSPMM, SPDNN, NCASES };
    family_case cases[NCASES] = {
        [GEMM] = {.family = "gemm", .a = &lap},     [SPTRSV] = {.family = "sptrsv", .a = &lap},
        [SPMM2D] = {.family = "spmm2d", .a = &lap}, [SPGEMM2D] = {.family = "spgemm2d", .a = &lap},
        [DSPMM] = {.family = "dspmm", .a = &lap},   [SPDNN] = {.family = "spdnn", .a = &w0},
    };
    for (int i = 0; i < NCASES; ++i)
        rt_params_init(&cases[i].problem);
    set_int(&cases[GEMM].problem, "N", 64);
    set_str(&cases[GEMM].problem, "precision", "fp64");
    set_int(&cases[SPTRSV].problem, "nrhs", 2);
    set_int(&cases[SPMM2D].problem, "N", 3);
    set_str(&cases[SPMM2D].problem, "precision", "fp64");
    set_str(&cases[SPGEMM2D].problem, "precision", "fp64");
    set_int(&cases[DSPMM].problem, "K", 3);
    set_str(&cases[DSPMM].problem, "precision", "fp64");
    set_int(&cases[SPDNN].problem, "layers", 2);
    set_int(&cases[SPDNN].problem, "features", 9);
    RT_CHECK(rt_params_set(&cases[SPDNN].problem, "feature_density", rt_value_real(0.5), &err) ==
             0);

    const rt_family_desc *fams[NCASES];
    for (int i = 0; i < NCASES; ++i) {
        fams[i] = rt_registry_find_family(&reg, cases[i].family);
        RT_CHECK_MSG(fams[i] && fams[i]->make_inputs && fams[i]->footprint,
                     "family %s is not registered with make_inputs and footprint", cases[i].family);
    }
    for (int i = 0; i < NCASES; ++i)
        if (fams[i]) {
            check_partition(fams[i], &cases[i]);
            check_garbage(fams[i], &cases[i]);
        }
    if (fams[GEMM] && fams[SPTRSV])
        check_counts(fams[GEMM], &cases[GEMM], fams[SPTRSV], &cases[SPTRSV]);
    rt_csr_free(&lap);
    rt_csr_free(&w0);
    if (rt_test_failures)
        fprintf(stderr, "%d check(s) failed\n", rt_test_failures);
    return rt_test_failures ? 1 : 0;
}
