/* spmm_traffic: shared pieces of the SpMM traffic models (the levels are explained in
 * spmm_traffic.h and docs/reference/roofline.md). */
#include "spmm_traffic.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int rt_spmm_b_rows_read(const rt_csr *a, int64_t *rows_read, rt_err *err)
{
    *rows_read = 0;
    if (!a || a->cols < 0 || a->nnz < 0 || (a->nnz > 0 && (!a->colidx)))
        return rt_err_set(err, "spmm traffic: no valid matrix to count the rows of B it reads");
    if (a->nnz == 0 || a->cols == 0)
        return 0;
    /* A bitmap rather than a sort: O(nnz) time and cols / 8 bytes whatever the pattern. */
    const size_t words = (size_t)((a->cols + 63) / 64);
    uint64_t *seen = calloc(words, sizeof *seen);
    if (!seen)
        return rt_err_set(err, "spmm traffic: out of memory for a %" PRId64 "-column bitmap",
                          a->cols);
    int64_t count = 0;
    for (int64_t e = 0; e < a->nnz; ++e) {
        const int64_t c = a->colidx[e];
        if (c < 0 || c >= a->cols) {
            free(seen);
            return rt_err_set(
                err, "spmm traffic: entry %" PRId64 " has column %" PRId64 " outside 0..%" PRId64,
                e, c, a->cols - 1);
        }
        const uint64_t bit = UINT64_C(1) << (c % 64);
        if (!(seen[c / 64] & bit)) {
            seen[c / 64] |= bit;
            ++count;
        }
    }
    free(seen);
    *rows_read = count;
    return 0;
}

int rt_spmm_traffic_fill(const rt_spmm_inputs *in, double a_bytes, int gpu, rt_traffic *t,
                         rt_err *err)
{
    memset(t, 0, sizeof *t);
    if (!in || !in->a)
        return rt_err_set(err, "spmm traffic: the model needs the inputs");
    if (!isfinite(a_bytes) || a_bytes < 0)
        return rt_err_set(err, "spmm traffic: bytes of A = %g; must be a finite number >= 0",
                          a_bytes);
    int64_t b_rows = 0;
    if (rt_spmm_b_rows_read(in->a, &b_rows, err) != 0)
        return -1;
    const double elem = (double)rt_precision_bytes(in->prec);
    const double k = (double)in->k;
    t->flops = 2.0 * (double)in->a->nnz * k;
    t->bytes[RT_LEVEL_DRAM] = a_bytes + (double)b_rows * k * elem + (double)in->a->rows * k * elem;
    if (gpu)
        t->bytes[RT_LEVEL_L2] = t->bytes[RT_LEVEL_DRAM];
    return 0;
}

int64_t rt_spmm_ell_entries_read(const rt_csr *a, int64_t slice_height)
{
    const int64_t h = slice_height > 0 ? slice_height : 1;
    int64_t total = 0;
    for (int64_t r0 = 0; r0 < a->rows; r0 += h) {
        const int64_t r1 = r0 + h < a->rows ? r0 + h : a->rows;
        int64_t width = 0;
        for (int64_t r = r0; r < r1; ++r) {
            const int64_t n = a->rowptr[r + 1] - a->rowptr[r];
            width = n > width ? n : width;
        }
        total += width * (r1 - r0);
    }
    return total;
}

double rt_spmm_tiled_plan_bytes(const rt_tiled_params *p, int64_t nblocks, int64_t nstages,
                                int64_t nmap, int64_t stored, size_t value_bytes)
{
    const int64_t warps = p->warp_size > 0 ? p->block_size / p->warp_size : 0;
    const double displ_entries = p->use_ell ? (double)nstages * (double)warps + 1.0
                                            : (double)nstages * (double)p->block_size + 1.0;
    return (double)stored * ((double)value_bytes + (double)p->index_bytes) + displ_entries * 8.0 +
           (double)(nblocks + 1) * 8.0 + (double)(nstages + 1) * 8.0 + (double)nmap * 4.0;
}

double rt_spmm_tiled_shared_bytes(int64_t staged_entries, int64_t stored_entries, int64_t k_values,
                                  size_t value_bytes)
{
    return ((double)staged_entries + (double)stored_entries) * (double)k_values *
           (double)value_bytes;
}

rt_traffic rt_spmm_traffic_compulsory(const rt_spmm_inputs *in, rt_precision value_prec)
{
    const rt_csr *a = in->a;
    const double vb = (double)rt_precision_bytes(value_prec);
    const double a_bytes = (double)a->nnz * (vb + 4.0) + (double)(a->rows + 1) * 8.0;
    rt_traffic t;
    rt_err err;
    if (rt_spmm_traffic_fill(in, a_bytes, 0, &t, &err) != 0) {
        /* Only when the column bitmap cannot be allocated: leave B out rather than count all of
         * it, so the model stays a lower bound (kernels' hooks report the error instead). */
        const double db = (double)rt_precision_bytes(in->prec);
        memset(&t, 0, sizeof t);
        t.flops = 2.0 * (double)a->nnz * (double)in->k;
        t.bytes[RT_LEVEL_DRAM] = a_bytes + (double)a->rows * (double)in->k * db;
    }
    return t;
}
