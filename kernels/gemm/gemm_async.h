/* gemm_async: the tiled GEMM's engine (gemm_tiled.h) on asynchronous devices, in plain C: which
 * stream each copy and product goes to and which events order them, over a device that only
 * records events, waits for them, copies and multiplies (gemm_async_dev). The GPU's device is CUDA
 * (cuda/gemm_cuda_engine.h: streams, events, cuBLAS, IPC); a test's device checks the ordering
 * with vector clocks (tests/gemm/test_ordering.c), so the GPU's schedule is proven race-free on
 * any machine.
 *
 * Per GPU: streams h2d (from host memory), p2p (from the process's other GPUs and node peers), d2h
 * (C back to the host), join (marks), and GEMM_ASYNC_COMPUTE compute streams. Ordering:
 *   - a load records its slot's READY event; a product waits for the READY events of its two
 *     slots (once per compute stream and load), so it starts as soon as its tiles are in;
 *   - a peer copy waits for its source slot's READY event;
 *   - loads_begin(g, s - l - 1): GPU g's h2d and p2p streams wait for g's products of that chunk
 *     (COMPUTED, every compute stream) and the other GPUs' copies of it (LOADED);
 *   - mark(s): each GPU's join stream joins its h2d and p2p streams and records OWN or LOADED of
 *     the chunk (interprocess on the GPU: node peers wait for them, after a message);
 *   - wait_peer(peer, s, OWN): the p2p streams wait for the peer's OWN (before pulling from it);
 *     wait_peer(peer, s, LOADED): the h2d and p2p streams wait for the peer's LOADED (before
 *     overwriting what it pulled);
 *   - C slot c's products run on compute stream c mod GEMM_ASYNC_COMPUTE; its write-back records
 *     CDONE there, waits for it on d2h and records CFREE after the copy; the slot's next first
 *     product waits for CFREE;
 *   - loads_done(s): the host waits for every GPU's LOADED of chunk s. */
#ifndef GEMM_ASYNC_H
#define GEMM_ASYNC_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "gemm_tiled.h"
#include "rt_error.h"

#define GEMM_ASYNC_COMPUTE 4 /* compute streams per GPU: tile products of different C tiles */

enum {
    GEMM_ST_H2D = 0,
    GEMM_ST_P2P = 1,
    GEMM_ST_D2H = 2,
    GEMM_ST_JOIN = 3,
    GEMM_ST_COMPUTE = 4, /* .. GEMM_ST_COMPUTE + GEMM_ASYNC_COMPUTE - 1 */
    GEMM_ST_N = GEMM_ST_COMPUTE + GEMM_ASYNC_COMPUTE
};

typedef enum gemm_ev_kind {
    GEMM_EV_READY,    /* index: a slot; its last load */
    GEMM_EV_CDONE,    /* index: a C slot; its last product before its write-back */
    GEMM_EV_CFREE,    /* index: a C slot; its write-back done */
    GEMM_EV_COMPUTED, /* index: ring position x GEMM_ASYNC_COMPUTE + compute stream */
    GEMM_EV_OWN,      /* index: ring position; a process's phase-1 copies (interprocess) */
    GEMM_EV_LOADED,   /* index: ring position; all its copies of a chunk (interprocess) */
    GEMM_EV_H2D_MARK, /* scratch: the h2d stream's tail, for the join */
    GEMM_EV_P2P_MARK  /* scratch: the p2p stream's tail */
} gemm_ev_kind;

/* An event: GPU g's of this process (peer < 0) or of node rank `peer` (OWN and LOADED only). */
typedef struct gemm_ev {
    int peer, g;
    gemm_ev_kind kind;
    int64_t index;
} gemm_ev;

/* Chunks whose events live at once (ring positions): 2 l + 3 covers the lookahead, the host's
 * receive ring and a node peer that is l + 1 chunks behind (gemm_tiled.c). */
static inline int gemm_async_ring(int lookahead)
{
    return 2 * lookahead + 3;
}

/* The device: every call is asynchronous on stream `st` of GPU g (but the host ones). */
typedef struct gemm_async_dev {
    void *(*host_alloc)(void *dev, size_t bytes);
    int (*host_pin)(void *dev, void *p, size_t bytes, rt_err *err);
    void (*host_free)(void *dev, void *p);
    int (*share)(void *dev, MPI_Comm node, rt_err *err); /* gemm_engine_ops.share */
    int (*record)(void *dev, int g, int st, gemm_ev ev, rt_err *err);
    int (*wait)(void *dev, int g, int st, gemm_ev ev, rt_err *err);
    int (*host_wait)(void *dev, gemm_ev ev, rt_err *err);
    int (*h2d)(void *dev, int g, int st, int64_t slot, const void *src, size_t bytes, rt_err *err);
    int (*d2d)(void *dev, int g, int st, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
               rt_err *err);
    int (*pull)(void *dev, int g, int st, int64_t slot, int peer, int src_g, int64_t src_slot,
                size_t bytes, rt_err *err);
    int (*d2h)(void *dev, int g, int st, void *dst, int64_t slot, size_t bytes, rt_err *err);
    int (*gemm)(void *dev, int g, int st, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m,
                int64_t n, int64_t k, int accumulate, rt_err *err);
    int (*finish)(void *dev, rt_err *err); /* every stream drained */
} gemm_async_dev;

typedef struct gemm_async gemm_async;

/* The engine over a device: G GPUs of `slots` slots, the plan's lookahead (the event rings). */
int gemm_async_create(const gemm_async_dev *dev, void *ctx, int gpus, int64_t slots, int lookahead,
                      gemm_async **out, rt_err *err);
void gemm_async_free(gemm_async *a);
/* The gemm_engine_ops whose `eng` is a gemm_async. */
const gemm_engine_ops *gemm_async_ops(void);

#endif
