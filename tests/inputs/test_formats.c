/* rt_matrix: CSR construction, validation, slicing, permutation, ELL and dense containers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt_matrix.h"
#include "rt_generators.h"
#include "rt_test.h"
#include "rt_test_matrix.h"

static void test_names(void)
{
    RT_CHECK(rt_precision_parse("fp32") == RT_FP32);
    RT_CHECK(rt_precision_parse("fp64") == RT_FP64);
    RT_CHECK(rt_precision_parse("fp16") == -1);
    RT_CHECK(rt_precision_parse(NULL) == -1);
    RT_CHECK(rt_layout_parse("row") == RT_ROW_MAJOR);
    RT_CHECK(rt_layout_parse("col") == RT_COL_MAJOR);
    RT_CHECK(rt_layout_parse("diagonal") == -1);
    RT_CHECK(strcmp(rt_precision_name(RT_FP64), "fp64") == 0);
    RT_CHECK(strcmp(rt_layout_name(RT_COL_MAJOR), "col") == 0);
    RT_CHECK(rt_precision_bytes(RT_FP32) == 4 && rt_precision_bytes(RT_FP64) == 8);
}

static void test_alloc_errors(void)
{
    rt_err err;
    rt_csr m;
    RT_CHECK(rt_csr_alloc(&m, -1, 3, 0, &err) != 0 && rt_test_contains(err.msg, "negative"));
    RT_CHECK(rt_csr_alloc(&m, 3, (int64_t)INT32_MAX + 1, 0, &err) != 0 &&
             rt_test_contains(err.msg, "32-bit"));
    /* An allocation that cannot succeed names the bytes it asked for. */
    RT_CHECK_MSG(rt_csr_alloc(&m, 4, 4, (int64_t)1 << 48, &err) != 0 &&
                     rt_test_contains(err.msg, "bytes"),
                 "%s", err.msg);
    RT_CHECK(rt_csr_alloc(&m, 4, 4, INT64_MAX / 2, &err) != 0);
    RT_CHECK(m.rowptr == NULL && m.colidx == NULL);
    RT_CHECK(rt_csr_alloc(&m, 0, 0, 0, &err) == 0 && rt_csr_validate(&m, &err) == 0);
    rt_csr_free(&m);
    rt_csr_free(&m); /* freeing twice is harmless: free clears the struct */
    rt_dense d;
    RT_CHECK(rt_dense_alloc(&d, -2, 2, RT_ROW_MAJOR, RT_FP32, &err) != 0);
    RT_CHECK(rt_dense_alloc(&d, INT64_MAX / 2, 4, RT_ROW_MAJOR, RT_FP64, &err) != 0 &&
             rt_test_contains(err.msg, "elements"));
    RT_CHECK(rt_dense_alloc(&d, 2, 2, (rt_layout)7, RT_FP64, &err) != 0);
    RT_CHECK(rt_dense_alloc(&d, 2, 2, RT_ROW_MAJOR, (rt_precision)9, &err) != 0);
}

/* A 3 x 4 matrix every corruption test starts from:
 *   [1 0 2 0; 0 0 0 0; 3 4 0 5] */
static void make_small(rt_csr *m)
{
    rt_err err;
    const int64_t ri[] = {2, 0, 2, 0, 2};
    const int64_t ci[] = {3, 2, 0, 0, 1};
    const double v[] = {5, 2, 3, 1, 4};
    RT_CHECK(rt_csr_from_coo(m, 3, 4, 5, ri, ci, v, &err) == 0);
}

static void test_validate_catches(void)
{
    rt_err err;
    rt_csr m;
    make_small(&m);
    RT_CHECK_MSG(rt_csr_validate(&m, &err) == 0, "%s", err.msg);

    m.rowptr[0] = 1;
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "rowptr[0]"));
    m.rowptr[0] = 0;

    m.rowptr[2] = 1; /* row 1 ends before it starts (rowptr[1] = 2) */
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "decreases"));
    m.rowptr[2] = 2;

    m.rowptr[3] = 4; /* last offset disagrees with nnz */
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "nnz"));
    m.rowptr[3] = 5;

    m.rowptr[2] = 7; /* offset past nnz */
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "exceeds nnz"));
    m.rowptr[2] = 2;

    m.colidx[0] = 4; /* out of range (cols = 4) */
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "outside"));
    m.colidx[0] = -1;
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "outside"));
    m.colidx[0] = 0;

    m.colidx[1] = 0; /* duplicate in row 0 */
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "twice"));
    m.colidx[1] = 2;

    const int32_t a = m.colidx[2], b = m.colidx[3]; /* swap two columns of row 2 */
    m.colidx[2] = b;
    m.colidx[3] = a;
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "not sorted"));
    m.colidx[2] = a;
    m.colidx[3] = b;

    m.rows = -1;
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "negative"));
    m.rows = 3;
    int64_t *keep = m.rowptr;
    m.rowptr = NULL;
    RT_CHECK(rt_csr_validate(&m, &err) != 0 && rt_test_contains(err.msg, "rowptr"));
    m.rowptr = keep;
    RT_CHECK(rt_csr_validate(NULL, &err) != 0);
    RT_CHECK(rt_csr_validate(&m, &err) == 0);
    rt_csr_free(&m);
}

