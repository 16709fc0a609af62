#include "sptrsv_cuda_ipc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#include <mpi.h>

#include "rt_registry.h"
#include "sptrsv_cuda_ipc_send.h"

/* What every rank tells every other once, in setup. */
typedef struct ipc_offer {
    cudaIpcMemHandle_t x, counters;
    char pci[32]; /* the device's PCI bus id: ordinals differ between processes' visible sets */
    int ok;       /* 0: this rank could not export (its own error comes in the agreement) */
} ipc_offer;

struct sptrsv_cuda_ipc {
    const char *name;
    rt_cuda_ctx *ctx;
    const rt_sptrsv_inputs *in;
    int rank, nranks;
    double *x;                       /* mine, device (the caller's) */
    unsigned long long *counters;    /* mine, device, one per receive slot */
    unsigned long long *counts_host; /* page-locked landing of the polls */
    int64_t n_recv;
    cudaStream_t poll; /* the polls' copies, apart from the solve's stream */
    int have_poll;
    double **peer_x;                    /* nranks: mapped X of every peer (NULL for me) */
    unsigned long long **peer_counters; /* nranks: mapped counters of every peer */
};

static int cuda_fail(rt_err *err, const char *name, const char *what, cudaError_t e)
{
    (void)cudaGetLastError(); /* a failed call must not be reported again by a later one */
    return rt_err_set(err, "%s: transport ipc: %s: %s", name, what, cudaGetErrorString(e));
}

#define IPC_TRY(call, what)                                                                        \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                                     \
            return cuda_fail(err, s->name, what, e_);                                              \
    } while (0)

/* 1 when every rank of world shares this host's memory (one shared-memory domain), the same
 * answer on every rank (the real host, never an emulated node). */
static int one_host(rt_comm *comm, int *host_ranks, rt_err *err)
{
    MPI_Comm world = rt_comm_mpi(comm, RT_COMM_WORLD), shm = MPI_COMM_NULL;
    int size = 0, world_size = rt_comm_world_size(comm);
    int here =
        MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) == MPI_SUCCESS &&
        MPI_Comm_size(shm, &size) == MPI_SUCCESS && size == world_size;
    if (shm != MPI_COMM_NULL)
        MPI_Comm_free(&shm);
    int all = 0;
    if (MPI_Allreduce(&here, &all, 1, MPI_INT, MPI_MIN, world) != MPI_SUCCESS)
        return rt_err_set(err, "transport ipc: agreeing on the host (MPI_Allreduce) failed");
    *host_ranks = size;
    return all;
}

/* My counters, the poll stream and my offer. */
static int export_mine(sptrsv_cuda_ipc *s, ipc_offer *mine, rt_err *err)
{
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const size_t cb = (size_t)(s->n_recv > 0 ? s->n_recv : 1) * sizeof *s->counters;
    IPC_TRY(cudaMalloc((void **)&s->counters, cb), "allocating the arrival counters");
    IPC_TRY(cudaMemset(s->counters, 0, cb), "clearing the arrival counters");
    IPC_TRY(cudaMallocHost((void **)&s->counts_host, cb), "allocating the poll landing");
    IPC_TRY(cudaStreamCreateWithFlags(&s->poll, cudaStreamNonBlocking), "creating the poll stream");
    s->have_poll = 1;
    int dev = 0;
    IPC_TRY(cudaGetDevice(&dev), "cudaGetDevice");
    IPC_TRY(cudaDeviceGetPCIBusId(mine->pci, (int)sizeof mine->pci, dev), "reading the PCI bus id");
    IPC_TRY(cudaIpcGetMemHandle(&mine->x, s->x), "cudaIpcGetMemHandle of X");
    IPC_TRY(cudaIpcGetMemHandle(&mine->counters, s->counters),
            "cudaIpcGetMemHandle of the counters");
    IPC_TRY(cudaDeviceSynchronize(), "clearing the arrival counters");
    mine->ok = 1;
    return 0;
}

