/* spmm_cuda_variant: the SpMM CUDA kernels' NVRTC variants as data, without a device: their
 * parameters read with the catalog's defaults, the defines every SpMM variant starts with, and
 * the Tiled kernel's (spmm.cuda.tiled) parameters and variant request. Its set-up compiles that
 * request and its compile-ahead hook queues the same one (one builder, so one cache key:
 * cuda.tiled_ahead checks it for every point of configs/tune/tiled-parallel.yaml without a GPU). */
#ifndef SPMM_CUDA_VARIANT_H
#define SPMM_CUDA_VARIANT_H

#include <stddef.h>
#include <stdint.h>

#include "rt_cuda_defines.h"
#include "rt_error.h"
#include "rt_params.h"
#include "spmm_family.h"

/* Integer / string parameter of kernel `kind` (spmm_cuda_catalog.h), the schema default when p
 * does not carry it; a value outside the schema's domain fails, naming it. */
int rt_spmm_cuda_param_int(const rt_params *p, int kind, const char *name, int64_t *out,
                           rt_err *err);
int rt_spmm_cuda_param_str(const rt_params *p, int kind, const char *name, char *out, size_t len,
                           rt_err *err);

/* The NVRTC defines every SpMM variant (csr, ell, tiled) starts with: precision, layout of B and
 * C, block size, register tile and the launch-bounds minimum of blocks per SM. */
void rt_spmm_cuda_defines(rt_cuda_defines *d, const rt_spmm_inputs *in, int64_t block_size,
                          int64_t register_tile, int64_t min_blocks);

/* spmm.cuda.tiled's parameters, and what the paper derives from them. */
typedef struct rt_spmm_tiled_params {
    int64_t block_size, shared_kib, register_tile, min_blocks, index_bytes, allow_spills;
    int64_t nnz_unroll;
    int use_ell;
    int64_t buffsize;      /* staged B rows per stage */
    size_t dynamic_shared; /* buffsize * register_tile * sizeof(value) */
} rt_spmm_tiled_params;

int rt_spmm_tiled_read_params(const rt_params *p, const rt_spmm_inputs *in,
                              rt_spmm_tiled_params *tp, rt_err *err);

/* The variant spmm.cuda.tiled compiles for tp: its defines in *defs (which rq points at) and the
 * request (source, entry, launch it must fit); what names kernel and point in messages. */
void rt_spmm_tiled_variant(const rt_spmm_inputs *in, const rt_spmm_tiled_params *tp,
                           const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq);

#endif
