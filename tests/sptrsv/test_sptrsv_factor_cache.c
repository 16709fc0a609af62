/* The factor cache and the backward solve, under mpirun (any rank count, one host):
 *   - L^T X = B: the family's reference against a direct check (L^T X - B at rounding level), its
 *     elementwise scale above the reference's real error, the residual seeing a wrong element;
 *   - every rank asks for the same factor through an empty cache at once: exactly one rank
 *     factorises (factor_cached = 0), the others read it (= 1), and every rank's factor equals a
 *     factorisation without the cache, value for value, split or not;
 *   - a cache file that is truncated or of another matrix is not used: the factor is made again
 *     and the file replaced; a folder that cannot be made is an error naming it.
 * argv[1]: a scratch folder (removed and made again by rank 0). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_generators.h"
#include "rt_strutil.h"
#include "rt_test.h"
#include "sptrsv_test_matrix.h"
#include "sptrsv_factor_cache.h"
#include "sptrsv_family.h"

static int rank_ = 0, size_ = 1;

/* L^T X = B by its definition: the largest |(L^T X - B)_ij| relative to |B|. */
static double transpose_error(const rt_sptrsv_inputs *in, const double *x)
{
    const rt_csr *l = &in->f.csr;
    const int64_t k = in->nrhs;
    double *r = calloc((size_t)(in->n * k), sizeof *r);
    for (int64_t i = 0; i < in->n; ++i)
        for (int64_t e = l->rowptr[i]; e < l->rowptr[i + 1]; ++e)
            for (int64_t j = 0; j < k; ++j)
                r[(int64_t)l->colidx[e] * k + j] += l->val[e] * x[i * k + j];
    double worst = 0.0, bmax = 0.0;
    for (int64_t q = 0; q < in->n * k; ++q) {
        worst = fmax(worst, fabs(r[q] - in->b[q]));
        bmax = fmax(bmax, fabs(in->b[q]));
    }
    free(r);
    return worst / bmax;
}

static void test_backward(int stencil, int nx, int64_t nrhs)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, stencil, nx);
    rt_sptrsv_inputs *in = NULL;
    rt_err err;
    RT_CHECK_MSG(rt_sptrsv_inputs_create(&a, nrhs, SPTRSV_ORDER_METIS, 8, 5, 0, 1, &in, &err) == 0,
                 "%s", err.msg);
    in->backward = 1;
    const int64_t m = in->n * nrhs;
    double *x = malloc((size_t)m * sizeof *x), *w = malloc((size_t)m * sizeof *w);
    const rt_family_desc *fam = rt_sptrsv_family();
    RT_CHECK(fam->reference(in, x, &err) == 0);
    RT_CHECK_MSG(transpose_error(in, x) < 1e-13, "L^T X - B = %g", transpose_error(in, x));
    RT_CHECK(sptrsv_residual(in, x) < 1e-15);
    RT_CHECK(fam->reference_scale(in, w, &err) == 0);
    for (int64_t q = 0; q < m; ++q)
        RT_CHECK(w[q] >= fabs(x[q])); /* w includes |x| itself */
    /* The forward reference of the same B differs: the direction is not ignored. */
    double *xf = malloc((size_t)m * sizeof *xf);
    in->backward = 0;
    RT_CHECK(fam->reference(in, xf, &err) == 0);
    double diff = 0.0;
    for (int64_t q = 0; q < m; ++q)
        diff = fmax(diff, fabs(xf[q] - x[q]));
    RT_CHECK(diff > 1e-3);
    in->backward = 1;
    x[m / 2] += 1e-6 * (1.0 + fabs(x[m / 2])); /* one wrong element shows in the residual */
    RT_CHECK_MSG(sptrsv_residual(in, x) > 1e-12, "residual %g", sptrsv_residual(in, x));
    x[m / 2] = NAN;
    RT_CHECK(isnan(sptrsv_residual(in, x)));
    char why[256];
    RT_CHECK(sptrsv_forward_only(in, "k", why, sizeof why) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(why, "solve: forward"));
    in->backward = 0;
    RT_CHECK(sptrsv_forward_only(in, "k", why, sizeof why) == 0);
    free(x);
    free(w);
    free(xf);
    rt_sptrsv_inputs_destroy(in);
    rt_csr_free(&a);
}

static int same_factor(const sptrsv_factor *f, const sptrsv_factor *g)
{
    if (f->n != g->n || f->nsuper != g->nsuper || f->nval != g->nval || f->csr.nnz != g->csr.nnz ||
        f->rowstart[f->nsuper] != g->rowstart[g->nsuper])
        return 0;
    return memcmp(f->val, g->val, (size_t)f->nval * sizeof *f->val) == 0 &&
           memcmp(f->rows, g->rows, (size_t)f->rowstart[f->nsuper] * sizeof *f->rows) == 0 &&
           memcmp(f->first, g->first, (size_t)(f->nsuper + 1) * sizeof *f->first) == 0 &&
           memcmp(f->origin, g->origin, (size_t)f->nsuper * sizeof *f->origin) == 0 &&
           memcmp(f->perm, g->perm, (size_t)f->n * sizeof *f->perm) == 0;
}

