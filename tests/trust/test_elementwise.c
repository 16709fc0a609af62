/* trust.elementwise (issue 13, item 1): the spmm2d, spgemm2d, gemm and sptrsv families give the
 * gate an elementwise scale (|A||B|, and |A||A||X| for the SpGEMM signature; for gemm each sampled
 * entry's own sum |a_rk||b_kc|; for sptrsv M(L)^-1 |L| |X|), so one output element off by more
 * than its own rounding bound fails verification even when the normwise error of the whole output
 * stays under the tolerance. Before the scale, these families had the normwise check only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_test.h"
#include "gemm_desc.h"
#include "rt_generators.h"
#include "rt_verify.h"
#include "spgemm2d_family.h"
#include "spmm2d_family.h"
#include "sptrsv_family.h"

/* A banded rows x rows matrix, half-bandwidth 3, values in [0.5, 1.5). */
static int banded(int64_t rows, rt_csr *a, rt_err *err)
{
    const int64_t per_row = 7;
    if (rt_csr_alloc(a, rows, rows, rows * per_row, err) != 0)
        return -1;
    int64_t e = 0;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = r - 3; c <= r + 3; ++c)
            if (c >= 0 && c < rows) {
                a->colidx[e] = (int32_t)c;
                a->val[e++] = 0.5 + (double)((r * 7 + c * 3) % 10) / 10.0;
            }
        a->rowptr[r + 1] = e;
    }
    a->nnz = e;
    return 0;
}

/* One element of the reference, moved by 10 x its elementwise bound: the normwise check must pass
 * (a precondition of the test: the output is large) and the elementwise one must not. */
