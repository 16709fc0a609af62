/* gemm_cuda_engine: the tiled GEMM's engine on GPUs (gemm_tiled.h). Each of the G GPUs of the
 * process lives on the device the caller names (gemm_gpu_map.h: all on the rank's own device with
 * gpu_map = logical, one device each with physical), with its own slots (its memory budget), a
 * copy stream, and 4 compute streams with a cuBLAS handle each, all created on its device. With
 * several devices, every call first selects the GPU's device (cudaSetDevice), peer access is
 * enabled between them and tiles go from GPU to GPU with cudaMemcpyPeerAsync. Host memory is
 * pinned (portable under unified addressing). Ordering, all with events:
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

/* devices: the device ordinal of each GPU (NULL: all on the context's). lookahead: the plan's l
 * (sizes the event rings). Returns RT_INFEASIBLE when a device cannot hold the slots. Leaves the
 * context current. */
int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, const int *devices, int64_t slots,
                            size_t tile_bytes, rt_precision prec, int lookahead,
                            gemm_cuda_engine **out, rt_err *err);
/* Distinct devices the GPUs are on; whether every pair of them has peer access (1 with one). */
int gemm_cuda_engine_devices(const gemm_cuda_engine *e);
int gemm_cuda_engine_peer_access(const gemm_cuda_engine *e);
void gemm_cuda_engine_free(gemm_cuda_engine *e);
const gemm_engine_ops *gemm_cuda_engine_ops(void);

#endif