static void test_from_coo(void)
{
    rt_err err;
    rt_csr m;
    make_small(&m);
    RT_CHECK(m.nnz == 5);
    const int64_t want_ptr[] = {0, 2, 2, 5};
    const int32_t want_col[] = {0, 2, 0, 1, 3};
    const double want_val[] = {1, 2, 3, 4, 5};
    for (int k = 0; k < 4; ++k)
        RT_CHECK(m.rowptr[k] == want_ptr[k]);
    for (int k = 0; k < 5; ++k)
        RT_CHECK(m.colidx[k] == want_col[k] && m.val[k] == want_val[k]);
    rt_csr_free(&m);

    /* Duplicates are summed; a long row exercises the merge sort path. */
    enum { N = 300 };
    int64_t ri[N], ci[N];
    double v[N];
    for (int k = 0; k < N; ++k) {
        ri[k] = 1;
        ci[k] = (k * 37) % 100; /* every column 0..99 three times */
        v[k] = 1.0 + k;
    }
    RT_CHECK(rt_csr_from_coo(&m, 2, 100, N, ri, ci, v, &err) == 0);
    RT_CHECK(m.nnz == 100 && m.rowptr[1] == 0 && m.rowptr[2] == 100);
    RT_CHECK(rt_csr_validate(&m, &err) == 0);
    double total = 0;
    for (int64_t k = 0; k < m.nnz; ++k)
        total += m.val[k];
    RT_CHECK(total == N * (N + 1) / 2.0);
    /* column 0 came from k = 0, 100, 200 */
    RT_CHECK(m.colidx[0] == 0 && m.val[0] == 1.0 + 101.0 + 201.0);
    rt_csr_free(&m);

    const int64_t bad_r[] = {0, 3};
    const int64_t bad_c[] = {0, 0};
    const double bad_v[] = {1, 1};
    RT_CHECK(rt_csr_from_coo(&m, 3, 3, 2, bad_r, bad_c, bad_v, &err) != 0 &&
             rt_test_contains(err.msg, "entry 1") && rt_test_contains(err.msg, "row index 3"));
    const int64_t neg_c[] = {0, -1};
    RT_CHECK(rt_csr_from_coo(&m, 3, 3, 2, bad_c, neg_c, bad_v, &err) != 0 &&
             rt_test_contains(err.msg, "column index -1"));
    RT_CHECK(rt_csr_from_coo(&m, 3, 3, 2, NULL, bad_c, bad_v, &err) != 0);
    RT_CHECK(rt_csr_from_coo(&m, 3, 3, -1, bad_r, bad_c, bad_v, &err) != 0);
    RT_CHECK(rt_csr_from_coo(&m, 4, 4, 0, NULL, NULL, NULL, &err) == 0 && m.nnz == 0 &&
             rt_csr_validate(&m, &err) == 0);
    rt_csr_free(&m);
}

