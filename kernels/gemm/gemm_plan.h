/* gemm_plan: the tiled distributed GEMM's plan (Herault, Robert, Bosilca, Dongarra: generic GEMM
 * on multi-GPU distributed platforms), in plain C with no transport and no device.
 *
 * C (M x N) = A (M x K) * B (K x N) in square t x t tiles (the last tile row or column may be
 * ragged): mt x kt tiles of A, kt x nt of B, mt x nt of C. Tiles are distributed 2D-cyclically over
 * a p x q process grid: process (u, v) = rank u * q + v owns the tiles (i, j) of each matrix with
 * i = u mod p and j = v mod q, and computes its own tiles of C. The process's C tiles are cut into
 * blocks of b x c tiles (local tile indices, the last block may be smaller), computed one after the
 * other, y (block column) outer and x (block row) inner; the k loop of a block is cut into chunks
 * of depth d. With G GPUs per process, GPU g owns the process's columns j with
 * j = v + q * g (mod q G), that is the local columns jl with jl mod G = g; c must be a multiple of
 * G so every GPU gets c / G columns of every full block.
 *
 * The tail split (`tail_split` s >= 1, 1: none): the last block row (its b_last <= b rows) is cut
 * into sub-blocks of ceil(b_last / s) rows, in every block column, each computed with its whole k
 * loop before the next. A block's C goes back to the host only after the block's last chunk, so
 * without a split the last block's C (all of C when it fits: one block) is written back after the
 * run's last product with nothing to overlap it; with the split only the last sub-block's is, the
 * others' going back while the next sub-block computes. Sub-block r of the last block row keeps
 * its C tiles in the slots of its rows within the full block (rows r ceil(b_last / s) ..), so its
 * write-back never delays the next sub-block's first products. The price: B tiles of a block
 * column are taken once per (sub-)block row, so where the B pool does not hold the GPU's block
 * column (case (c)) each sub-block reloads them; A tiles of different rows are disjoint (no extra
 * loads), and where the pools hold the block column (cases (a), (b)) the split moves nothing more.
 * The split applies to every block column so that every column sweeps A in the same order (the
 * LRU model below stays exact).
 *
 * Every process walks the same global sequence of chunks (y, x, z) over the largest block grid of
 * any process, so that a process with no tiles in a block still sends its tiles to the processes
 * that need them.
 *
 * Memory of one GPU, in tiles (the budget T): the b x c/G tiles of C of a block, an LRU pool of A
 * tiles and an LRU pool of B tiles. Tiles of the l chunks ahead are loaded (pinned) while a chunk
 * computes, so each pool holds at least (l + 1) chunks. How the rest of the budget is split
 * decides the paper's case of Eq. (1): (a) all A and B of the GPU stay; (b) the B tiles of one
 * block column stay (B loaded once), A cycles; (c) both cycle.
 *
 * Transport between processes (`ipc`): with 0 every tile a process needs from another goes over
 * MPI (host buffers, staged); with 1 a process pulls the tiles owned by a process of its own node
 * from that process's GPU (CUDA IPC; shared memory on the CPU) when the owner holds them for the
 * same chunk (it is active there), and only on a miss; tiles from other nodes, or from an owner
 * with nothing to compute in the chunk, still go over MPI. */
#ifndef GEMM_PLAN_H
#define GEMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/* What the plan is built from: sizes in tiles, the grid, and the requested blocking (0 = the
 * paper's rule). budget_tiles <= 0: unlimited (pools sized to what the GPU ever needs). */
typedef struct gemm_plan_req {
    int64_t mt, nt, kt;
    int p, q, G;
    int64_t b, c, d;
    int l;         /* lookahead; < 0: the paper's rule (1 with one block of C, else 2) */
    int64_t split; /* sub-blocks of the last block row (<= 1: none; above) */
    int64_t budget_tiles;
    int ipc; /* 1: tiles between processes of a node go GPU to GPU (above) */
    /* Sizes in elements and the tile size, for the model's element counts (ragged tiles exact);
     * t = 0: every tile counts one element (tile counts only). */
    int64_t m, n, k, t;
} gemm_plan_req;

typedef struct gemm_plan {
    int64_t mt, nt, kt;
    int p, q, G;
    int64_t b, c, d;
    int l;
    int64_t cg;             /* c / G: C columns per GPU in a full block */
    int64_t X, Y, Z;        /* global block rows (sub-blocks included), columns, chunks */
    int64_t split;          /* the requested tail split (1: none) */
    int64_t xf, bl;         /* full block rows before the last one; rows of the last one */
    int64_t bs, xs;         /* rows per sub-block of the last block row, and sub-blocks */
    int64_t budget_tiles;   /* <= 0: unlimited */
    int64_t pool_a, pool_b; /* LRU pool capacities per GPU, tiles */
    char mem_case;          /* 'a', 'b' or 'c' (Eq. (1)) */
    int ipc;                /* as in gemm_plan_req */
    int64_t m, n, k, t;     /* as in gemm_plan_req */
} gemm_plan;

/* #{i in [0, n) : i mod m == r}. */
int64_t gemm_count_mod(int64_t n, int64_t m, int64_t r);

