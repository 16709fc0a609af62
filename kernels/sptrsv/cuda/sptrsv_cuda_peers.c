#include "sptrsv_cuda_peers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_registry.h"

/* What every rank tells every other once. */
typedef struct offer {
    cudaIpcMemHandle_t h[SPTRSV_PEERS_MAX_BUFFERS];
    char pci[32]; /* the device's PCI bus id: ordinals differ between processes' visible sets */
    int ok;       /* 0: this rank could not export (its own error comes in the agreement) */
} offer;

struct sptrsv_cuda_peers {
    rt_cuda_ctx *ctx;
    int me, n, nbuf;
    void **map; /* n x nbuf */
};

static int cuda_fail(rt_err *err, const char *name, const char *what, cudaError_t e)
{
    (void)cudaGetLastError(); /* a failed call must not be reported again by a later one */
    return rt_err_set(err, "%s: %s: %s", name, what, cudaGetErrorString(e));
}

/* 1 when every rank of comm shares this host's memory (the real host, never an emulated
 * node); -1 when MPI fails. *here: the ranks of comm on this host. */
static int one_host(MPI_Comm comm, int *here)
{
    MPI_Comm shm = MPI_COMM_NULL;
    int size = 0, n = 0;
    MPI_Comm_size(comm, &n);
    int mine =
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) == MPI_SUCCESS &&
        MPI_Comm_size(shm, &size) == MPI_SUCCESS && size == n;
    if (shm != MPI_COMM_NULL)
        MPI_Comm_free(&shm);
    int all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return -1;
    *here = size;
    return all;
}

static int export_mine(const char *name, sptrsv_cuda_peers *p, void *const *bufs, offer *mine,
                       rt_err *err)
{
    if (rt_cuda_ctx_make_current(p->ctx, err) != 0)
        return -1;
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = cudaDeviceGetPCIBusId(mine->pci, (int)sizeof mine->pci, dev);
    if (e != cudaSuccess)
        return cuda_fail(err, name, "reading the PCI bus id", e);
    for (int i = 0; i < p->nbuf; ++i) {
        if ((e = cudaIpcGetMemHandle(&mine->h[i], bufs[i])) != cudaSuccess)
            return cuda_fail(err, name, "cudaIpcGetMemHandle", e);
        p->map[(size_t)p->me * p->nbuf + i] = bufs[i];
    }
    mine->ok = 1;
    return 0;
}

static int open_peers(const char *name, const char *fallback, sptrsv_cuda_peers *p,
                      const offer *all, int distinct, rt_err *err)
{
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return cuda_fail(err, name, "cudaGetDevice", e);
    for (int r = 0; r < p->n; ++r) {
        if (r == p->me || !all[r].ok) /* a rank that failed: its own error wins the agreement */
            continue;
        if (distinct && strcmp(all[r].pci, all[p->me].pci) == 0) {
            rt_err_set(err,
                       "%s: ranks %d and %d share the GPU at PCI %s: it needs one GPU per rank "
                       "(start as many ranks as GPUs)%s%s",
                       name, r < p->me ? r : p->me, r < p->me ? p->me : r, all[r].pci,
                       fallback ? "; " : "", fallback ? fallback : "");
            return RT_INFEASIBLE;
        }
        int peer_dev = -1;
        if (cudaDeviceGetByPCIBusId(&peer_dev, all[r].pci) != cudaSuccess) {
            (void)cudaGetLastError();
            rt_err_set(err,
                       "%s: rank %d's GPU (PCI %s) is not visible to rank %d (CUDA_VISIBLE_DEVICES "
                       "differs)%s%s",
                       name, r, all[r].pci, p->me, fallback ? "; " : "", fallback ? fallback : "");
            return RT_INFEASIBLE;
        }
        if (peer_dev != dev) {
            int access = 0, atomics = 0;
            if ((e = cudaDeviceCanAccessPeer(&access, dev, peer_dev)) != cudaSuccess ||
                (e = cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, dev,
                                               peer_dev)) != cudaSuccess)
                return cuda_fail(err, name, "querying peer access", e);
            if (!access || !atomics) {
                rt_err_set(err, "%s: GPU %d (rank %d) cannot %s GPU %d (rank %d)'s memory%s%s",
                           name, dev, p->me, access ? "do atomics on" : "access", peer_dev, r,
                           fallback ? "; " : "", fallback ? fallback : "");
                return RT_INFEASIBLE;
            }
        }
        for (int i = 0; i < p->nbuf; ++i) {
            void *m = NULL;
            if ((e = cudaIpcOpenMemHandle(&m, all[r].h[i], cudaIpcMemLazyEnablePeerAccess)) !=
                cudaSuccess)
                return cuda_fail(err, name, "cudaIpcOpenMemHandle of a peer's buffer", e);
            p->map[(size_t)r * p->nbuf + i] = m;
        }
    }
    return 0;
}