static void check_family(rt_comm *comm, const rt_family_desc *fam, const rt_csr *a,
                         const rt_params *problem)
{
    rt_err err;
    void *inputs = NULL;
    const rt_job job = {.rank = rt_comm_world_rank(comm), .nranks = rt_comm_world_size(comm)};
    RT_CHECK_MSG(fam->make_inputs(a, problem, &job, &inputs, &err) == 0, "%s: %s", fam->name,
                 err.msg);
    if (!inputs)
        return;
    RT_CHECK_MSG(fam->reference_scale != NULL, "%s gives no reference_scale", fam->name);
    const int64_t n = fam->output_elems(inputs);
    double *ref = malloc((size_t)n * sizeof *ref);
    double *out = malloc((size_t)n * sizeof *out);
    double *scale = malloc((size_t)n * sizeof *scale);
    RT_CHECK(ref && out && scale);
    if (fam->reference_scale && ref && out && scale && fam->reference(inputs, ref, &err) == 0 &&
        fam->reference_scale(inputs, scale, &err) == 0) {
        const double tol = fam->tolerance(inputs);
        /* The element with the smallest nonzero scale: moving it 10x over its own bound moves
         * the norm least, so the normwise precondition below holds for every family. */
        int64_t pick = -1;
        double scale_max = 0.0, ref_max = 0.0;
        for (int64_t i = 0; i < n; ++i) {
            RT_CHECK_MSG(scale[i] >= fabs(ref[i]) * (1 - 1e-12),
                         "%s: scale %g below |ref| %g at %lld", fam->name, scale[i], fabs(ref[i]),
                         (long long)i);
            if (scale[i] > 0.0 && (pick < 0 || scale[i] < scale[pick]))
                pick = i;
            scale_max = fmax(scale_max, scale[i]);
            ref_max = fmax(ref_max, fabs(ref[i]));
        }
        RT_CHECK_MSG(pick >= 0, "%s: every element's scale is 0", fam->name);
        if (pick < 0)
            pick = 0;
        printf("%s: largest scale %.3g against largest |ref| %.3g\n", fam->name, scale_max,
               ref_max);
        memcpy(out, ref, (size_t)n * sizeof *out);
        rt_verify_result r;
        RT_CHECK(rt_verify_output(comm, out, ref, scale, n, tol, &r, &err) == 0);
        RT_CHECK_MSG(rt_verify_passed(&r) && r.elementwise, "%s: the reference itself fails",
                     fam->name);
        out[pick] = ref[pick] + 10.0 * RT_VERIFY_ELEMENT_FACTOR * tol * scale[pick];
        RT_CHECK(rt_verify_output(comm, out, ref, scale, n, tol, &r, &err) == 0);
        RT_CHECK_MSG(r.rel_error <= tol, "%s: precondition: normwise %g over tolerance %g",
                     fam->name, r.rel_error, tol);
        RT_CHECK_MSG(!rt_verify_passed(&r) && r.n_over == 1 && r.worst_index == pick,
                     "%s: one element 10x over its bound passed (normwise %g, tolerance %g)",
                     fam->name, r.rel_error, tol);
        char why[440];
        rt_verify_describe(&r, why, sizeof why);
        printf("%s: element %lld moved, normwise %.3g <= %.3g, caught: %s\n", fam->name,
               (long long)pick, r.rel_error, tol, why);
    }
    free(ref);
    free(out);
    free(scale);
    fam->free_inputs(inputs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rt_err err;
    rt_comm *comm = NULL;
    if (rt_comm_create(NULL, &comm, &err) != 0) {
        fprintf(stderr, "rt_comm_create: %s\n", err.msg);
        MPI_Finalize();
        return 1;
    }
    rt_csr a;
    memset(&a, 0, sizeof a);
    RT_CHECK(banded(20000, &a, &err) == 0);
    rt_params p;
    rt_params_init(&p);
    RT_CHECK(rt_params_set(&p, "N", rt_value_int(16), &err) == 0);
    RT_CHECK(rt_params_set(&p, "precision", rt_value_str("fp32"), &err) == 0);
    check_family(comm, rt_spmm2d_family(), &a, &p);
    rt_params q;
    rt_params_init(&q);
    RT_CHECK(rt_params_set(&q, "precision", rt_value_str("fp32"), &err) == 0);
    check_family(comm, rt_spgemm2d_family(), &a, &q);
    /* gemm ignores the matrix; M = N = 128 puts all 16384 entries among the samples. The moved
     * element's share of the norm grows like sqrt(K / samples): at K = 32 it already breaks the
     * normwise precondition, at K = 4 it is about 0.4 of the tolerance. */
    rt_params g;
    rt_params_init(&g);
    RT_CHECK(rt_params_set(&g, "N", rt_value_int(128), &err) == 0);
    RT_CHECK(rt_params_set(&g, "K", rt_value_int(4), &err) == 0);
    RT_CHECK(rt_params_set(&g, "precision", rt_value_str("fp32"), &err) == 0);
    check_family(comm, rt_gemm_family(), &a, &g);
    /* sptrsv: the Cholesky factor of a 5-point Laplacian on a 100 x 100 grid (SPD, as the family
     * needs), two right-hand sides; its scale is M(L)^-1 |L| |X|. */
    rt_csr lap;
    memset(&lap, 0, sizeof lap);
    rt_params args;
    rt_params_init(&args);
    RT_CHECK(rt_params_set(&args, "stencil", rt_value_int(5), &err) == 0);
    RT_CHECK(rt_params_set(&args, "nx", rt_value_int(100), &err) == 0);
    RT_CHECK_MSG(rt_matrix_build("laplacian", &args, NULL, NULL, &lap, &err) == 0, "%s", err.msg);
    rt_params t;
    rt_params_init(&t);
    RT_CHECK(rt_params_set(&t, "nrhs", rt_value_int(2), &err) == 0);
    check_family(comm, rt_sptrsv_family(), &lap, &t);
    rt_csr_free(&lap);
    rt_csr_free(&a);
    rt_comm_free(comm);
    MPI_Finalize();
    return RT_TEST_RESULT();
}
