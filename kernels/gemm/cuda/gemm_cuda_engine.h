/* gemm_cuda_engine: the tiled GEMM's engine on GPUs (gemm_tiled.h). Each of the G GPUs of the
 * process lives on the device the caller names (gemm_gpu_map.h: all on the rank's own device with
 * gpu_map = logical, one device each with physical), with its own slots (its memory budget, one
 * cudaMalloc), and streams created on its device: h2d (host to device), p2p (from other GPUs of the
 * process and, with ipc, of node peers), d2h (C back to the host), join (marks), and 4 compute
 * streams with a cuBLAS handle each. With several devices every call first selects the GPU's
 * device (cudaSetDevice), peer access is enabled between them and tiles go from GPU to GPU with
 * cudaMemcpyPeerAsync. Ordering, all with events and no host wait:
 *   - a load records its slot's event; a product waits for the events of its two slots (once per
 *     compute stream and load), so it starts as soon as its tiles are in, whatever the chunk;
 *   - a peer copy waits for its source slot's event;
 *   - GPU g's loads of chunk s, when they overwrite slots in use, wait for g's products of chunk
 *     s - l - 1 (every compute stream) and the other GPUs' copies of chunk s - l - 1 (their join
 *     mark), the last that may have read an evicted slot; with ipc also for the node peers'
 *     copies of that chunk (their interprocess `loaded` event, after their done message);
 *   - a tile pulled from a node peer waits for the peer's interprocess `own` event of the chunk
 *     (its phase-1 copies, after its directory message);
 *   - C tile products run on 4 compute streams (C slot mod 4: one tile's updates stay in order);
 *     its write-back on the d2h stream waits for its last product, and its slot's next first
 *     product waits for the write-back.
 * Host memory is pinned with cudaHostRegister after the caller filled it (parallel first touch)
 * or, for receive buffers, at once. ipc (share): every process exports its GPUs' slots
 * (cudaIpcGetMemHandle) and own/loaded events (cudaIpcGetEventHandle); the others open them on
 * each of their devices (cudaIpcOpenMemHandle, peer access enabled lazily). */
#ifndef GEMM_CUDA_ENGINE_H
#define GEMM_CUDA_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_tiled.h"
#include "rt_cuda_ctx.h"
#include "rt_matrix.h"

typedef struct gemm_cuda_engine gemm_cuda_engine;

/* devices: the device ordinal of each GPU (NULL: all on the context's). slots: per GPU, the first
 * c_slots of them C's. lookahead: the plan's l (sizes the event rings). Returns RT_INFEASIBLE when
 * a device cannot hold the slots. Leaves the context current. */
int gemm_cuda_engine_create(rt_cuda_ctx *ctx, int gpus, const int *devices, int64_t slots,
                            int64_t c_slots, size_t tile_bytes, rt_precision prec, int lookahead,
                            gemm_cuda_engine **out, rt_err *err);
/* Distinct devices the GPUs are on; whether every pair of them has peer access (1 with one). */
int gemm_cuda_engine_devices(const gemm_cuda_engine *e);
int gemm_cuda_engine_peer_access(const gemm_cuda_engine *e);
/* With ipc, collective over the node it was shared on (importers unmap, then a barrier, then the
 * memory is freed): every rank of the node tears its point down together. */
void gemm_cuda_engine_free(gemm_cuda_engine *e);
const gemm_engine_ops *gemm_cuda_engine_ops(void);

#endif