static void test_cache(const char *dir)
{
    rt_csr a;
    sptrsv_test_laplacian(&a, 7, 7);
    rt_err err;
    sptrsv_factor direct, split_direct;
    RT_CHECK(sptrsv_factor_create(&a, SPTRSV_ORDER_METIS, 0, &direct, &err) == 0);
    RT_CHECK(sptrsv_factor_create(&a, SPTRSV_ORDER_METIS, 4, &split_direct, &err) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    /* Every rank at once through the empty cache: one factorises, the rest wait and read. */
    sptrsv_factor f;
    int cached = -1;
    RT_CHECK_MSG(sptrsv_factor_create_cached(&a, SPTRSV_ORDER_METIS, 0, dir, &f, &cached, &err) ==
                     0,
                 "%s", err.msg);
    int made = cached == 0, total = 0;
    MPI_Allreduce(&made, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    RT_CHECK_MSG(total == 1, "%d ranks factorised through one cache", total);
    RT_CHECK(same_factor(&f, &direct));
    sptrsv_factor_free(&f);
    /* Another split of the same factorisation comes from the same file. */
    RT_CHECK(sptrsv_factor_create_cached(&a, SPTRSV_ORDER_METIS, 4, dir, &f, &cached, &err) == 0);
    RT_CHECK(cached == 1 && same_factor(&f, &split_direct));
    sptrsv_factor_free(&f);
    /* Another ordering is another key. */
    RT_CHECK(sptrsv_factor_create_cached(&a, SPTRSV_ORDER_AMD, 0, dir, &f, &cached, &err) == 0);
    made = cached == 0;
    MPI_Allreduce(&made, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    RT_CHECK(total == 1);
    sptrsv_factor_free(&f);
    MPI_Barrier(MPI_COMM_WORLD);
    /* A broken file (cut short) is made again and replaced. */
    char hex[17], path[1200];
    rt_hash_hex(sptrsv_factor_cache_key(&a, SPTRSV_ORDER_METIS), hex);
    snprintf(path, sizeof path, "%s/sptrsv-%s.factor", dir, hex);
    if (rank_ == 0)
        RT_CHECK(truncate(path, 100) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    sptrsv_raw_factor raw;
    char why[1300] = "";
    if (rank_ == 0) {
        RT_CHECK(sptrsv_factor_cache_read(dir, sptrsv_factor_cache_key(&a, SPTRSV_ORDER_METIS),
                                          &raw, why, sizeof why, &err) == 0);
        RT_CHECK_MSG(rt_test_contains(why, "broken write"), "%s", why);
        /* A file of another matrix under this key (its header's key differs). */
        RT_CHECK(sptrsv_factor_cache_read(dir, 12345, &raw, why, sizeof why, &err) == 0);
        RT_CHECK_MSG(rt_test_contains(why, "no cached factor"), "%s", why);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    RT_CHECK(sptrsv_factor_create_cached(&a, SPTRSV_ORDER_METIS, 0, dir, &f, &cached, &err) == 0);
    made = cached == 0;
    MPI_Allreduce(&made, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    RT_CHECK_MSG(total == 1, "%d ranks factorised after the file broke", total);
    RT_CHECK(same_factor(&f, &direct));
    sptrsv_factor_free(&f);
    /* A cache folder that cannot be made (a file is in the way) is an error naming it. */
    char blocked[1200];
    snprintf(blocked, sizeof blocked, "%s/blocker-%d", dir, rank_);
    FILE *fp = fopen(blocked, "w");
    RT_CHECK(fp != NULL);
    if (fp)
        fclose(fp);
    char sub[1300];
    snprintf(sub, sizeof sub, "%s/sub", blocked);
    RT_CHECK(sptrsv_factor_create_cached(&a, SPTRSV_ORDER_METIS, 0, sub, &f, &cached, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "blocker"), "%s", err.msg);
    sptrsv_factor_free(&direct);
    sptrsv_factor_free(&split_direct);
    rt_csr_free(&a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCRATCH\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/cache", argv[1]);
    if (rank_ == 0) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        RT_CHECK(system(cmd) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        test_backward(5, 9, 1);
        test_backward(7, 5, 3);
        test_backward(27, 4, 32);
    }
    test_cache(dir);
    int fails = RT_TEST_RESULT(), any = 0;
    MPI_Allreduce(&fails, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
