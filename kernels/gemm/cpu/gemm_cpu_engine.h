/* gemm_cpu_engine: the tiled GEMM's engine on the CPU. Each "GPU" is a host-memory area of the
 * plan's slots (its budget), copies are memcpy and tile products CBLAS calls, so the schedule,
 * the caches, the messages and the counters of the GPU kernel run (and are tested) on any
 * machine. With the ipc transport the slots of a node's processes live in one MPI shared-memory
 * window and a process copies a peer's tile straight from it, as a GPU does through CUDA IPC;
 * the engine runs in program order, so the ordering calls are no-ops but for the window's memory
 * synchronization. */
#ifndef GEMM_CPU_ENGINE_H
#define GEMM_CPU_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_tiled.h"
#include "rt_matrix.h"

typedef struct gemm_cpu_engine gemm_cpu_engine;

int gemm_cpu_engine_create(int gpus, int64_t slots, size_t tile_bytes, rt_precision prec,
                           gemm_cpu_engine **out, rt_err *err);
void gemm_cpu_engine_free(gemm_cpu_engine *e);
const gemm_engine_ops *gemm_cpu_engine_ops(void);

/* C(m x n) (+)= A(m x k) B(k x n), column-major tiles with leading dimensions m, k, m. */
void gemm_cpu_tile_product(rt_precision prec, int64_t m, int64_t n, int64_t k, const void *a,
                           const void *b, void *c, int accumulate);

#endif
