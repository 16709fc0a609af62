/* Generators: argument schemas and defaults, the properties each model promises, determinism. */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_gen_sparse_dnn.h"
#include "rt_generators.h"
#include "rt_hilbert.h"
#include "rt_matrix.h"
#include "rt_test.h"
#include "rt_test_matrix.h"

/* Builds generator with (name, double value) argument pairs ended by NULL; integral values
 * are passed as ints, like a YAML config would. */
static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int build(const char *generator, const char *ordering, rt_csr *out, rt_err *err, ...)
{
    rt_params args;
    rt_params_init(&args);
    va_list ap;
    va_start(ap, err);
    for (;;) {
        const char *name = va_arg(ap, const char *);
        if (!name)
            break;
        const double value = va_arg(ap, double);
        rt_params_set(&args, name,
                      value == floor(value) ? rt_value_int((int64_t)value) : rt_value_real(value),
                      err);
    }
    va_end(ap);
    const int rc = rt_matrix_build(generator, &args, NULL, ordering, out, err);
    if (rc == 0)
        RT_CHECK_MSG(rt_csr_validate(out, err) == 0, "%s: %s", generator, err->msg);
    return rc;
}

/* The Laplacians' nonzero counts on a 3-point-wide grid, counted by hand: 2D 5-point 9 + 2 * 12
 * edges; 3D 7-point 27 + 2 * 54 edges; 27-point (2 + 3 + 2)^3 pairs within one step. Rows sum to 0
 * or more (diagonal = neighbour count of the stencil). */
