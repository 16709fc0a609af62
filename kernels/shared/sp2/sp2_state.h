/* sp2_state: the state of one 2D kernel between setup and teardown, shared by the files that
 * make up the kernels (setup, the algorithm loops, accumulation, output, metrics), and the C tiles
 * this rank owns. */
#ifndef SP2_STATE_H
#define SP2_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_registry.h"
#include "sp2_dist.h"
#include "sp2_engine.h"
#include "sp2_problem.h"
#include "sp2_layout.h"
#include "sp2_local.h"
#include "sp2_queue.h"
#include "sp2_schema.h"
#include "sp2_workgrid.h"

typedef struct sp2_item {
    int i, j, k;
    int stolen;
} sp2_item;

/* One buffer set of the fetch pipeline: the tiles of one product, local or being fetched. */
typedef struct sp2_slot {
    sp2_item it;
    int live;
    sp2_fetch fa, fb;
    const void *ablk, *bblk;
} sp2_slot;

/* Per-execution time breakdown of this rank (the paper's Table 2 columns). */
typedef struct sp2_times {
    double compute, comm, accum, imbalance, total;
    double staging; /* host<->device copies of tiles and partials (GPU engine) */
} sp2_times;

typedef struct sp2_state {
    const rt_kernel_desc *desc;
    const sp2_engine *eng; /* where the local multiplies run */
    void *es;              /* the engine's state */
    sp2_alg alg;
    int spgemm;
    const sp2_inputs *in;
    rt_comm *comm;
    sp2_layout L;
    sp2_opts opt;
    rt_precision prec;
    size_t eb; /* bytes per value */

    sp2_dmat A, B;
    int have_a, have_b;
    int64_t *a_nnz;    /* nonzeros of every A tile (MT x KT), from the directory */
    int *col_nonempty; /* per k: some A(i, k) has nonzeros */

    /* C: the tiles this rank owns. */
    int n_c;
    int *c_tiles;   /* tile ids i * NT + j, increasing */
    int *c_slot;    /* MT * NT -> index in c_tiles or -1 */
    int64_t *c_off; /* SpMM: element offset of each owned tile in c_data */
    void *c_data;
    int64_t c_elems;
    sp2_spacc *c_acc;  /* SpGEMM: partial products per owned tile */
    sp2_csrbuf *c_csr; /* SpGEMM: the finished tiles of the last execution */
    sp2_spa spa;
    sp2_csrbuf part;                /* SpGEMM partial product */
    void *part_dense;               /* SpMM partial product (largest C tile) */
    int64_t *c_rows_of, *c_cols_of; /* per owned C tile (for the engine) */
    sp2_operand *ops_a, *ops_b;     /* stationary-A SUMMA: the products of one partial C tile */
    int64_t max_c_rows, max_c_cols;

    /* RDMA variants */
    unsigned char *stage_a[2], *stage_b[2];
    size_t stage_a_bytes, stage_b_bytes, bc_a_bytes, bc_b_bytes, part_bytes;
    sp2_slot slots[2];
    sp2_queue *queue;
    sp2_workgrid *wg;
    sp2_item *items;
    int64_t n_items;
    int *cand; /* work stealing (random): candidate A tiles, own ones first */
    int64_t n_cand, n_own_cand;
    int *task_seen; /* work stealing: executions per task in this run */
    int *task_all;
    int64_t n_task_ids;

    /* SUMMA */
    MPI_Comm row_comm, col_comm;
    unsigned char *bc_a, *bc_b;
    const void **blk_a, **blk_b;

    /* Bookkeeping of the executions since setup. */
    sp2_times run, sum;
    int64_t runs;
    double run_flops;
    double *stage_flops; /* KT, last execution */
    int64_t tasks_total, tasks_exec, tasks_stolen;
    int64_t run_bytes[RT_TIER_COUNT];
    sp2_queue_stats qstats;
} sp2_state;

/* Iterator state of the item sources. */
typedef struct sp2_source {
    int64_t pos;  /* static list / candidates */
    int phase;    /* locality stealing: 0 own C, 1 own A, 2 own B, 3 done */
    int64_t a, b; /* nested positions */
} sp2_source;
/* C shares A's tile rows and B's tile columns. */
static inline int64_t sp2_c_rows(const sp2_state *s, int i)
{
    return s->A.row_bounds[i + 1] - s->A.row_bounds[i];
}

static inline int64_t sp2_c_cols(const sp2_state *s, int j)
{
    return s->B.col_bounds[j + 1] - s->B.col_bounds[j];
}

static inline void *sp2_c_tile_ptr(const sp2_state *s, int slot)
{
    return (unsigned char *)s->c_data + (size_t)s->c_off[slot] * s->eb;
}

/* Zeroes the owned C tiles (dense) or clears their accumulators (SpGEMM). */
void sp2_c_zero(sp2_state *s);

/* Seconds the queue's handler has spent accumulating so far (0 without a queue): queue work done
 * inside a call is accumulation, the rest of the call's time is communication. */
double sp2_handler_time(const sp2_state *s);

/* Adds an engine call's compute and staging time to the current execution. */
void sp2_add_etimes(sp2_state *s, const sp2_etimes *t);

#endif