static void test_copy_and_blocks(void)
{
    rt_err err;
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(203), &err);
    rt_params_set(&args, "nnz_per_row", rt_value_int(7), &err);
    rt_csr a;
    RT_CHECK_MSG(rt_matrix_build("uniform", &args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
    rt_csr c;
    RT_CHECK(rt_csr_copy(&c, &a, &err) == 0 && csr_equal(&a, &c));
    rt_csr_free(&c);

    /* Blocks [0,50) [50,50) [50,203) concatenate back to the whole. */
    const int64_t cuts[] = {0, 50, 50, 120, 203};
    int64_t rows = 0, nnz = 0;
    for (int b = 0; b + 1 < 5; ++b) {
        rt_csr blk;
        RT_CHECK(rt_csr_row_block(&blk, &a, cuts[b], cuts[b + 1], &err) == 0);
        RT_CHECK(rt_csr_validate(&blk, &err) == 0);
        RT_CHECK(blk.cols == a.cols && blk.rows == cuts[b + 1] - cuts[b]);
        for (int64_t r = 0; r < blk.rows; ++r)
            for (int64_t k = blk.rowptr[r]; k < blk.rowptr[r + 1]; ++k)
                RT_CHECK(a.colidx[a.rowptr[rows + r] + (k - blk.rowptr[r])] == blk.colidx[k] &&
                         a.val[a.rowptr[rows + r] + (k - blk.rowptr[r])] == blk.val[k]);
        rows += blk.rows;
        nnz += blk.nnz;
        rt_csr_free(&blk);
    }
    RT_CHECK(rows == a.rows && nnz == a.nnz);
    rt_csr blk;
    RT_CHECK(rt_csr_row_block(&blk, &a, 10, 5, &err) != 0 && rt_test_contains(err.msg, "[10, 5)"));
    RT_CHECK(rt_csr_row_block(&blk, &a, 0, 204, &err) != 0);
    RT_CHECK(rt_csr_row_block(&blk, &a, -1, 3, &err) != 0);
    rt_csr_free(&a);
}

static void test_permute(void)
{
    rt_err err;
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(97), &err);
    rt_params_set(&args, "cols", rt_value_int(61), &err);
    rt_params_set(&args, "nnz_per_row", rt_value_int(40), &err); /* long rows: merge sort path */
    rt_csr a;
    RT_CHECK_MSG(rt_matrix_build("uniform", &args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
    int64_t pr[97], ipr[97], pc[61], ipc[61];
    for (int64_t i = 0; i < 97; ++i)
        pr[i] = (i * 31 + 5) % 97;
    for (int64_t j = 0; j < 61; ++j)
        pc[j] = (j * 17 + 3) % 61;
    for (int64_t i = 0; i < 97; ++i)
        ipr[pr[i]] = i;
    for (int64_t j = 0; j < 61; ++j)
        ipc[pc[j]] = j;
    rt_csr b, back;
    RT_CHECK(rt_csr_permute(&b, &a, pr, pc, &err) == 0 && rt_csr_validate(&b, &err) == 0);
    /* B(i, pc[j]) = A(pr[i], j) */
    for (int64_t i = 0; i < 97; i += 7)
        for (int64_t j = 0; j < 61; ++j)
            RT_CHECK(csr_at(&b, i, pc[j]) == csr_at(&a, pr[i], j));
    /* Undo: rows by the inverse, columns mapped back by ipc. */
    RT_CHECK(rt_csr_permute(&back, &b, ipr, ipc, &err) == 0);
    RT_CHECK(csr_equal(&a, &back));
    rt_csr_free(&b);
    rt_csr_free(&back);
    RT_CHECK(rt_csr_permute(&b, &a, NULL, NULL, &err) == 0 && csr_equal(&a, &b));
    rt_csr_free(&b);

    pr[3] = pr[4]; /* not a permutation */
    RT_CHECK(rt_csr_permute(&b, &a, pr, NULL, &err) != 0 && rt_test_contains(err.msg, "twice"));
    pr[3] = 97;
    RT_CHECK(rt_csr_permute(&b, &a, pr, NULL, &err) != 0 && rt_test_contains(err.msg, "outside"));
    pc[0] = -1;
    RT_CHECK(rt_csr_permute(&b, &a, NULL, pc, &err) != 0 && rt_test_contains(err.msg, "inv_cols"));
    rt_csr_free(&a);
}

static void test_ell(void)
{
    rt_err err;
    rt_csr a;
    make_small(&a);
    rt_ell e;
    RT_CHECK(rt_ell_from_csr(&e, &a, 2, &err) == 0);
    /* Slices {row 0, row 1} width 2 and {row 2, pad} width 3. */
    RT_CHECK(e.nslices == 2 && e.slice_width[0] == 2 && e.slice_width[1] == 3);
    RT_CHECK(e.stored == 2 * 2 + 3 * 2 && e.nnz == 5);
    RT_CHECK(e.slice_ptr[0] == 0 && e.slice_ptr[1] == 4 && e.slice_ptr[2] == 10);
    /* row 0 entry 1 at slice_ptr[0] + 1 * 2 + 0 */
    RT_CHECK(e.colidx[2] == 2 && e.val[2] == 2.0);
    /* row 1 is empty: padding */
    RT_CHECK(e.colidx[1] == -1 && e.val[1] == 0.0 && e.colidx[3] == -1);
    /* row 2 entry 2 at 4 + 2 * 2 + 0; the lane past the last row is padding */
    RT_CHECK(e.colidx[8] == 3 && e.val[8] == 5.0 && e.colidx[9] == -1);
    rt_csr back;
    RT_CHECK(rt_ell_to_csr(&back, &e, &err) == 0 && csr_equal(&a, &back));
    rt_csr_free(&back);

    /* Corrupted ELL: a real entry after padding in row 1. */
    e.colidx[3] = 1;
    RT_CHECK(rt_ell_to_csr(&back, &e, &err) != 0 && rt_test_contains(err.msg, "after its padding"));
    e.colidx[3] = -1;
    e.colidx[9] = 0; /* an entry in the lane past the last row */
    RT_CHECK(rt_ell_to_csr(&back, &e, &err) != 0);
    e.colidx[9] = -1;
    e.colidx[0] = 99;
    RT_CHECK(rt_ell_to_csr(&back, &e, &err) != 0 && rt_test_contains(err.msg, "outside"));
    rt_ell_free(&e);
    RT_CHECK(rt_ell_from_csr(&e, &a, 0, &err) != 0 && rt_test_contains(err.msg, "slice_height"));
    rt_csr_free(&a);

    /* Warp slices (32) over a matrix with varied row lengths, explicit zeros kept. */
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "scale", rt_value_int(8), &err);
    rt_params_set(&args, "edge_factor", rt_value_int(4), &err);
    RT_CHECK_MSG(rt_matrix_build("rmat", &args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
    a.val[0] = 0.0;
    RT_CHECK(rt_ell_from_csr(&e, &a, 32, &err) == 0);
    RT_CHECK(e.nslices == 8 && e.slice_height == 32);
    int64_t padding = 0;
    for (int64_t k = 0; k < e.stored; ++k)
        padding += e.colidx[k] == -1;
    RT_CHECK(padding == e.stored - a.nnz);
    RT_CHECK(rt_ell_to_csr(&back, &e, &err) == 0 && csr_equal(&a, &back));
    rt_csr_free(&back);
    rt_ell_free(&e);
    rt_csr_free(&a);
}

static void test_dense(void)
{
    rt_err err;
    rt_dense r, c, f;
    RT_CHECK(rt_dense_alloc(&r, 37, 5, RT_ROW_MAJOR, RT_FP64, &err) == 0 && r.ld == 5);
    RT_CHECK(rt_dense_alloc(&c, 37, 5, RT_COL_MAJOR, RT_FP64, &err) == 0 && c.ld == 37);
    RT_CHECK(rt_dense_alloc(&f, 37, 5, RT_COL_MAJOR, RT_FP32, &err) == 0);
    rt_dense_fill_random(&r, 42);
    rt_dense_fill_random(&c, 42);
    rt_dense_fill_random(&f, 42);
    int same_layouts = 1, in_range = 1, distinct = 0;
    for (int64_t i = 0; i < 37; ++i) {
        for (int64_t j = 0; j < 5; ++j) {
            const double x = rt_dense_get(&r, i, j);
            same_layouts &= x == rt_dense_get(&c, i, j);
            in_range &= x >= -1.0 && x < 1.0;
            in_range &= rt_dense_get(&f, i, j) >= -1.0 && rt_dense_get(&f, i, j) < 1.0;
            distinct += x != rt_dense_get(&r, 0, 0);
        }
    }
    RT_CHECK(same_layouts && in_range && distinct > 150);
    /* Column-major storage really is column-major. */
    RT_CHECK(((double *)c.data)[1] == rt_dense_get(&c, 1, 0));
    RT_CHECK(((double *)r.data)[1] == rt_dense_get(&r, 0, 1));
    const double first = rt_dense_get(&r, 3, 4);
    rt_dense_fill_random(&r, 43);
    RT_CHECK(rt_dense_get(&r, 3, 4) != first);
    rt_dense_fill_random(&r, 42);
    RT_CHECK(rt_dense_get(&r, 3, 4) == first);
    rt_dense_set(&f, 2, 3, 0.25);
    RT_CHECK(rt_dense_get(&f, 2, 3) == 0.25);
    rt_dense_free(&r);
    rt_dense_free(&c);
    rt_dense_free(&f);

    /* Never all zeros, even for one element, across many seeds. */
    rt_dense one;
    RT_CHECK(rt_dense_alloc(&one, 1, 1, RT_ROW_MAJOR, RT_FP32, &err) == 0);
    int zeros = 0;
    for (uint64_t s = 0; s < 2000; ++s) {
        rt_dense_fill_random(&one, s);
        zeros += rt_dense_get(&one, 0, 0) == 0.0;
    }
    RT_CHECK(zeros == 0);
    rt_dense_free(&one);
}

int main(void)
{
    test_names();
    test_alloc_errors();
    test_validate_catches();
    test_from_coo();
    test_copy_and_blocks();
    test_permute();
    test_ell();
    test_dense();
    return RT_TEST_RESULT();
}