static void test_laplacian(void)
{
    const int stencil[] = {5, 7, 27};
    const int64_t want[] = {33, 135, 343};
    for (int k = 0; k < 3; ++k) {
        rt_params args;
        rt_params_init(&args);
        rt_err err;
        rt_csr a;
        RT_CHECK(rt_params_set(&args, "stencil", rt_value_int(stencil[k]), &err) == 0);
        RT_CHECK(rt_params_set(&args, "nx", rt_value_int(3), &err) == 0);
        RT_CHECK_MSG(rt_matrix_build("laplacian", &args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
        RT_CHECK_MSG(a.nnz == want[k], "stencil %d: %lld nonzeros", stencil[k], (long long)a.nnz);
        for (int64_t i = 0; i < a.rows; ++i) {
            double sum = 0.0;
            for (int64_t e = a.rowptr[i]; e < a.rowptr[i + 1]; ++e)
                sum += a.val[e];
            RT_CHECK(sum >= 0.0);
        }
        rt_csr_free(&a);
    }
}

/* Garbage arguments of the laplacian generator are refused, naming the argument and its domain. */
static void test_laplacian_bad_args(void)
{
    const struct {
        const char *name;
        int64_t value;
    } bad[] = {{"stencil", 9}, {"nx", 0}, {"ny", -3}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        rt_params args;
        rt_params_init(&args);
        rt_err err;
        rt_err_clear(&err);
        rt_csr a;
        memset(&a, 0, sizeof a);
        RT_CHECK(rt_params_set(&args, bad[k].name, rt_value_int(bad[k].value), &err) == 0);
        RT_CHECK_MSG(rt_matrix_build("laplacian", &args, NULL, NULL, &a, &err) != 0,
                     "laplacian accepted %s = %lld", bad[k].name, (long long)bad[k].value);
        RT_CHECK_MSG(rt_test_contains(err.msg, bad[k].name), "error without the argument: %s",
                     err.msg);
        rt_csr_free(&a);
    }
}

static void test_registry_and_defaults(void)
{
    rt_err err;
    RT_CHECK(rt_generator_count() == 7);
    const char *names[] = {"uniform",    "banded",    "rmat",   "xct",
                           "sparse_dnn", "laplacian", "stencil"};
    for (int k = 0; k < 6; ++k) {
        const rt_generator_desc *g = rt_generator_find(names[k]);
        RT_CHECK_MSG(g != NULL && rt_generator_at(k) == g, "%s", names[k]);
        if (!g)
            continue;
        /* Every default satisfies its own domain, so an empty argument list always works. */
        for (int a = 0; a < g->n_args; ++a) {
            rt_value v;
            char why[256];
            RT_CHECK(rt_param_default(&g->args[a], &v, &err) == 0);
            RT_CHECK_MSG(rt_param_check(&g->args[a], &v, why, sizeof why) == 0, "%s.%s: %s",
                         g->name, g->args[a].name, why);
        }
        rt_params full;
        RT_CHECK_MSG(rt_generator_fill_defaults(g, NULL, &full, &err) == 0, "%s", err.msg);
        RT_CHECK(full.n == g->n_args);
    }
    RT_CHECK(rt_generator_find("nope") == NULL && rt_generator_at(7) == NULL &&
             rt_generator_at(-1) == NULL);

    const rt_generator_desc *u = rt_generator_find("uniform");
    rt_params given, full;
    rt_params_init(&given);
    rt_params_set(&given, "rows", rt_value_real(500.0), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) == 0);
    RT_CHECK(rt_params_get(&full, "rows")->kind == RT_V_INT &&
             rt_params_int(&full, "rows", 0) == 500);
    RT_CHECK(rt_params_int(&full, "cols", 0) == 500); /* derived: cols = rows */
    RT_CHECK(rt_params_int(&full, "nnz_per_row", 0) == 16);
    RT_CHECK(rt_params_int(&full, "seed", -1) == 1);

    rt_params_set(&given, "rwos", rt_value_int(5), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) != 0 &&
             rt_test_contains(err.msg, "did you mean 'rows'"));
    rt_params_init(&given);
    rt_params_set(&given, "rows", rt_value_int(0), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) != 0 &&
             rt_test_contains(err.msg, "1..2000000000"));
    rt_params_set(&given, "rows", rt_value_str("many"), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) != 0 &&
             rt_test_contains(err.msg, "must be a number"));
    rt_params_set(&given, "rows", rt_value_real(10.5), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) != 0 &&
             rt_test_contains(err.msg, "integer"));
    rt_params_init(&given);
    rt_params_set(&given, "seed", rt_value_real(1e30), &err);
    RT_CHECK(rt_generator_fill_defaults(u, &given, &full, &err) != 0 &&
             rt_test_contains(err.msg, "64-bit"));

    rt_params_init(&given);
    rt_params_set(&given, "image", rt_value_int(10), &err);
    RT_CHECK(rt_generator_fill_defaults(rt_generator_find("xct"), &given, &full, &err) == 0);
    RT_CHECK(rt_params_int(&full, "angles", 0) == 10 && rt_params_int(&full, "detectors", 0) == 15);

    rt_params_init(&given);
    rt_params_set(&given, "neurons", rt_value_int(2048), &err);
    RT_CHECK(rt_generator_fill_defaults(rt_generator_find("sparse_dnn"), &given, &full, &err) !=
                 0 &&
             rt_test_contains(err.msg, "1024|4096|16384|65536"));
}

