/* sptrsv_cuda_peers: device buffers of every rank of a communicator mapped into every other
 * rank's address space with CUDA IPC, for the sptrsv kernels whose GPUs write into each other's
 * memory (the `ipc` transport of sptrsv.cuda.distributed, sptrsv.cuda.persistent).
 *
 * Each rank exports its buffers with cudaIpcGetMemHandle; the handles and the device's PCI bus id
 * go to every rank with one MPI_Allgather; each rank opens its peers' with
 * cudaIpcOpenMemHandle(cudaIpcMemLazyEnablePeerAccess). Before that it checks that the ranks
 * share one host (MPI_COMM_TYPE_SHARED on the real job: emulated nodes do not matter), that every
 * peer's GPU is visible here (matched by PCI bus id, so differing CUDA_VISIBLE_DEVICES are
 * caught) and that two distinct GPUs have peer access with native atomics; with distinct_gpus,
 * also that no two ranks share a GPU. A failed check is RT_INFEASIBLE with the reason; every rank
 * of the communicator returns the same outcome (the worst, naming the lowest failing rank). */
#ifndef SPTRSV_CUDA_PEERS_H
#define SPTRSV_CUDA_PEERS_H

#include <mpi.h>

#include "rt_cuda_ctx.h"
#include "rt_error.h"

#define SPTRSV_PEERS_MAX_BUFFERS 8

typedef struct sptrsv_cuda_peers sptrsv_cuda_peers;

/* Collective over comm. bufs: nbuf device buffers of this rank (cudaMalloc'd, each its own
 * allocation). name prefixes messages, fallback names the other choice in them ("use transport:
 * rma"). Returns 0, RT_INFEASIBLE or -1; *out is set in every case (free it with
 * sptrsv_cuda_peers_close; NULL is fine). */
int sptrsv_cuda_peers_open(const char *name, const char *fallback, rt_cuda_ctx *ctx, MPI_Comm comm,
                           void *const *bufs, int nbuf, int distinct_gpus, sptrsv_cuda_peers **out,
                           rt_err *err);

/* Buffer i of rank r as mapped here (this rank's own for r == me); NULL when unmapped. */
void *sptrsv_cuda_peers_get(const sptrsv_cuda_peers *p, int r, int i);

/* Unmaps the peers' buffers (after this rank's last kernel that uses them) and frees p. The
 * caller keeps its own buffers until every peer has closed (a barrier between the two). */
void sptrsv_cuda_peers_close(sptrsv_cuda_peers *p);

#endif
