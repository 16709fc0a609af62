/* gemm_cuda_engine: the device of the tiled GEMM's engine on GPUs (gemm_async.h, which decides
 * the streams and events: here they are CUDA's). Each of the G GPUs of the process lives on the
 * device the caller names (gemm_gpu_map.h: all on the rank's own device with gpu_map = logical,
 * one device each with physical), with its own slots (its memory budget, one cudaMalloc), the
 * streams of gemm_async.h created on its device (non-blocking) and a cuBLAS handle per compute
 * stream. With several devices, every call first selects the GPU's device (cudaSetDevice), peer
 * access is enabled between them and tiles go from GPU to GPU with cudaMemcpyPeerAsync. Host
 * memory is pinned with cudaHostRegister after the caller filled it (parallel first touch) or,
 * for receive buffers, at once. ipc (share): every process exports its GPUs' slots
 * (cudaIpcGetMemHandle) and OWN/LOADED events (cudaIpcGetEventHandle, created interprocess); the
 * others open them on each of their devices (cudaIpcOpenMemHandle, peer access enabled lazily)
 * and pull with cudaMemcpyAsync. */
#ifndef GEMM_CUDA_ENGINE_H
#define GEMM_CUDA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_async.h"
#include "rt_cuda_ctx.h"
#include "rt_matrix.h"

typedef struct gemm_cuda_engine gemm_cuda_engine;

/* devices: the device ordinal of each GPU (NULL: all on the context's). slots: per GPU, the first
 * c_slots of them C's. lookahead: the plan's l (sizes the event rings, gemm_async_ring). Returns
 * RT_INFEASIBLE when a device cannot hold the slots. Leaves the context current. */
int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, const int *devices, int64_t slots,
                            int64_t c_slots, size_t tile_bytes, rt_precision prec, int lookahead,
                            gemm_cuda_engine **out, rt_err *err);
/* Distinct devices the GPUs are on; whether every pair of them has peer access (1 with one). */
int gemm_cuda_engine_devices(const gemm_cuda_engine *e);
int gemm_cuda_engine_peer_access(const gemm_cuda_engine *e);
/* Waits for everything issued on the GPUs' streams (errors ignored): before host memory they may
 * still copy from or to is freed, e.g. after an execution that failed halfway. */
void gemm_cuda_engine_drain(gemm_cuda_engine *e);
/* With ipc, collective over the node it was shared on (importers unmap, then a barrier, then the
 * memory is freed): every rank of the node tears its point down together. */
void gemm_cuda_engine_free(gemm_cuda_engine *e);
/* The device for gemm_async_create, whose ctx is a gemm_cuda_engine. */
const gemm_async_dev *gemm_cuda_engine_dev(void);

#endif
