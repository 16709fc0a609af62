/* gemm_tiled: the chunked, blocked GEMM of the plan (gemm_plan.h) over MPI, on G GPUs per process
 * through an engine (host memory + CBLAS for gemm.cpu.tiled, cuBLAS and streams for
 * gemm.cuda.tiled), so the schedule, the messages, the tile caches and the counters exist once.
 *
 * One execution walks the global chunk sequence. For each chunk s + l while chunk s computes
 * (lookahead l), every GPU of the process takes the chunk's tiles in its cache (pinned until the
 * chunk is computed) and the missing ones are copied in, in two phases:
 *   1. tiles this process owns: an A tile missed by every GPU that computes in the chunk is loaded
 *      from host memory by one of them (round robin, so the host links share the work) and
 *      copied from it device to device by the others; an A tile some GPU already holds is copied
 *      from that GPU; a B tile belongs to one GPU and comes from host memory;
 *   2. tiles other processes own: with ipc (gemm_plan.h), from a process of the same node that
 *      holds them for the chunk, GPU to GPU (it says where in a directory message once its phase
 *      1 is issued); else from the host receive ring, filled by MPI (non-blocking, posted 2 l
 *      chunks ahead), then device to device to the other GPUs as above.
 * Products of a chunk wait for the tiles they read (per slot, not per chunk), so they start as
 * soon as their two tiles are in; loads wait only for the products and copies that last read the
 * slots they overwrite (the GPU's own, its process's other GPUs' copies from it, and, with ipc,
 * the node peers that pulled from it: a done message per chunk). After a block's last chunk its
 * C tiles go back to host memory as each one's last product completes. Every step is counted:
 * tiles and elements by source per GPU, C tiles written (and how often each), tiles and bytes sent
 * per tier. */
#ifndef GEMM_TILED_H
#define GEMM_TILED_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "gemm_family.h"
#include "gemm_plan.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"

/* What mark() and wait_peer() order: a process's phase-1 copies of a chunk (the tiles node peers
 * may pull), and all its copies of a chunk (after which peers may overwrite what it pulled). */
enum { GEMM_MARK_OWN = 0, GEMM_MARK_LOADS = 1 };

/* The engine: where tiles live and how they are moved and multiplied. Slots are numbered per GPU:
 * [0, b c/G) the C block, then the A pool, then the B pool (the plan's sizes). Tiles are
 * column-major with the leading dimension equal to their rows. An engine that runs everything in
 * program order (the CPU's) may make the ordering calls no-ops; the GPU's orders its streams with
 * them, so the CPU runs the same sequence of calls. */
