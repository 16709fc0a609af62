/* rt_mmio: hostile files give "file:line: ..." messages; valid files are read entry by entry;
 * write -> read is the identity. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rt_generators.h"
#include "rt_matrix.h"
#include "rt_mmio.h"
#include "rt_test.h"

#ifndef RT_INPUTS_MTX_DIR
#error "RT_INPUTS_MTX_DIR must name tests/inputs/mtx"
#endif
#ifndef RT_INPUTS_TMP_DIR
#error "RT_INPUTS_TMP_DIR must name a writable directory"
#endif

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", RT_INPUTS_MTX_DIR, name);
}

/* Reading `name` must fail with a message containing "<name>:<line>:" and `fragment`. */
static void expect_error(const char *name, int line, const char *fragment)
{
    char path[1024], where[256];
    path_of(path, sizeof path, name);
    snprintf(where, sizeof where, "%s:%d:", name, line);
    rt_err err;
    rt_err_clear(&err);
    rt_csr m;
    const int rc = rt_mmio_read(path, &m, &err);
    RT_CHECK_MSG(rc != 0, "%s was accepted", name);
    RT_CHECK_MSG(rt_test_contains(err.msg, where), "%s: expected '%s' in: %s", name, where,
                 err.msg);
    RT_CHECK_MSG(rt_test_contains(err.msg, fragment), "%s: expected '%s' in: %s", name, fragment,
                 err.msg);
    RT_CHECK(m.rowptr == NULL && m.colidx == NULL && m.val == NULL);
    if (rc == 0)
        rt_csr_free(&m);
}

static void test_hostile(void)
{
    /* file, the line the message names, a fragment of the message */
    static const struct {
        const char *name;
        int line;
        const char *fragment;
    } cases[] = {
        {"truncated.mtx", 6, "expected 3 fields"},
        {"too_few.mtx", 5, "file ends after 3 of the 5 entries declared on line 2"},
        {"too_many.mtx", 5, "more entries than the 2 declared on line 2"},
        {"row_out_of_range.mtx", 4, "row index 5 is outside 1..4"},
        {"col_out_of_range.mtx", 4, "column index 9 is outside 1..3"},
        {"zero_index.mtx", 4, "row index 0 is outside 1..3 (Matrix Market indices start at 1)"},
        {"overflow_index.mtx", 3, "row index '99999999999999999999' is not an integer"},
        {"huge_sizes.mtx", 2, "bytes of memory on this host"},
        {"huge_cols.mtx", 2, "3000000000 columns exceed the limit of 2147483647"},
        {"negative_size.mtx", 2, "rows = -3 is negative"},
        {"non_number_index.mtx", 4, "column index 'x' is not an integer"},
        {"non_number_value.mtx", 4, "value 'abc' is not a finite real number"},
        {"nan_value.mtx", 3, "value 'nan' is not a finite real number"},
        {"bad_banner.mtx", 1, "missing Matrix Market banner"},
        {"garbled_banner.mtx", 1, "garbled banner"},
        {"no_banner.mtx", 1, "missing Matrix Market banner"},
        {"vector_banner.mtx", 1, "'vector' is not supported"},
        {"complex.mtx", 1, "complex matrices are not supported"},
        {"hermitian.mtx", 1, "hermitian matrices are not supported"},
        {"missing_size.mtx", 4, "file ends before the size line"},
        {"bad_size_line.mtx", 2, "size line must be 'rows cols nonzeros' (3 numbers), found 2"},
        {"size_not_number.mtx", 2, "cols 'three' is not an integer"},
        {"trailing_fields.mtx", 4, "expected 3 fields 'row col value', found 4"},
        {"trailing_garbage_value.mtx", 4, "value '3.5x' is not a finite real number"},
        {"garbage_after.mtx", 7, "more entries than the 2 declared on line 2"},
        {"skew_diagonal.mtx", 4, "nonzero diagonal entry (2, 2)"},
        {"nonsquare_symmetric.mtx", 2, "must be square"},
        {"integer_not_integer.mtx", 4, "value '1.5' is not an integer"},
        {"array_too_few.mtx", 5, "file ends after 3 of the 4 entries"},
        {"array_too_many.mtx", 5, "more entries than the 2 declared"},
        {"array_pattern.mtx", 1, "'array pattern'"},
        {"empty.mtx", 1, "empty file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        expect_error(cases[i].name, cases[i].line, cases[i].fragment);
}

static rt_csr read_ok(const char *name)
{
    char path[1024];
    path_of(path, sizeof path, name);
    rt_err err;
    rt_csr m;
    const int rc = rt_mmio_read(path, &m, &err);
    RT_CHECK_MSG(rc == 0, "%s: %s", name, err.msg);
    if (rc == 0)
        RT_CHECK_MSG(rt_csr_validate(&m, &err) == 0, "%s: %s", name, err.msg);
    return m;
}

/* Compares a matrix with a dense row-major picture of it; zero means "no entry". */
static void expect_dense(const char *name, const rt_csr *m, int64_t rows, int64_t cols,
                         const double *want)
{
    RT_CHECK_MSG(m->rows == rows && m->cols == cols, "%s: shape %lld x %lld", name,
                 (long long)m->rows, (long long)m->cols);
    if (m->rows != rows || m->cols != cols || !m->rowptr)
        return;
    int64_t expected_nnz = 0;
    for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
            expected_nnz += want[r * cols + c] != 0.0;
            double got = 0.0;
            for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
                if (m->colidx[k] == c)
                    got = m->val[k];
            RT_CHECK_MSG(got == want[r * cols + c], "%s: (%lld, %lld) = %g, want %g", name,
                         (long long)r, (long long)c, got, want[r * cols + c]);
        }
    }
    RT_CHECK_MSG(m->nnz == expected_nnz, "%s: nnz %lld, want %lld", name, (long long)m->nnz,
                 (long long)expected_nnz);
}