/* Every peer's memory mapped here. RT_INFEASIBLE when a peer's GPU is another one this GPU
 * cannot store into with atomics (the send kernel writes the peer's memory directly). */
static int open_peers(sptrsv_cuda_ipc *s, const ipc_offer *all, rt_err *err)
{
    int dev = 0;
    IPC_TRY(cudaGetDevice(&dev), "cudaGetDevice");
    for (int r = 0; r < s->nranks; ++r) {
        if (r == s->rank)
            continue;
        if (!all[r].ok) /* that rank failed: its own error wins the agreement */
            continue;
        int peer_dev = -1;
        if (cudaDeviceGetByPCIBusId(&peer_dev, all[r].pci) != cudaSuccess) {
            (void)cudaGetLastError();
            rt_err_set(err,
                       "%s: transport ipc: rank %d's GPU (PCI %s) is not visible to rank %d "
                       "(CUDA_VISIBLE_DEVICES differs); use transport: rma",
                       s->name, r, all[r].pci, s->rank);
            return RT_INFEASIBLE;
        }
        if (peer_dev != dev) {
            int access = 0, atomics = 0;
            IPC_TRY(cudaDeviceCanAccessPeer(&access, dev, peer_dev), "cudaDeviceCanAccessPeer");
            IPC_TRY(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, dev,
                                              peer_dev),
                    "cudaDeviceGetP2PAttribute");
            if (!access || !atomics) {
                rt_err_set(err,
                           "%s: transport ipc: GPU %d (rank %d) cannot %s GPU %d (rank %d)'s "
                           "memory; use transport: rma",
                           s->name, dev, s->rank, access ? "do atomics on" : "access", peer_dev, r);
                return RT_INFEASIBLE;
            }
        }
        void *p = NULL;
        IPC_TRY(cudaIpcOpenMemHandle(&p, all[r].x, cudaIpcMemLazyEnablePeerAccess),
                "cudaIpcOpenMemHandle of a peer's X");
        s->peer_x[r] = p;
        IPC_TRY(cudaIpcOpenMemHandle(&p, all[r].counters, cudaIpcMemLazyEnablePeerAccess),
                "cudaIpcOpenMemHandle of a peer's counters");
        s->peer_counters[r] = p;
    }
    return 0;
}

int sptrsv_cuda_ipc_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                           double *x, sptrsv_dist *engine, rt_comm *comm, sptrsv_cuda_ipc **out,
                           rt_err *err)
{
    *out = NULL;
    int host_ranks = 0;
    const int same_host = one_host(comm, &host_ranks, err);
    if (same_host < 0)
        return -1;
    if (!same_host) {
        rt_err_set(err,
                   "%s: transport ipc needs every rank on one host: rank %d's host runs %d of the "
                   "%d ranks (use transport: rma)",
                   name, rt_comm_world_rank(comm), host_ranks, rt_comm_world_size(comm));
        return RT_INFEASIBLE;
    }
    sptrsv_cuda_ipc *s = calloc(1, sizeof *s);
    const int nranks = rt_comm_world_size(comm);
    ipc_offer *all = calloc((size_t)nranks, sizeof *all);
    int rc = 0;
    if (s) {
        *out = s; /* from here the caller's teardown frees it, whatever happens */
        s->name = name;
        s->ctx = ctx;
        s->rank = rt_comm_world_rank(comm);
        s->nranks = nranks;
        s->peer_x = calloc((size_t)nranks, sizeof *s->peer_x);
        s->peer_counters = calloc((size_t)nranks, sizeof *s->peer_counters);
    }
    /* Every rank reaches the exchange, failed or not: the offers say who has nothing to map. */
    ipc_offer mine;
    memset(&mine, 0, sizeof mine);
    if (!s || !all || !s->peer_x || !s->peer_counters) {
        rc = rt_err_set(err, "%s: out of memory", name);
    } else {
        s->in = in;
        s->x = x;
        s->n_recv = sptrsv_dist_n_recv(engine);
        rc = export_mine(s, &mine, err);
    }
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                      rt_comm_mpi(comm, RT_COMM_WORLD)) != MPI_SUCCESS &&
        rc == 0)
        rc = rt_err_set(err, "%s: transport ipc: exchanging the handles (MPI_Allgather) failed",
                        name);
    if (rc == 0)
        rc = open_peers(s, all, err);
    free(all);
    /* Every rank, even one that could not allocate its state, takes part in the agreement, so
     * that no rank waits for it; all return the worst outcome. */
    char what[RT_ERR_MSG_MAX];
    snprintf(what, sizeof what, "%s: transport ipc", name);
    return rt_comm_agree_outcome(comm, rc, what, "setup", err);
}

