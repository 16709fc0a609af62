/* rt_test_matrix: what the matrix tests compare CSR matrices with. */
#ifndef RT_TEST_MATRIX_H
#define RT_TEST_MATRIX_H

#include <stdint.h>

#include "rt_matrix.h"

/* 1 when a and b have the same shape, pattern and values (exactly). */
static inline int csr_equal(const rt_csr *a, const rt_csr *b)
{
    if (a->rows != b->rows || a->cols != b->cols || a->nnz != b->nnz)
        return 0;
    for (int64_t r = 0; r <= a->rows; ++r)
        if (a->rowptr[r] != b->rowptr[r])
            return 0;
    for (int64_t k = 0; k < a->nnz; ++k)
        if (a->colidx[k] != b->colidx[k] || a->val[k] != b->val[k])
            return 0;
    return 1;
}

/* m(r, c), 0 where m stores nothing. */
static inline double csr_at(const rt_csr *m, int64_t r, int64_t c)
{
    for (int64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; ++k)
        if (m->colidx[k] == c)
            return m->val[k];
    return 0.0;
}

#endif
