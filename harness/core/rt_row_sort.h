/* rt_row_sort: the one stable sort of a sparse row's (column, value) entries by column, shared by
 * the CSR builder (rt_matrix.c) and the generators (rt_gen_xct.c). It lives in the core layer,
 * below the inputs, because the CSR builder is core. */
#ifndef RT_ROW_SORT_H
#define RT_ROW_SORT_H

#include <stdint.h>

typedef struct rt_col_val {
    int32_t col;
    double val;
} rt_col_val;

/* Stable sort of e[0..n) by column. Stability matters: duplicates are summed in input order, and
 * floating-point sums depend on order, so an unstable sort (qsort) would let the libc decide the
 * last bits of a summed entry. Insertion sort for short rows (or without scratch); bottom-up
 * merge sort with the caller's scratch (at least n entries) for long ones. */
void rt_row_sort(rt_col_val *e, int64_t n, rt_col_val *scratch);

#endif