static int ipc_send(void *ctx, int64_t j, int dst, int64_t slot, rt_err *err)
{
    sptrsv_cuda_ipc *s = ctx;
    const sptrsv_factor *f = &s->in->f;
    const int64_t k = s->in->nrhs;
    if (dst < 0 || dst >= s->nranks || dst == s->rank || !s->peer_x[dst])
        return rt_err_set(err,
                          "%s: transport ipc: no mapping for rank %d (x of supernode %" PRId64 ")",
                          s->name, dst, j);
    const int64_t off = f->first[j] * k;
    const int rc =
        sptrsv_cuda_ipc_send_launch(rt_cuda_ctx_stream(s->ctx), s->x + off, s->peer_x[dst] + off,
                                    sptrsv_ncols(f, j) * k, s->peer_counters[dst] + slot);
    if (rc != 0)
        return rt_err_set(err,
                          "%s: transport ipc: sending x of supernode %" PRId64 " to rank %d: %s",
                          s->name, j, dst, cudaGetErrorString((cudaError_t)rc));
    return 0;
}

static int ipc_counts(void *ctx, int64_t *counts, rt_err *err)
{
    sptrsv_cuda_ipc *s = ctx;
    if (s->n_recv == 0)
        return 0;
    const size_t bytes = (size_t)s->n_recv * sizeof *s->counters;
    cudaError_t e =
        cudaMemcpyAsync(s->counts_host, s->counters, bytes, cudaMemcpyDeviceToHost, s->poll);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(s->poll);
    if (e != cudaSuccess)
        return cuda_fail(err, s->name, "reading the arrival counters", e);
    for (int64_t i = 0; i < s->n_recv; ++i)
        counts[i] = (int64_t)s->counts_host[i];
    return 0;
}

sptrsv_dist_transport sptrsv_cuda_ipc_transport(sptrsv_cuda_ipc *ipc)
{
    const sptrsv_dist_transport t = {ipc, ipc_send, ipc_counts};
    return t;
}

void sptrsv_cuda_ipc_close_peers(sptrsv_cuda_ipc *s)
{
    if (!s || !s->peer_x)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    (void)cudaStreamSynchronize(rt_cuda_ctx_stream(s->ctx)); /* sends in flight use the maps */
    for (int r = 0; r < s->nranks; ++r) {
        if (s->peer_x[r])
            (void)cudaIpcCloseMemHandle(s->peer_x[r]);
        if (s->peer_counters && s->peer_counters[r])
            (void)cudaIpcCloseMemHandle(s->peer_counters[r]);
        s->peer_x[r] = NULL;
        if (s->peer_counters)
            s->peer_counters[r] = NULL;
    }
}

void sptrsv_cuda_ipc_free(sptrsv_cuda_ipc *s)
{
    if (!s)
        return;
    sptrsv_cuda_ipc_close_peers(s);
    if (s->ctx) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    }
    if (s->have_poll)
        (void)cudaStreamDestroy(s->poll);
    if (s->counts_host)
        (void)cudaFreeHost(s->counts_host);
    if (s->counters)
        (void)cudaFree(s->counters);
    (void)cudaGetLastError();
    free(s->peer_x);
    free(s->peer_counters);
    free(s);
}