static void test_build_errors(void)
{
    rt_err err;
    rt_csr m;
    RT_CHECK(rt_matrix_build("unifrom", NULL, NULL, NULL, &m, &err) != 0 &&
             rt_test_contains(err.msg, "did you mean 'uniform'"));
    RT_CHECK(rt_matrix_build("zzzzzzzz", NULL, NULL, NULL, &m, &err) != 0 &&
             rt_test_contains(err.msg, "unknown generator"));
    RT_CHECK(rt_matrix_build(NULL, NULL, NULL, NULL, &m, &err) != 0 &&
             rt_test_contains(err.msg, "either a generator or"));
    RT_CHECK(rt_matrix_build("uniform", NULL, "a.mtx", NULL, &m, &err) != 0 &&
             rt_test_contains(err.msg, "not both"));
    RT_CHECK(rt_matrix_build("uniform", NULL, NULL, "rmc", &m, &err) != 0 &&
             rt_test_contains(err.msg, "did you mean 'rcm'"));
    RT_CHECK(rt_matrix_build("uniform", NULL, NULL, "hilbert", &m, &err) != 0 &&
             rt_test_contains(err.msg, "xct"));
    RT_CHECK(rt_matrix_build("", NULL, "x.mtx", "hilbert", &m, &err) != 0 &&
             rt_test_contains(err.msg, "xct"));
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(5), &err);
    RT_CHECK(rt_matrix_build(NULL, &args, "x.mtx", NULL, &m, &err) != 0 &&
             rt_test_contains(err.msg, "'rows' applies to generators"));
    RT_CHECK(build("uniform", NULL, &m, &err, "rows", 10.0, "nnz_per_row", 11.0, NULL) != 0 &&
             rt_test_contains(err.msg, "nnz_per_row = 11 exceeds cols = 10"));
    RT_CHECK(build("rmat", NULL, &m, &err, "scale", 4.0, "a", 0.7, "b", 0.3, "c", 0.2, NULL) != 0 &&
             rt_test_contains(err.msg, "exceeds 1"));
    /* Sizes that cannot fit are refused before any allocation. */
    RT_CHECK(build("uniform", NULL, &m, &err, "rows", 2000000000.0, "nnz_per_row", 2000000000.0,
                   NULL) != 0 &&
             rt_test_contains(err.msg, "bytes"));
    RT_CHECK(build("xct", NULL, &m, &err, "image", 46340.0, "angles", 1000000.0, NULL) != 0 &&
             rt_test_contains(err.msg, "bytes"));
}

static void check_determinism(const char *generator, double size_arg_value, const char *size_arg)
{
    rt_err err;
    rt_csr a, b, c;
    RT_CHECK(build(generator, NULL, &a, &err, size_arg, size_arg_value, "seed", 7.0, NULL) == 0);
    RT_CHECK(build(generator, NULL, &b, &err, size_arg, size_arg_value, "seed", 7.0, NULL) == 0);
    RT_CHECK(build(generator, NULL, &c, &err, size_arg, size_arg_value, "seed", 8.0, NULL) == 0);
    RT_CHECK_MSG(csr_equal(&a, &b), "%s: same seed gave different matrices", generator);
    RT_CHECK_MSG(!csr_equal(&a, &c), "%s: different seeds gave the same matrix", generator);
    rt_csr_free(&a);
    rt_csr_free(&b);
    rt_csr_free(&c);
}

static void test_uniform(void)
{
    rt_err err;
    rt_csr m;
    RT_CHECK(build("uniform", NULL, &m, &err, "rows", 300.0, "cols", 50.0, "nnz_per_row", 13.0,
                   NULL) == 0);
    RT_CHECK(m.rows == 300 && m.cols == 50 && m.nnz == 300 * 13);
    int exact = 1, in_range = 1;
    for (int64_t r = 0; r < m.rows; ++r)
        exact &= m.rowptr[r + 1] - m.rowptr[r] == 13;
    for (int64_t k = 0; k < m.nnz; ++k)
        in_range &= m.val[k] >= -1.0 && m.val[k] < 1.0;
    RT_CHECK(exact && in_range);
    /* Columns are spread: every column of 50 is used somewhere in 3900 draws. */
    int used[50] = {0};
    for (int64_t k = 0; k < m.nnz; ++k)
        used[m.colidx[k]] = 1;
    int all = 1;
    for (int c = 0; c < 50; ++c)
        all &= used[c];
    RT_CHECK(all);
    rt_csr_free(&m);

    RT_CHECK(build("uniform", NULL, &m, &err, "rows", 40.0, "cols", 200.0, "density", 0.1, NULL) ==
             0);
    RT_CHECK(m.nnz == 40 * 20 && m.rowptr[1] == 20);
    rt_csr_free(&m);
    /* A full row (k = cols) is the densest legal case. */
    RT_CHECK(build("uniform", NULL, &m, &err, "rows", 3.0, "cols", 64.0, "nnz_per_row", 64.0,
                   NULL) == 0);
    RT_CHECK(m.nnz == 192 && m.colidx[63] == 63);
    rt_csr_free(&m);
    check_determinism("uniform", 100.0, "rows");
}