/* Builds the plan. Returns 0, RT_INFEASIBLE (1) with err naming the constraint that fails (a
 * budget too small for the smallest block, c not a multiple of G, ...) or -1 on bad input.
 * The paper's rule (b = c = 0, d = 0, l < 0): the largest square block (a multiple of G) whose C
 * tiles per GPU fit in 3/4 of the budget (all of C when it does), lookahead 1 with one block
 * else 2, and the largest divisor d of kt whose chunks fit beside it with at least
 * min(kt, GEMM_MIN_CHUNKS) chunks per block (so loads pipeline with products even when
 * everything fits); a smaller block when no depth fits. */
#define GEMM_MIN_CHUNKS 8
int gemm_plan_make(const gemm_plan_req *req, gemm_plan *plan, rt_err *err);

/* Block row x of the global grid: its first local row, its rows (those of the process with the
 * most), and the first C slot row its tiles use (0 but for a sub-block of the last block row). */
int64_t gemm_plan_block_row0(const gemm_plan *pl, int64_t x);
int64_t gemm_plan_block_span(const gemm_plan *pl, int64_t x);
int64_t gemm_plan_block_slot0(const gemm_plan *pl, int64_t x);
/* Local tile rows of process row u, local tile columns of process column v. */
int64_t gemm_plan_rows(const gemm_plan *pl, int u);
int64_t gemm_plan_cols(const gemm_plan *pl, int v);
/* Local rows of process row u in block row x; local columns of process column v in block column
 * y; of those, the ones of GPU g. Zero outside the process's blocks. */
int64_t gemm_plan_block_rows(const gemm_plan *pl, int u, int64_t x);
int64_t gemm_plan_block_cols(const gemm_plan *pl, int v, int64_t y);
int64_t gemm_plan_block_cols_gpu(const gemm_plan *pl, int v, int64_t y, int g);
/* First k and depth of chunk z. */
int64_t gemm_plan_chunk_k0(const gemm_plan *pl, int64_t z);
int64_t gemm_plan_chunk_depth(const gemm_plan *pl, int64_t z);
/* Chunks in the global sequence (X * Y * Z) and the (y, x, z) of chunk s. */
int64_t gemm_plan_chunks(const gemm_plan *pl);
void gemm_plan_chunk_at(const gemm_plan *pl, int64_t s, int64_t *y, int64_t *x, int64_t *z);

/* Tile counts of one GPU for one execution, by the plan (exact, for any divisibility). */
typedef struct gemm_gpu_counts {
    double a_loads, b_loads; /* tiles copied into the GPU (from the host or a peer) */
    double c_writes;         /* C tiles written back to the host */
    double c_tail;           /* of those, the tiles of the GPU's last (sub-)block: the tail */
    double total;            /* a_loads + b_loads + c_writes: Comm_GPU of Eq. (1) */
} gemm_gpu_counts;
void gemm_model_gpu(const gemm_plan *pl, int u, int v, int g, gemm_gpu_counts *out);

/* Tile counts of one process: transfers into its GPUs by source, and tiles over MPI. tier_of:
 * tier (0..2) of each world rank as seen from this process (p * q entries), or NULL (all tier 0:
 * one node). Every A tile a chunk misses on all the process's GPUs that compute in it comes in
 * once (from host memory, or from a node peer's GPU with ipc) and goes on to the others device to
 * device; B tiles belong to one GPU each. */
typedef struct gemm_proc_counts {
    double h2d_a, h2d_b, d2d_a, d2d_b, d2h_c; /* summed over the process's GPUs */
    double ipc_a, ipc_b;                      /* tiles pulled from a node peer's GPU (ipc) */
    double recv_a, recv_b;                    /* tiles received over MPI */
    double sent_a, sent_b;                    /* tiles sent over MPI */
    double sent_tier[3];                      /* tiles sent, by tier of the receiver */
    double sent_msgs;                         /* messages sent (one tile each) */
    /* Elements moved (times the element size: bytes), exact with ragged tiles: host to device,
     * device to host, device to device within the process, from node peers' GPUs. */
    double el_h2d, el_d2h, el_d2d, el_ipc;
    /* The tail: C tiles (and elements) of each GPU's last (sub)-block, summed over the GPUs; they
     * go back after the GPU's last chunk, with only that chunk's products to overlap them. */
    double d2h_tail, el_tail;
} gemm_proc_counts;
void gemm_model_process(const gemm_plan *pl, int u, int v, const int *tier_of,
                        gemm_proc_counts *out);

/* The paper's closed forms, evaluated with real division (exact when p | mt, q G | nt, b p | mt,
 * c q | nt and d | kt): Comm_GPU of Eq. (1) for the plan's case, and the tiles one process
 * receives, (b (1 - 1/q) + c (1 - 1/p)) kt X Y. With a tail split, B moves once per block row and
 * sub-block: X + xs - 1 times where the paper has X = mt / (b p) (case (c)'s B term of Eq. (1),
 * the c term of the volume); both forms count that. */
double gemm_eq1(const gemm_plan *pl);
double gemm_eq_recv(const gemm_plan *pl);

#endif
