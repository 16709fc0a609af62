/* The elementwise check's scale: a product's rounding error is bounded by a multiple of |A||B|
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 3.5), element by element, so that is
 * what each element's difference from the reference is measured against. */
#include "spmm_scale.h"

#include <math.h>

static double b_at(const rt_spmm_inputs *in, int64_t row, int64_t col)
{
    const int64_t ld = in->b.ld;
    const int64_t at = in->layout == RT_ROW_MAJOR ? row * ld + col : col * ld + row;
    if (in->prec == RT_FP32)
        return (double)((const float *)in->b.data)[at];
    return ((const double *)in->b.data)[at];
}

void rt_spmm_abs_product_rows(const rt_spmm_inputs *in, int64_t row0, int64_t row1, double *out)
{
    const rt_csr *a = in->a;
    const int64_t k = in->k;
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t r = row0; r < row1; ++r) {
        double *s = out + (r - row0) * k;
        for (int64_t j = 0; j < k; ++j)
            s[j] = 0.0;
        for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1]; ++e) {
            const double v = fabs(a->val[e]);
            const int64_t col = a->colidx[e];
            for (int64_t j = 0; j < k; ++j)
                s[j] += v * fabs(b_at(in, col, j));
        }
    }
}