static void test_banded(void)
{
    rt_err err;
    rt_csr m;
    RT_CHECK(build("banded", NULL, &m, &err, "rows", 50.0, "bandwidth", 5.0, NULL) == 0);
    RT_CHECK(m.rows == 50 && m.cols == 50);
    const int64_t len0 = m.rowptr[1] - m.rowptr[0], len1 = m.rowptr[2] - m.rowptr[1];
    RT_CHECK(len0 == 3 && len1 == 4);
    RT_CHECK(m.rowptr[50] - m.rowptr[49] == 3 && m.rowptr[49] - m.rowptr[48] == 4);
    int interior = 1;
    for (int64_t r = 2; r < 48; ++r) {
        interior &= m.rowptr[r + 1] - m.rowptr[r] == 5;
        interior &= m.colidx[m.rowptr[r]] == r - 2 && m.colidx[m.rowptr[r + 1] - 1] == r + 2;
    }
    RT_CHECK(interior);
    RT_CHECK(m.nnz == 46 * 5 + 3 + 4 + 4 + 3);
    rt_csr_free(&m);
    /* Even bandwidth: one more to the right. */
    RT_CHECK(build("banded", NULL, &m, &err, "rows", 10.0, "bandwidth", 4.0, NULL) == 0);
    RT_CHECK(m.colidx[m.rowptr[5]] == 4 && m.colidx[m.rowptr[6] - 1] == 7);
    rt_csr_free(&m);
    /* Wider than the matrix: every row is full. */
    RT_CHECK(build("banded", NULL, &m, &err, "rows", 6.0, "bandwidth", 100.0, NULL) == 0);
    RT_CHECK(m.nnz == 36);
    rt_csr_free(&m);
    check_determinism("banded", 64.0, "rows");
}

static void test_rmat(void)
{
    rt_err err;
    rt_csr m;
    RT_CHECK(build("rmat", NULL, &m, &err, "scale", 10.0, "edge_factor", 8.0, "symmetric", 1.0,
                   NULL) == 0);
    RT_CHECK(m.rows == 1024 && m.cols == 1024);
    RT_CHECK(m.nnz > 1024 && m.nnz <= 2 * 8 * 1024);
    int symmetric = 1;
    for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k)
            symmetric &= csr_at(&m, m.colidx[k], r) == m.val[k]; /* bit-exact */
    RT_CHECK(symmetric);
    /* Power law: the heaviest row is far above the mean. */
    int64_t longest = 0;
    for (int64_t r = 0; r < m.rows; ++r)
        longest = m.rowptr[r + 1] - m.rowptr[r] > longest ? m.rowptr[r + 1] - m.rowptr[r] : longest;
    RT_CHECK_MSG((double)longest > 5.0 * (double)m.nnz / (double)m.rows, "longest row %lld",
                 (long long)longest);
    rt_csr_free(&m);

    /* Directed graphs are not symmetric; duplicates are merged (validate checks it). */
    RT_CHECK(build("rmat", NULL, &m, &err, "scale", 9.0, NULL) == 0);
    RT_CHECK(m.nnz <= 16 * 512);
    int asymmetric = 0;
    for (int64_t r = 0; r < m.rows && !asymmetric; ++r)
        for (int64_t k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k)
            asymmetric |= csr_at(&m, m.colidx[k], r) != m.val[k];
    RT_CHECK(asymmetric);
    rt_csr_free(&m);

    RT_CHECK(build("rmat", NULL, &m, &err, "scale", 8.0, "noise", 0.1, "a", 0.25, "b", 0.25, "c",
                   0.25, NULL) == 0);
    rt_csr_free(&m);
    check_determinism("rmat", 8.0, "scale");
}

static double row_sum(const rt_csr *m, int64_t r)
{
    double s = 0.0;
    for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
        s += m->val[k];
    return s;
}

