/* gemm_async: the tiled GEMM's engine (gemm_tiled.h) on asynchronous devices, in plain C: which
 * stream each copy and product goes to and which events order them, over a device that only
 * records events, waits for them, copies and multiplies (gemm_async_dev). The GPU's device is CUDA
 * (cuda/gemm_cuda_engine.h: streams, events, cuBLAS, IPC); a test's device checks the ordering
 * with vector clocks and every wait against the rules below (tests/gemm/test_ordering.c), so the
 * GPU's schedule is proven race-free and its waits valid on any machine.
 *
 * Per GPU: streams h2d (from host memory), p2p (from the process's other GPUs and node peers), d2h
 * (C back to the host), join (marks), and GEMM_ASYNC_COMPUTE compute streams. Ordering:
 *   - a load records its slot's READY event; a product waits for the READY events of its two
 *     slots (once per compute stream and load), so it starts as soon as its tiles are in;
 *   - a peer copy waits for its source slot's READY event;
 *   - loads_begin(g, s - l - 1): GPU g's h2d and p2p streams wait for g's products of that chunk
 *     (COMPUTED, every compute stream) and the other GPUs' copies of it (COPIED);
 *   - mark(s): each GPU's join stream joins its h2d and p2p streams and records COPIED and, for the
 *     node peers, OWN or LOADED of the chunk (interprocess);
 *   - wait_peer(peer, s, OWN): the p2p streams wait for the peer's OWN (before pulling from it);
 *     wait_peer(peer, s, LOADED): the h2d and p2p streams wait for the peer's LOADED (before
 *     overwriting what it pulled);
 *   - C slot c's products run on compute stream c mod GEMM_ASYNC_COMPUTE; its write-back records
 *     CDONE there, waits for it on d2h and records CFREE after the copy; the slot's next first
 *     product waits for CFREE (once one was recorded);
 *   - loads_done(s): the host waits for every GPU's COPIED of chunk s.
 *
 * The rules of events (CUDA's, where it crashes or silently orders nothing otherwise), which the
 * device may assume and the checker enforces:
 *   - an event exists from the device's creation to its end: per GPU, gemm_async_events(kind) of
 *     each kind (a node peer's OWN and LOADED once shared); nothing names one outside that;
 *   - a GPU records only its own events, on its own streams (cudaEventRecord needs the event's
 *     device);
 *   - a plain event may be waited for by a stream of any GPU of the process (cudaStreamWaitEvent
 *     allows an event of another device); an interprocess one (OWN, LOADED: gemm_ev_interprocess)
 *     only by the streams of the GPU it belongs to: its own GPU's (ev.g == g), or, for a node
 *     peer's, the GPU whose import it is (ev.via == g; the device opens every peer event once per
 *     device of its GPUs). cudaStreamWaitEvent on an interprocess event from a stream of another
 *     device crashed in libcuda (SIGSEGV at 0x68 on 4 x H100, CUDA 13.0);
 *   - a wait names the record it orders after: for the per-chunk kinds (COMPUTED, OWN, LOADED,
 *     COPIED) ev.seq is the chunk, and that chunk's record must be the event's last one when the
 *     wait is issued (an older record would order after another chunk; none at all, nothing:
 *     CUDA's wait on an event never recorded returns at once); the other kinds must have been
 *     recorded. */
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
    GEMM_EV_COPIED,   /* index: ring position; LOADED's plain twin, for this process's GPUs */
    GEMM_EV_H2D_MARK, /* scratch: the h2d stream's tail, for the join */
    GEMM_EV_P2P_MARK, /* scratch: the p2p stream's tail */
    GEMM_EV_KINDS
} gemm_ev_kind;

/* An event: GPU g's of this process (peer < 0) or of node rank `peer` (OWN and LOADED only), the
 * latter through its import on this process's GPU `via`. seq: the chunk of a per-chunk kind's
 * record the wait means (index is seq's ring position), -1 for the other kinds. */
typedef struct gemm_ev {
    int peer, g, via;
    gemm_ev_kind kind;
    int64_t index, seq;
} gemm_ev;

/* Events shared with the node's other processes (cudaEventInterprocess on the GPU). */
static inline int gemm_ev_interprocess(gemm_ev_kind kind)
{
    return kind == GEMM_EV_OWN || kind == GEMM_EV_LOADED;
}

/* Whether the kind's index is a ring position of a chunk (the wait names the chunk: seq). */
static inline int gemm_ev_per_chunk(gemm_ev_kind kind)
{
    return kind == GEMM_EV_COMPUTED || kind == GEMM_EV_OWN || kind == GEMM_EV_LOADED ||
           kind == GEMM_EV_COPIED;
}

/* Chunks whose events live at once (ring positions): 2 l + 3 covers the lookahead, the host's
 * receive ring and a node peer that is l + 1 chunks behind (gemm_tiled.c). */
static inline int gemm_async_ring(int lookahead)
{
    return 2 * lookahead + 3;
}

/* Events of a kind per GPU that the device creates (every valid index below it): READY per slot,
 * CDONE and CFREE per C slot, COMPUTED per ring position and compute stream, OWN, LOADED and
 * COPIED per ring position, one of each mark. */
static inline int64_t gemm_async_events(gemm_ev_kind kind, int64_t slots, int64_t c_slots,
                                        int lookahead)
{
    const int64_t ring = gemm_async_ring(lookahead);
    switch (kind) {
    case GEMM_EV_READY: return slots;
    case GEMM_EV_CDONE:
    case GEMM_EV_CFREE: return c_slots;
    case GEMM_EV_COMPUTED: return ring * GEMM_ASYNC_COMPUTE;
    case GEMM_EV_OWN:
    case GEMM_EV_LOADED:
    case GEMM_EV_COPIED: return ring;
    default: return 1;
    }
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
