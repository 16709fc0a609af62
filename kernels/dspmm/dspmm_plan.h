/* dspmm_plan: the communication plan of a distributed sender-multiplies SpMM — who sends which
 * partial rows of C to whom, at each level of the reduction — kept apart from any transport
 * (the CPU MPI kernel uses it now; a GPU transport with CUDA IPC and staged MPI can reuse it).
 *
 * Sender-multiplies (Hidayetoglu, thesis proposal, section 3.3.2): data rank p multiplies its
 * block of A's columns with its rows of B. The product has a partial row for every row i of C
 * that meets p's columns; row i belongs to the data rank q that owns it, so p holds one partial
 * buffer per destination q: R0(p, q) = { rows i of q : A(i, j) != 0 for some column j of p }.
 * The partial buffers travel to their owners in one to three hops, reduced (summed) wherever
 * buffers for the same destination meet:
 *
 *   direct       p -> q                                   (one sparse all-to-all, figure 9b)
 *   node         p -> g(p, q) -> q                        (figure 9c)
 *   socket+node  p -> s(p, q) -> g(p, q) -> q             (section 3.3.4, figure 10b-d)
 *
 * g(p, q), the node proxy, is the rank of p's node that stands for q there: the one whose
 * position among the group's ranks of its node equals q's position in q's node ("each GPU reduces
 * the partial data going to the corresponding GPU of the receiving node"); when q is on p's node
 * it is q itself. s(p, q), the socket proxy, is the rank of p's socket whose position in the socket
 * equals g's position in g's socket; when g is on p's socket it is g itself. So the first hop of
 * socket+node stays in a socket, the second crosses sockets of one node, the third crosses nodes,
 * and a hop from a rank to itself is a local reduction, not a message. When nodes or sockets hold
 * different numbers of a group's ranks, positions wrap around (modulo), so every route is defined.
 *
 * Level k (k = 0 .. hops-1) holds the buffers before hop k: holder h, destination q, rows
 * R_k(h, q) (sorted), and the next holder. At every hop a holder sends ONE message to each
 * distinct next holder other than itself, the concatenation of its buffers for that holder: the
 * buffers are ordered by (holder, next, destination) so that message is contiguous in the
 * holder's level buffer (no packing). The receiver adds each row into its level-(k+1) buffer, or
 * into C after the last hop, at a position the plan precomputes (the "reduction data structures
 * constructed in the preprocessing stage"). Only values travel: both sides know the row lists.
 *
 * A plan covers one batch group (its P_data ranks); groups differ only in their ranks' topology
 * and their columns of B and C. */
#ifndef DSPMM_PLAN_H
#define DSPMM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "dspmm_part.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"

typedef enum dspmm_comm_kind {
    DSPMM_COMM_DIRECT = 0,
    DSPMM_COMM_NODE = 1,
    DSPMM_COMM_SOCKET_NODE = 2
} dspmm_comm_kind;

/* "direct", "node", "socket+node"; -1 when unknown. */
int dspmm_comm_parse(const char *name);
const char *dspmm_comm_name(dspmm_comm_kind kind);

#define DSPMM_MAX_HOPS 3

typedef struct dspmm_buf {
    int holder;  /* data index holding the partial rows */
    int dest;    /* data index that owns the rows in C */
    int next;    /* data index they go to at this level's hop (== holder: reduced in place) */
    int64_t off; /* first row in the level's rows[] */
    int64_t n;   /* rows (>= 1) */
} dspmm_buf;

typedef struct dspmm_level {
    int64_t nbuf;
    dspmm_buf *buf;      /* sorted by (holder, next, dest) */
    int64_t *holder_buf; /* p_data + 1: holder h's buffers are [holder_buf[h], holder_buf[h+1]) */
    int64_t *holder_row; /* p_data + 1: its rows are [holder_row[h], holder_row[h+1]) of rows[] */
    int64_t nrows;
    int32_t *rows; /* global row indices of C, ascending within each buffer */
} dspmm_level;

typedef struct dspmm_plan {
    dspmm_comm_kind kind;
    int hops; /* 1 (direct), 2 (node), 3 (socket+node) */
    int p_data;
    int batch;          /* the batch group this plan is for */
    int64_t k_cols;     /* columns of B and C of the group */
    int *member;        /* p_data: world rank of each data index */
    int64_t *row_start; /* p_data + 1: C rows per data index (copy of the grid's) */
    dspmm_level level[DSPMM_MAX_HOPS];
    rt_net_tier hop_tier[DSPMM_MAX_HOPS]; /* the widest tier each hop may cross: names its phase */
} dspmm_plan;