static void test_valid(void)
{
    /* file, its shape and its dense row-major picture */
    const struct {
        const char *name;
        int64_t rows, cols;
        const double *dense;
    } cases[] = {
        {"symmetric.mtx", 4, 4,
         (const double[]){2.0, -1.5, 0, 0, -1.5, 0, 0, 0.25, 0, 0, 4, 0, 0, 0.25, 0, 8}},
        {"skew.mtx", 3, 3, (const double[]){0, -1.5, 0, 1.5, 0, 2.0, 0, -2.0, 0}},
        {"pattern.mtx", 3, 4, (const double[]){0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0}},
        {"pattern_symmetric.mtx", 3, 3, (const double[]){1, 0, 1, 0, 0, 0, 1, 0, 0}},
        {"integer.mtx", 2, 3, (const double[]){5, 0, -7, 12, 0, 0}},
        {"array.mtx", 2, 3, (const double[]){1, 0, 3, 4, 5, -6}},
        {"array_symmetric.mtx", 3, 3, (const double[]){1, 2, 3, 2, 4, 5, 3, 5, 6}},
        {"array_skew.mtx", 3, 3, (const double[]){0, -1, -2, 1, 0, -3, 2, 3, 0}},
        {"duplicates.mtx", 3, 3, (const double[]){-1, 0.75, 0, 0, 0, 0, 2, 0, 2}},
        {"crlf_upper.mtx", 2, 2, (const double[]){1.5, 0, 0, -2.5}},
    };
    rt_csr m;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        m = read_ok(cases[i].name);
        expect_dense(cases[i].name, &m, cases[i].rows, cases[i].cols, cases[i].dense);
        rt_csr_free(&m);
    }

    m = read_ok("empty_rows.mtx");
    const double er[] = {0, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    expect_dense("empty_rows.mtx", &m, 5, 4, er);
    if (m.rowptr)
        RT_CHECK(m.rowptr[1] == 0 && m.rowptr[3] == 2 && m.rowptr[4] == 2);
    rt_csr_free(&m);

    m = read_ok("no_entries.mtx");
    RT_CHECK(m.rows == 3 && m.cols == 2 && m.nnz == 0);
    rt_csr_free(&m);

    /* Explicit zeros of the coordinate format stay stored entries. */
    m = read_ok("explicit_zero.mtx");
    RT_CHECK(m.nnz == 2 && m.colidx && m.colidx[0] == 0 && m.val[0] == 0.0);
    rt_csr_free(&m);
}