static void test_xct(void)
{
    rt_err err;
    rt_csr m;
    const int64_t n = 16, angles = 8, det = 23; /* default detectors = ceil(16 sqrt 2) */
    RT_CHECK(build("xct", NULL, &m, &err, "image", 16.0, "angles", 8.0, NULL) == 0);
    RT_CHECK(m.rows == angles * det && m.cols == n * n);
    int in_range = 1;
    for (int64_t k = 0; k < m.nnz; ++k)
        in_range &= m.val[k] > 0.0 && m.val[k] <= sqrt(2.0);
    RT_CHECK(in_range);
    /* Angle 0: vertical rays; a ray inside the image crosses n pixels of length 1. */
    int64_t hits = 0;
    for (int64_t d = 0; d < det; ++d) {
        const double x = 0.5 * (double)n + (double)d + 0.5 - 0.5 * (double)det;
        const double expect = (x >= 0.0 && x < (double)n) ? (double)n : 0.0;
        RT_CHECK_MSG(fabs(row_sum(&m, d) - expect) < 1e-9, "angle 0 ray %lld: %g, want %g",
                     (long long)d, row_sum(&m, d), expect);
        hits += expect > 0.0;
        if (expect > 0.0)
            RT_CHECK(m.rowptr[d + 1] - m.rowptr[d] == n);
    }
    RT_CHECK(hits == n);
    /* Angle pi/2 (a = 4 of 8): horizontal rays, same path lengths. */
    for (int64_t d = 0; d < det; ++d) {
        const double y = 0.5 * (double)n + (double)d + 0.5 - 0.5 * (double)det;
        const double expect = (y >= 0.0 && y < (double)n) ? (double)n : 0.0;
        RT_CHECK_MSG(fabs(row_sum(&m, 4 * det + d) - expect) < 1e-9, "angle pi/2 ray %lld: %g",
                     (long long)d, row_sum(&m, 4 * det + d));
    }
    /* Every angle: the rays together see the whole image, whose area is n^2 (unit spacing). */
    for (int64_t a = 0; a < angles; ++a) {
        double total = 0.0;
        for (int64_t d = 0; d < det; ++d)
            total += row_sum(&m, a * det + d);
        RT_CHECK_MSG(fabs(total - (double)(n * n)) < 0.1 * (double)(n * n), "angle %lld: %g",
                     (long long)a, total);
    }
    /* The diagonal ray of angle pi/4 through the centre is the longest chord, n sqrt 2. */
    double longest = 0.0;
    for (int64_t d = 0; d < det; ++d)
        longest = row_sum(&m, 2 * det + d) > longest ? row_sum(&m, 2 * det + d) : longest;
    RT_CHECK(longest <= (double)n * sqrt(2.0) + 1e-9 && longest > (double)n * sqrt(2.0) - 1.0);

    /* Hilbert ordering: same matrix up to the documented row and column permutations. */
    rt_csr h, h2;
    RT_CHECK(build("xct", NULL, &h, &err, "image", 16.0, "angles", 8.0, "hilbert", 1.0, NULL) == 0);
    RT_CHECK(build("xct", "hilbert", &h2, &err, "image", 16.0, "angles", 8.0, NULL) == 0);
    RT_CHECK(csr_equal(&h, &h2));
    RT_CHECK(h.nnz == m.nnz && h.rows == m.rows && h.cols == m.cols && !csr_equal(&h, &m));
    double *va = malloc((size_t)m.nnz * sizeof *va), *vb = malloc((size_t)m.nnz * sizeof *vb);
    int same_values = va && vb;
    if (same_values) {
        for (int64_t k = 0; k < m.nnz; ++k) {
            va[k] = m.val[k];
            vb[k] = h.val[k];
        }
        /* Same multiset of values: compare sorted copies. */
        qsort(va, (size_t)m.nnz, sizeof *va, cmp_double);
        qsort(vb, (size_t)m.nnz, sizeof *vb, cmp_double);
        for (int64_t k = 0; k < m.nnz; ++k)
            same_values &= va[k] == vb[k];
    }
    RT_CHECK(same_values);
    free(va);
    free(vb);
    int64_t ray_rank[8 * 23], pixel_rank[256], perm_rows[8 * 23];
    RT_CHECK(rt_hilbert_rank(det, angles, ray_rank, &err) == 0);
    RT_CHECK(rt_hilbert_rank(n, n, pixel_rank, &err) == 0);
    for (int64_t r = 0; r < angles * det; ++r)
        perm_rows[ray_rank[r]] = r;
    rt_csr expect;
    RT_CHECK(rt_csr_permute(&expect, &m, perm_rows, pixel_rank, &err) == 0);
    RT_CHECK(csr_equal(&expect, &h));
    /* Entry by entry: H(rank(ray), rank(pixel)) = A(ray, pixel). */
    int mapped = 1;
    for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t k = m.rowptr[r]; k < m.rowptr[r + 1]; ++k)
            mapped &= csr_at(&h, ray_rank[r], pixel_rank[m.colidx[k]]) == m.val[k];
    RT_CHECK(mapped);
    rt_csr_free(&expect);
    rt_csr_free(&h);
    rt_csr_free(&h2);
    rt_csr_free(&m);

    /* Odd sizes, detectors aligned with pixel edges, one angle, a single pixel. */
    RT_CHECK(build("xct", NULL, &m, &err, "image", 5.0, "angles", 7.0, "detectors", 8.0, NULL) ==
             0);
    for (int64_t d = 0; d < 8; ++d) {
        const double x = 2.5 + (double)d + 0.5 - 4.0;
        RT_CHECK(fabs(row_sum(&m, d) - ((x >= 0.0 && x < 5.0) ? 5.0 : 0.0)) < 1e-9);
    }
    rt_csr_free(&m);
    RT_CHECK(build("xct", NULL, &m, &err, "image", 1.0, "angles", 1.0, "detectors", 1.0, NULL) ==
             0);
    RT_CHECK(m.nnz == 1 && m.val[0] == 1.0);
    rt_csr_free(&m);
    RT_CHECK(build("xct", NULL, &m, &err, "image", 33.0, "angles", 13.0, "hilbert", 1.0, NULL) ==
             0);
    for (int64_t k = 0; k < m.nnz; ++k)
        in_range &= m.val[k] > 0.0 && m.val[k] <= sqrt(2.0);
    RT_CHECK(in_range);
    rt_csr_free(&m);
}

