#include "sptrsv_cuda_ipc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "rt_registry.h"
#include "sptrsv_cuda_ipc_send.h"
#include "sptrsv_cuda_peers.h"

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
    sptrsv_cuda_peers *peers; /* every rank's X (buffer 0) and counters (buffer 1) */
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

/* My counters and the poll stream. */
static int make_counters(sptrsv_cuda_ipc *s, rt_err *err)
{
    if (rt_cuda_ctx_make_current(s->ctx, err) != 0)
        return -1;
    const size_t cb = (size_t)(s->n_recv > 0 ? s->n_recv : 1) * sizeof *s->counters;
    IPC_TRY(cudaMalloc((void **)&s->counters, cb), "allocating the arrival counters");
    IPC_TRY(cudaMemset(s->counters, 0, cb), "clearing the arrival counters");
    IPC_TRY(cudaMallocHost((void **)&s->counts_host, cb), "allocating the poll landing");
    IPC_TRY(cudaStreamCreateWithFlags(&s->poll, cudaStreamNonBlocking), "creating the poll stream");
    s->have_poll = 1;
    IPC_TRY(cudaDeviceSynchronize(), "clearing the arrival counters");
    return 0;
}

int sptrsv_cuda_ipc_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                           double *x, sptrsv_dist *engine, rt_comm *comm, sptrsv_cuda_ipc **out,
                           rt_err *err)
{
    *out = NULL;
    sptrsv_cuda_ipc *s = calloc(1, sizeof *s);
    int rc = 0;
    if (!s) {
        rc = rt_err_set(err, "%s: out of memory", name);
    } else {
        *out = s; /* from here the caller's teardown frees it, whatever happens */
        s->name = name;
        s->ctx = ctx;
        s->in = in;
        s->x = x;
        s->rank = rt_comm_world_rank(comm);
        s->nranks = rt_comm_world_size(comm);
        s->n_recv = sptrsv_dist_n_recv(engine);
        rc = make_counters(s, err);
    }
    char what[RT_ERR_MSG_MAX];
    snprintf(what, sizeof what, "%s: transport ipc", name);
    /* Every rank learns whether every other has its buffers before any handle is exchanged. */
    if ((rc = rt_comm_agree_outcome(comm, rc, what, "setup", err)) != 0)
        return rc;
    void *const bufs[2] = {s->x, s->counters};
    return sptrsv_cuda_peers_open(what, "use transport: rma", ctx, rt_comm_mpi(comm, RT_COMM_WORLD),
                                  bufs, 2, 0, &s->peers, err);
}

static int ipc_send(void *ctx, int64_t j, int dst, int64_t slot, rt_err *err)
{
    sptrsv_cuda_ipc *s = ctx;
    const sptrsv_factor *f = &s->in->f;
    const int64_t k = s->in->nrhs;
    double *peer_x = sptrsv_cuda_peers_get(s->peers, dst, 0);
    unsigned long long *peer_counters = sptrsv_cuda_peers_get(s->peers, dst, 1);
    if (dst < 0 || dst >= s->nranks || dst == s->rank || !peer_x || !peer_counters)
        return rt_err_set(err,
                          "%s: transport ipc: no mapping for rank %d (x of supernode %" PRId64 ")",
                          s->name, dst, j);
    const int64_t off = f->first[j] * k;
    const int rc = sptrsv_cuda_ipc_send_launch(rt_cuda_ctx_stream(s->ctx), s->x + off, peer_x + off,
                                               sptrsv_ncols(f, j) * k, peer_counters + slot);
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
    if (!s || !s->peers)
        return;
    rt_err ignored;
    (void)rt_cuda_ctx_make_current(s->ctx, &ignored);
    (void)cudaStreamSynchronize(rt_cuda_ctx_stream(s->ctx)); /* sends in flight use the maps */
    sptrsv_cuda_peers_close(s->peers);
    s->peers = NULL;
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
    free(s);
}