static void round_trip(const char *generator, rt_params *args)
{
    rt_err err;
    rt_csr a, b;
    RT_CHECK_MSG(rt_matrix_build(generator, args, NULL, NULL, &a, &err) == 0, "%s", err.msg);
    char path[1024];
    snprintf(path, sizeof path, "%s/round_trip_%s.mtx", RT_INPUTS_TMP_DIR, generator);
    RT_CHECK_MSG(rt_mmio_write(path, &a, &err) == 0, "%s", err.msg);
    RT_CHECK_MSG(rt_mmio_read(path, &b, &err) == 0, "%s", err.msg);
    int same = a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz;
    for (int64_t r = 0; same && r <= a.rows; ++r)
        same = a.rowptr[r] == b.rowptr[r];
    for (int64_t k = 0; same && k < a.nnz; ++k)
        same = a.colidx[k] == b.colidx[k] && a.val[k] == b.val[k]; /* bit-identical values */
    RT_CHECK_MSG(same, "%s: write -> read changed the matrix", generator);
    rt_csr_free(&a);
    rt_csr_free(&b);
}

static void test_round_trip(void)
{
    rt_err err;
    rt_params args;
    rt_params_init(&args);
    rt_params_set(&args, "rows", rt_value_int(150), &err);
    rt_params_set(&args, "cols", rt_value_int(70), &err);
    round_trip("uniform", &args);
    rt_params_init(&args);
    rt_params_set(&args, "image", rt_value_int(12), &err);
    round_trip("xct", &args);
    rt_params_init(&args);
    rt_params_set(&args, "scale", rt_value_int(7), &err);
    rt_params_set(&args, "symmetric", rt_value_int(1), &err);
    round_trip("rmat", &args);

    /* Invalid matrices and non-finite values are refused rather than written. */
    rt_csr a;
    const int64_t ri[] = {0}, ci[] = {1};
    const double v[] = {INFINITY};
    RT_CHECK(rt_csr_from_coo(&a, 2, 2, 1, ri, ci, v, &err) == 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/refused.mtx", RT_INPUTS_TMP_DIR);
    RT_CHECK(rt_mmio_write(path, &a, &err) != 0 && rt_test_contains(err.msg, "finite"));
    a.val[0] = 1.0;
    a.colidx[0] = 5;
    RT_CHECK(rt_mmio_write(path, &a, &err) != 0 && rt_test_contains(err.msg, "invalid"));
    a.colidx[0] = 1;
    RT_CHECK(rt_mmio_write(RT_INPUTS_TMP_DIR "/no/such/dir/x.mtx", &a, &err) != 0 &&
             rt_test_contains(err.msg, "does not exist"));
    rt_csr_free(&a);
}

/* A short file that promises ten million entries is reported as truncated (its entry list is
 * sized by what the file can hold); a caller's memory budget refuses a file before reading it. */
static void test_short_file_and_budget(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/promises_more.mtx", RT_INPUTS_TMP_DIR);
    if (rt_test_write_file(path, "%%MatrixMarket matrix coordinate real symmetric\n"
                                 "20000 20000 10000000\n1 1 1.0\n2 1 2.0\n3 3 3.0\n") != 0)
        return;
    rt_err err;
    rt_err_clear(&err);
    rt_csr m;
    RT_CHECK(rt_mmio_read(path, &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "promises_more.mtx:5: file ends after 3 of the "
                                           "10000000 entries declared on line 2"),
                 "got: %s", err.msg);

    /* The same file within a budget of 1 MB: refused at the size line, naming the budget. */
    rt_err_clear(&err);
    RT_CHECK(rt_mmio_read_within(path, 1e6, &m, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "promises_more.mtx:2: size line refused") &&
                     rt_test_contains(err.msg, "more than the 1000000 bytes allowed"),
                 "got: %s", err.msg);

    /* A valid file within a budget it fits: read as without one; mirrored entries included. No
     * final line break: the tightest file the capacity bound must still hold. */
    if (rt_test_write_file(path, "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n"
                                 "1 1 1.0\n2 1 2.0\n3 3 3.0") != 0)
        return;
    rt_err_clear(&err);
    RT_CHECK_MSG(rt_mmio_read_within(path, 1e6, &m, &err) == 0, "%s", err.msg);
    if (m.rowptr) {
        RT_CHECK(m.nnz == 4 && m.rows == 3);
        rt_csr_free(&m);
    }
    remove(path);
}

int main(void)
{
    test_hostile();
    test_short_file_and_budget();
    test_valid();
    test_round_trip();
    return RT_TEST_RESULT();
}
