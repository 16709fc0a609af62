/* gemm_tiled: the chunked, blocked GEMM of the plan (gemm_plan.h) over MPI, on G GPUs per process
 * through an engine (host memory + CBLAS for gemm.cpu.tiled, cuBLAS and streams for
 * gemm.cuda.tiled), so the schedule, the messages, the tile caches and the counters exist once.
 *
 * One execution walks the global chunk sequence. Messages: for chunk s, the owner of each needed
 * A tile not local to a process sends it (one message per tile, non-blocking) along its process
 * row, B tiles along process columns; receives are posted 2 l chunks ahead of the computation
 * into a ring of host buffers. Tiles: the tiles of chunk s + l are taken in each GPU's cache
 * (pinned) and the missing ones copied in (from a peer GPU that holds the tile for the chunks in
 * flight, else from host memory) while chunk s computes; after the last chunk of a block, its C
 * tiles are written back to host memory. The engine orders copies after the computations that
 * last read an evicted slot. Every step is counted: tiles by source per GPU, C tiles written (and
 * how often each), tiles and bytes sent per tier. */
#ifndef GEMM_TILED_H
#define GEMM_TILED_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_family.h"
#include "gemm_plan.h"
#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"

/* The engine: where tiles live and how they are multiplied. Slots are numbered per GPU:
 * [0, b c/G) the C block, then the A pool, then the B pool (the plan's sizes). Tiles are
 * column-major with the leading dimension equal to their rows. */
typedef struct gemm_engine_ops {
    void *(*host_alloc)(void *eng, size_t bytes); /* host memory the engine copies from/to */
    void (*host_free)(void *eng, void *p);
    int (*load_host)(void *eng, int g, int64_t slot, const void *src, size_t bytes, rt_err *err);
    int (*load_peer)(void *eng, int g, int64_t slot, int src_g, int64_t src_slot, size_t bytes,
                     rt_err *err);
    /* Before the loads of a chunk: loads must wait for the computations of chunk `after` (every
     * GPU; -1: none), the last that may have read the slots they overwrite. */
    int (*loads_begin)(void *eng, int64_t after, rt_err *err);
    int (*loads_end)(void *eng, int64_t s, rt_err *err);
    /* Computations of chunk s wait for its loads. */
    int (*compute_begin)(void *eng, int64_t s, rt_err *err);
    int (*gemm)(void *eng, int g, int64_t cslot, int64_t aslot, int64_t bslot, int64_t m, int64_t n,
                int64_t k, int accumulate, rt_err *err);
    int (*compute_end)(void *eng, int64_t s, rt_err *err);
    int (*store_c)(void *eng, int g, int64_t cslot, void *dst, size_t bytes, rt_err *err);
    /* Returns once the loads of chunk s have read their host sources. */
    int (*loads_done)(void *eng, int64_t s, rt_err *err);
    int (*finish)(void *eng, rt_err *err); /* everything issued is complete */
} gemm_engine_ops;

typedef struct gemm_tiled gemm_tiled;

/* Builds the rank's tile stores (A and B filled, C poisoned) and the caches. comm: the harness's
 * rt_comm. */
int gemm_tiled_create(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                      int64_t fail_rank, const gemm_engine_ops *ops, void *eng, gemm_tiled **out,
                      rt_err *err);
/* Slots per GPU the engine must provide. */
int64_t gemm_tiled_slots(const gemm_plan *pl);
int gemm_tiled_run(gemm_tiled *s, rt_err *err);
/* The rank's canonical samples of C (gemm_family.h); collective. */
int gemm_tiled_output(gemm_tiled *s, double *out, rt_err *err);
/* Counters of the last execution against the model, summed over ranks; collective. */
int gemm_tiled_metrics(gemm_tiled *s, rt_metrics *m, rt_err *err);
void gemm_tiled_free(gemm_tiled *s);

/* The roofline operands of a point: this rank's flops and, per tier, the bytes and messages it
 * sends (the plan's model). */
int gemm_tiled_traffic(const gemm_inputs *in, const gemm_plan *pl, int64_t t, void *comm, int rank,
                       rt_traffic *tr, rt_err *err);

/* The rank's C samples from a tile store of the 2D block-cyclic layout (C tile (i, j) of process
 * (i mod p, j mod q) at local index (i / p) * cols_local + j / q, each tile t x t slots with the
 * leading dimension of its rows); collective (sums the samples over the world). Shared with the
 * SUMMA baseline. */
int gemm_samples_gather(const gemm_inputs *in, int64_t t, int p, int q, int rank, const void *c,
                        int64_t cols_local, void *comm, double *out, rt_err *err);

#endif