typedef struct gemm_engine_ops {
    /* Host memory the engine copies from and to: allocated, filled by the caller, then pinned
     * (host_pin: page-locked for the GPU's copy engines; a no-op on the CPU). */
    void *(*host_alloc)(void *eng, size_t bytes);
    int (*host_pin)(void *eng, void *p, size_t bytes, rt_err *err);
    void (*host_free)(void *eng, void *p);
    /* Collective over `node` (the ranks of this node): each process's slots become readable by
     * the others (CUDA IPC; an MPI shared-memory window on the CPU), with the events that order
     * the reads. Returns 0, RT_INFEASIBLE (err says why: IPC does not work here) or -1. Called at
     * most once, after every rank created its engine. */
    int (*share)(void *eng, MPI_Comm node, rt_err *err);
    /* Copies into slot `slot` of GPU g (after which the products that read it may start): from
     * host memory; from slot src_slot of this process's GPU src_g (after what was copied there);
     * from slot src_slot of GPU src_g of node rank `peer` (after wait_peer(GEMM_MARK_OWN)). */
    int (*load_host)(void *eng, int g, int64_t slot, const void *src, size_t bytes, rt_err *err);
    int (*load_peer)(void *eng, int g, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
                     rt_err *err);
    int (*load_remote)(void *eng, int g, int64_t slot, int peer, int src_g, int64_t src_slot,
                       size_t bytes, rt_err *err);
    /* Before GPU g's copies of a chunk overwrite slots that were in use: they wait for GPU g's
     * products of chunk `after` and the other GPUs' copies of chunk `after` (the last that may
     * have read an evicted slot, pinned at most until then). */
    int (*loads_begin)(void *eng, int g, int64_t after, rt_err *err);
    /* Records that this process's copies of chunk s (GEMM_MARK_OWN: phase 1; GEMM_MARK_LOADS: all)
     * are issued; wait_peer makes what follows wait for node rank `peer`'s record of chunk s (the
     * caller has learned, by a message, that the peer made it): before pulling from it (OWN), or,
     * on every GPU's copies, before overwriting what it pulled (LOADS). */
    int (*mark)(void *eng, int64_t s, int what, rt_err *err);
    int (*wait_peer)(void *eng, int peer, int64_t s, int what, rt_err *err);
    /* C (slot cslot) (+)= A (aslot) B (bslot) on GPU g, after both tiles are in; the first
     * product of a C slot (accumulate 0) also waits for its previous tile's write-back. */
    int (*gemm)(void *eng, int g, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m, int64_t n,
                int64_t k, int accumulate, rt_err *err);
    int (*compute_end)(void *eng, int64_t s, rt_err *err);
    /* C slot to host memory after its products so far. */
    int (*store_c)(void *eng, int g, int64_t cslot, void *dst, size_t bytes, rt_err *err);
    /* Returns once the copies of chunk s have read their host sources (a receive buffer may be
     * reused). */
    int (*loads_done)(void *eng, int64_t s, rt_err *err);
    int (*finish)(void *eng, rt_err *err); /* everything issued is complete */
} gemm_engine_ops;

typedef struct gemm_tiled gemm_tiled;

/* Builds the rank's tile stores (A and B filled in parallel, C poisoned, then pinned) and the
 * caches. comm: the harness's rt_comm. Not collective. */
int gemm_tiled_create(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                      int64_t fail_rank, const gemm_engine_ops *ops, void *eng, gemm_tiled **out,
                      rt_err *err);
/* Collective over the world: agrees on every rank's outcome of the setup so far (rc: 0,
 * RT_INFEASIBLE or -1), then, with ipc, shares the engines of each node (ops->share) and agrees
 * again. Every rank returns the same outcome. s may be NULL on a rank whose setup failed. */
int gemm_tiled_connect(gemm_tiled *s, void *comm, int rc, const char *what, rt_err *err);
/* Slots per GPU the engine must provide. */
int64_t gemm_tiled_slots(const gemm_plan *pl);
int gemm_tiled_run(gemm_tiled *s, rt_err *err);
/* The rank's canonical samples of C (gemm_family.h); collective. */
int gemm_tiled_output(gemm_tiled *s, double *out, rt_err *err);
/* Counters of the last execution against the model, summed over ranks; collective. */
int gemm_tiled_metrics(gemm_tiled *s, rt_metrics *m, rt_err *err);
void gemm_tiled_free(gemm_tiled *s);

/* The roofline operands of a point: this rank's flops; per tier, the bytes and messages it sends
 * over MPI; and the bytes its GPUs move over their links by the plan's exact model: host to
 * device and back (h2d_bytes, d2h_bytes) and from other GPUs (peer_bytes; links = 0 leaves them
 * out: the GPUs share one device, so those copies stay in its memory). */
int gemm_tiled_traffic(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                       int links, rt_traffic *tr, rt_err *err);

/* The rank's C samples from a tile store of the 2D block-cyclic layout (C tile (i, j) of process
 * (i mod p, j mod q) at local index (i / p) * cols_local + j / q, each tile t x t slots with the
 * leading dimension of its rows); collective (sums the samples over the world). Shared with the
 * SUMMA baseline. */
int gemm_samples_gather(const gemm_inputs *in, int64_t t, int p, int q, int rank, const void *c,
                        int64_t cols_local, void *comm, double *out, rt_err *err);

#endif
