/* sptrsv_cuda_ipc_send: the device side of one `transport: ipc` message of
 * sptrsv.cuda.distributed, compiled by nvcc and called from C.
 *
 * One block copies x_s (n doubles) from this rank's device X into the receiver's device X, mapped
 * here with cudaIpcOpenMemHandle, then adds one to the receiver's arrival counter of the slot
 * (also mapped) with a system-scope atomic. Every thread fences its stores at system scope before
 * the block barrier after which thread 0 increments the counter, so whoever reads the counter's
 * new value (the receiver's host, through a device-to-host copy) also finds x_s in place. */
#ifndef SPTRSV_CUDA_IPC_SEND_H
#define SPTRSV_CUDA_IPC_SEND_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the copy and the increment on `stream` (a cudaStream_t), after the work that wrote
 * src; returns the launch's cudaError_t (0: cudaSuccess). */
int sptrsv_cuda_ipc_send_launch(void *stream, const double *src, double *peer_dst, int64_t n,
                                unsigned long long *peer_counter);

#ifdef __cplusplus
}
#endif

#endif
