/* gemm_cuda_engine: the tiled GEMM's engine on a GPU (gemm_tiled.h). G logical GPUs share one
 * physical device, each with its own slots (its memory budget), a copy stream, and 4 compute
 * streams with a cuBLAS handle each. Host memory is pinned. Ordering, all with events:
 *   - a chunk's products wait for that chunk's copies on the same logical GPU;
 *   - the copies of chunk s wait for the products of chunk s - l - 1 on every logical GPU (the
 *     last that may read a slot they overwrite, including through a peer copy);
 *   - a peer copy waits for everything issued so far on the source GPU's copy stream;
 *   - C tile products run on 4 compute streams (C slot mod 4: one tile's updates stay in order);
 *   - C tiles go back to host memory on their compute stream, after the block's products;
 *   - a host receive buffer is reused once the copies that read it have completed. */
#ifndef GEMM_CUDA_ENGINE_H
#define GEMM_CUDA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_tiled.h"
#include "rt_cuda_ctx.h"
#include "rt_matrix.h"

typedef struct gemm_cuda_engine gemm_cuda_engine;

/* lookahead: the plan's l (sizes the event rings). Returns RT_INFEASIBLE when the device cannot
 * hold the slots. */
int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, int64_t slots, size_t tile_bytes,
                            rt_precision prec, int lookahead, gemm_cuda_engine **out, rt_err *err);
void gemm_cuda_engine_free(gemm_cuda_engine *e);
const gemm_engine_ops *gemm_cuda_engine_ops(void);

#endif
