/* sptrsv_cuda_spmat: the triangular factor on the device in every sparse format cusparseSpSV and
 * cusparseSpSM take, for the cuSPARSE baseline's option space:
 *   - format: CSR, COO (rows sorted), or sliced ELL (slices of 32 rows, each padded to its
 *     longest row, column index -1 in the padding; refused, infeasible, when the padding would
 *     more than quadruple the entries);
 *   - storage: L as it is (lower) or its transpose stored explicitly (upper: the CSR of L^T,
 *     built by cusparseCsr2cscEx2 on the device, or on the host when the device has no room
 *     or the sizes exceed 32 bits), so that either triangle can be the one the library reads;
 *   - indices: 32 or 64 bits.
 * The descriptor carries the fill mode of what is stored and a non-unit diagonal. */
#ifndef SPTRSV_CUDA_SPMAT_H
#define SPTRSV_CUDA_SPMAT_H

#include <stdint.h>

#include <cusparse.h>

#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "sptrsv_family.h"

typedef enum sptrsv_spfmt { SPTRSV_SP_CSR = 0, SPTRSV_SP_COO = 1, SPTRSV_SP_SELL = 2 } sptrsv_spfmt;

typedef struct sptrsv_spmat {
    rt_cuda_ctx *ctx;
    void *dev[3]; /* row pointers / row indices / slice offsets, column indices, values */
    cusparseSpMatDescr_t mat;
    int have_mat;
    int64_t stored;  /* entries stored (with the sliced ELL's padding) */
    double upload_s; /* conversion on the host and upload */
} sptrsv_spmat;

/* Returns 0, RT_INFEASIBLE (device full, or padding too large: err says which) or -1. */
int sptrsv_spmat_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                        sptrsv_spfmt fmt, int upper, int idx64, sptrsv_spmat *m, rt_err *err);
void sptrsv_spmat_free(sptrsv_spmat *m);

#endif