/* xct traces its rays in blocks over the OpenMP threads and the orderings permute rows over
 * them too (rt_csr_permute): the matrix must be the same, bit for bit, on 1, 2 and 3 threads
 * (rays of every length, empty ones included; a size whose rows do not divide into the blocks
 * evenly; a power-law graph's rows of very unequal length, relabelled and re-sorted). */
static int build_case(int which, rt_csr *m, rt_err *err)
{
    if (which == 2)
        return build("rmat", "random:3", m, err, "scale", 12.0, "edge_factor", 8.0, NULL);
    return build("xct", NULL, m, err, "image", 37.0, "angles", 29.0, "hilbert", (double)which,
                 NULL);
}

static void test_threads(void)
{
    const int before = omp_get_max_threads();
    for (int which = 0; which <= 2; ++which) {
        rt_csr one;
        rt_err err;
        omp_set_num_threads(1);
        RT_CHECK_MSG(build_case(which, &one, &err) == 0, "%s", err.msg);
        for (int threads = 2; threads <= 3; ++threads) {
            omp_set_num_threads(threads);
            RT_CHECK(omp_get_max_threads() == threads);
            rt_csr m;
            RT_CHECK_MSG(build_case(which, &m, &err) == 0, "%s", err.msg);
            const int same =
                m.rows == one.rows && m.cols == one.cols && m.nnz == one.nnz &&
                memcmp(m.rowptr, one.rowptr, (size_t)(m.rows + 1) * sizeof *m.rowptr) == 0 &&
                memcmp(m.colidx, one.colidx, (size_t)m.nnz * sizeof *m.colidx) == 0 &&
                memcmp(m.val, one.val, (size_t)m.nnz * sizeof *m.val) == 0;
            RT_CHECK_MSG(same, "case %d differs on %d threads from 1", which, threads);
            rt_csr_free(&m);
        }
        rt_csr_free(&one);
    }
    omp_set_num_threads(before);
}