/* Every rank of comm learns the worst outcome and the lowest failing rank's message. */
static int agree(MPI_Comm comm, int me, int rc, const char *name, rt_err *err)
{
    const int mine = rc == 0 ? 0 : rc == RT_INFEASIBLE ? 1 : 2;
    int worst = 0;
    if (MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return rt_err_set(err, "%s: agreeing on the setup (MPI_Allreduce) failed", name);
    if (worst == 0)
        return 0;
    int who = mine == worst ? me : 1 << 30, first = 0;
    if (MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return rt_err_set(err, "%s: agreeing on the setup (MPI_Allreduce) failed", name);
    char msg[RT_ERR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", me == first ? err->msg : "");
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm) != MPI_SUCCESS)
        return rt_err_set(err, "%s: sharing rank %d's setup failure failed", name, first);
    rt_err_set(err, "%s", msg);
    return worst == 1 ? RT_INFEASIBLE : -1;
}

int sptrsv_cuda_peers_open(const char *name, const char *fallback, rt_cuda_ctx *ctx, MPI_Comm comm,
                           void *const *bufs, int nbuf, int distinct_gpus, sptrsv_cuda_peers **out,
                           rt_err *err)
{
    *out = NULL;
    int me = 0, n = 0;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    if (nbuf < 1 || nbuf > SPTRSV_PEERS_MAX_BUFFERS)
        return rt_err_set(err, "%s: %d buffers to map (1..%d)", name, nbuf,
                          SPTRSV_PEERS_MAX_BUFFERS);
    int here = 0;
    const int same = one_host(comm, &here);
    if (same < 0)
        return rt_err_set(err, "%s: agreeing on the host (MPI_Allreduce) failed", name);
    if (!same) {
        rt_err_set(err,
                   "%s: CUDA IPC needs every rank on one host: rank %d's host runs %d of the %d "
                   "ranks%s%s",
                   name, me, here, n, fallback ? "; " : "", fallback ? fallback : "");
        return RT_INFEASIBLE;
    }
    sptrsv_cuda_peers *p = calloc(1, sizeof *p);
    offer *all = calloc((size_t)n, sizeof *all);
    offer mine;
    memset(&mine, 0, sizeof mine);
    int rc = 0;
    if (p) {
        *out = p;
        p->ctx = ctx;
        p->me = me;
        p->n = n;
        p->nbuf = nbuf;
        p->map = calloc((size_t)n * (size_t)nbuf, sizeof *p->map);
    }
    /* Every rank reaches the exchange, failed or not: the offers say who has nothing to map. */
    if (!p || !all || !p->map)
        rc = rt_err_set(err, "%s: out of memory", name);
    else
        rc = export_mine(name, p, bufs, &mine, err);
    if (MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, comm) !=
            MPI_SUCCESS &&
        rc == 0)
        rc = rt_err_set(err, "%s: exchanging the IPC handles (MPI_Allgather) failed", name);
    if (rc == 0)
        rc = open_peers(name, fallback, p, all, distinct_gpus, err);
    free(all);
    return agree(comm, me, rc, name, err);
}

void *sptrsv_cuda_peers_get(const sptrsv_cuda_peers *p, int r, int i)
{
    if (!p || r < 0 || r >= p->n || i < 0 || i >= p->nbuf)
        return NULL;
    return p->map[(size_t)r * p->nbuf + i];
}

void sptrsv_cuda_peers_close(sptrsv_cuda_peers *p)
{
    if (!p)
        return;
    if (p->map) {
        rt_err ignored;
        (void)rt_cuda_ctx_make_current(p->ctx, &ignored);
        for (int r = 0; r < p->n; ++r)
            for (int i = 0; i < p->nbuf && r != p->me; ++i)
                if (p->map[(size_t)r * p->nbuf + i])
                    (void)cudaIpcCloseMemHandle(p->map[(size_t)r * p->nbuf + i]);
        (void)cudaGetLastError();
    }
    free(p->map);
    free(p);
}