/* Builds the plan of batch group `batch` of grid g for matrix a. */
int dspmm_plan_build(const rt_csr *a, const dspmm_grid *g, int batch, const dspmm_topo *topo,
                     dspmm_comm_kind kind, dspmm_plan *plan, rt_err *err);
void dspmm_plan_free(dspmm_plan *plan);

/* The phase a hop is reported under: "socket", "node" or "global". */
const char *dspmm_hop_phase(const dspmm_plan *plan, int hop);

/* One message of one hop: src sends dst its buffers [first_buf, end_buf) of the level, `rows`
 * partial rows starting at row `row_off` of its level buffer (times the chunk's columns). */
typedef struct dspmm_msg {
    int src, dst; /* data indices, src != dst */
    int64_t rows;
    int64_t row_off;
    int64_t first_buf, end_buf;
} dspmm_msg;

/* Every message of a hop, ordered by (src, dst). *out is malloc'ed (NULL when there are none). */
int dspmm_plan_messages(const dspmm_plan *plan, int hop, dspmm_msg **out, int64_t *n, rt_err *err);

/* Chunks (stages) of the minibatch pipeline. stages > 0 asks for that many stages directly (at
 * most k_cols of them, one column each at the least); else ceil(k_cols / minibatch), or 1 when
 * minibatch is 0 (no pipelining) or at least k_cols. */
int64_t dspmm_chunks(int64_t k_cols, int64_t minibatch, int64_t stages);

/* The columns of chunk ch of `chunks` over k_cols: near-equal widths (the first k_cols % chunks
 * chunks one column wider), so a stage count that does not divide K still covers every column
 * once. The widest chunk has dspmm_chunk_max(k_cols, chunks) columns. */
void dspmm_chunk_cols(int64_t k_cols, int64_t chunks, int64_t ch, int64_t *c0, int64_t *w);
int64_t dspmm_chunk_max(int64_t k_cols, int64_t chunks);

typedef struct dspmm_tally {
    int64_t bytes[RT_TIER_COUNT];
    int64_t msgs[RT_TIER_COUNT];
} dspmm_tally;

/* Adds what every rank of the plan's group sends in one execution, by the tier between sender
 * and receiver: per_rank[world rank] (nranks entries, accumulated), and when pair_bytes is not
 * NULL, pair_bytes[src * nranks + dst] (world ranks). hop = -1 counts every hop, else only that
 * one. Each message goes once per chunk: rows x chunk columns x elem_bytes bytes. */
int dspmm_plan_tally(const dspmm_plan *plan, const dspmm_topo *topo, int hop, size_t elem_bytes,
                     int64_t minibatch, int64_t stages, dspmm_tally *per_rank, int64_t *pair_bytes,
                     rt_err *err);

/* ---- One rank's part of a plan: what a transport executes -------------------------------- */

typedef struct dspmm_xfer {
    int peer;        /* world rank */
    int64_t row_off; /* send: first row in my level buffer */
    int64_t rows;
    int64_t *map; /* recv: rows entries, the row of my next-level buffer (or of my C) each
                     received row is added to */
} dspmm_xfer;

typedef struct dspmm_hop_role {
    int n_send, n_recv;
    dspmm_xfer *send;  /* ordered by peer data index */
    dspmm_xfer *recv;  /* ordered by peer data index (so reductions are in a fixed order) */
    int64_t recv_rows; /* sum of recv[].rows: the receive area */
    int64_t n_self;    /* rows that stay with me: self_src[i] of my level buffer is added to */
    int64_t *self_src; /* self_dst[i] of my next-level buffer (or of my C) */
    int64_t *self_dst;
} dspmm_hop_role;

typedef struct dspmm_role {
    int data; /* my data index */
    int hops;
    int64_t level_rows[DSPMM_MAX_HOPS]; /* rows of my buffer before each hop */
    const int32_t *level0_rows;         /* global C rows of my level-0 buffer, in buffer order
                                           (borrowed from the plan) */
    int64_t c_row0, c_rows;             /* the C rows I own: [c_row0, c_row0 + c_rows) */
    dspmm_hop_role hop[DSPMM_MAX_HOPS];
} dspmm_role;

int dspmm_role_build(const dspmm_plan *plan, int data, dspmm_role *role, rt_err *err);
void dspmm_role_free(dspmm_role *role);

#endif
