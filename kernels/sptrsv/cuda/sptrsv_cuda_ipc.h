/* sptrsv_cuda_ipc: `transport: ipc` of sptrsv.cuda.distributed, the engine's messages as CUDA IPC
 * copies between the ranks' GPUs of one host (sptrsv_dist_transport's hooks).
 *
 * Each rank exports its device X (where every x_s it receives lands, at x_s's own rows, so the
 * update kernels read it in place) and a device array of arrival counters, one per receive slot
 * (sptrsv_dist_engine numbers them), with cudaIpcGetMemHandle; the handles go to every rank once,
 * in setup (MPI_Allgather), and each rank opens its peers' with cudaIpcOpenMemHandle (a peer on
 * the same device too: IPC works across processes of one device). A message is one kernel on the
 * sender's stream, after the work that wrote x_s: it stores x_s into the receiver's X, fences at
 * system scope and increments the receiver's counter with atomicAdd_system
 * (sptrsv_cuda_ipc_send.h). The receiver polls its counters from the host: one device-to-host
 * copy of the whole array per poll, on a stream of its own, so no kernel ever spins (ranks
 * sharing one GPU without MPS are time-sliced: a spinning kernel could wait forever for a peer's
 * kernel that cannot run). */
#ifndef SPTRSV_CUDA_IPC_H
#define SPTRSV_CUDA_IPC_H

#include <stdint.h>

#include "rt_comm.h"
#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "sptrsv_dist_engine.h"
#include "sptrsv_family.h"

typedef struct sptrsv_cuda_ipc sptrsv_cuda_ipc;

/* Collective over world; every rank returns the same outcome: 0, RT_INFEASIBLE (the ranks are
 * not all on one host, a peer's GPU is not visible here, or two GPUs cannot reach each other's
 * memory with atomics; err says which) or -1 (err names the failing rank). x is this rank's
 * device X (n x nrhs, row-major, its own cudaMalloc). On success *out's hooks are ready for
 * sptrsv_dist_set_transport (sptrsv_cuda_ipc_transport). A partial *out on failure is freed by
 * sptrsv_cuda_ipc_close_peers and sptrsv_cuda_ipc_free. */
int sptrsv_cuda_ipc_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                           double *x, sptrsv_dist *engine, rt_comm *comm, sptrsv_cuda_ipc **out,
                           rt_err *err);

/* The engine hooks, ctx = ipc. */
sptrsv_dist_transport sptrsv_cuda_ipc_transport(sptrsv_cuda_ipc *ipc);

/* Teardown in two steps around the engine's collective free (which no rank leaves before every
 * rank has entered it): close the peers' memory mapped here, then free this rank's exported
 * buffers, which no peer maps any more. NULL is fine. */
void sptrsv_cuda_ipc_close_peers(sptrsv_cuda_ipc *ipc);
void sptrsv_cuda_ipc_free(sptrsv_cuda_ipc *ipc);

#endif