static void test_hilbert_curve(void)
{
    /* On a power-of-two square consecutive curve positions are grid neighbours. */
    const uint64_t side = 16;
    int64_t x_of[256], y_of[256];
    int seen[256] = {0};
    for (uint64_t y = 0; y < side; ++y) {
        for (uint64_t x = 0; x < side; ++x) {
            const uint64_t d = rt_hilbert_index(side, x, y);
            RT_CHECK(d < 256);
            if (d < 256) {
                seen[d]++;
                x_of[d] = (int64_t)x;
                y_of[d] = (int64_t)y;
            }
        }
    }
    int adjacent = 1, bijective = 1;
    for (int d = 0; d < 256; ++d)
        bijective &= seen[d] == 1;
    for (int d = 0; bijective && d + 1 < 256; ++d)
        adjacent &= llabs(x_of[d] - x_of[d + 1]) + llabs(y_of[d] - y_of[d + 1]) == 1;
    RT_CHECK(bijective && adjacent);
    /* Compacted ranks of a ragged grid are a permutation. */
    int64_t rank[7 * 5];
    rt_err err;
    RT_CHECK(rt_hilbert_rank(7, 5, rank, &err) == 0);
    int hit[35] = {0};
    int perm = 1;
    for (int i = 0; i < 35; ++i)
        if (rank[i] >= 0 && rank[i] < 35)
            hit[rank[i]]++;
    for (int i = 0; i < 35; ++i)
        perm &= hit[i] == 1;
    RT_CHECK(perm);
    RT_CHECK(rt_hilbert_rank(-1, 5, rank, &err) != 0);
}

static void test_sparse_dnn(void)
{
    rt_err err;
    rt_csr a, b, c;
    RT_CHECK(build("sparse_dnn", NULL, &a, &err, "neurons", 1024.0, "layer", 0.0, NULL) == 0);
    RT_CHECK(a.rows == 1024 && a.cols == 1024 && a.nnz == 1024 * 32);
    int exact = 1;
    for (int64_t r = 0; r < a.rows; ++r)
        exact &= a.rowptr[r + 1] - a.rowptr[r] == 32;
    for (int64_t k = 0; k < a.nnz; ++k)
        exact &= a.val[k] == 0.0625;
    RT_CHECK(exact);
    RT_CHECK(build("sparse_dnn", NULL, &b, &err, "neurons", 1024.0, "layer", 1.0, NULL) == 0);
    RT_CHECK(build("sparse_dnn", NULL, &c, &err, "neurons", 1024.0, "layer", 0.0, NULL) == 0);
    RT_CHECK(!csr_equal(&a, &b) && csr_equal(&a, &c));
    rt_csr_free(&a);
    rt_csr_free(&b);
    rt_csr_free(&c);
    RT_CHECK(build("sparse_dnn", NULL, &a, &err, "neurons", 4096.0, NULL) == 0 &&
             a.nnz == 4096 * 32);
    rt_csr_free(&a);
    check_determinism("sparse_dnn", 1024.0, "neurons");
    RT_CHECK(rt_sparse_dnn_bias(1024) == -0.3 && rt_sparse_dnn_bias(4096) == -0.35 &&
             rt_sparse_dnn_bias(16384) == -0.4 && rt_sparse_dnn_bias(65536) == -0.45);
    RT_CHECK(isnan(rt_sparse_dnn_bias(2048)) && isnan(rt_sparse_dnn_bias(0)));
    RT_CHECK(RT_SPARSE_DNN_WEIGHT == 0.0625);
}

int main(void)
{
    test_registry_and_defaults();
    test_laplacian();
    test_laplacian_bad_args();
    test_build_errors();
    test_uniform();
    test_banded();
    test_rmat();
    test_xct();
    test_threads();
    test_hilbert_curve();
    test_sparse_dnn();
    return RT_TEST_RESULT();
}
