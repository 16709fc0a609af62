/* dspmm_part: the process grid and the partition of a distributed SpMM C = A * B.
 *
 * P ranks form a P_data x P_batch grid (Hidayetoglu, thesis proposal, sections 3.1-3.2):
 *   - batch parallelism splits the K columns of B and C among P_batch groups, which work
 *     independently (A is duplicated among them): group b owns columns [k_start[b], k_start[b+1]),
 *     the first K mod P_batch groups one column more (K = 1024 on 3 groups: 342, 341, 341);
 *   - data parallelism splits A among the P_data ranks of a group: data rank d owns the rows
 *     [row_start[d], row_start[d+1]) of C (the rows it receives and reduces) and the rows
 *     [col_start[d], col_start[d+1]) of B, i.e. the same block of A's columns (what it multiplies:
 *     sender-multiplies). Both splits are contiguous in the matrix's ordering (natural, rcm,
 *     random, hilbert: the ordering is what makes blocks local) and balanced by nonzeros.
 *
 * Placement is topology-aware: world ranks are sorted by (node, socket, rank) and grid position i
 * holds the i-th of them, with b = i / P_data and d = i % P_data, so the data ranks of one group
 * sit on as few nodes as possible (inside one node when P_data divides the ranks per node) and
 * the expensive data-parallel traffic stays on the fast links.
 *
 * The topology is plain data (node and socket of every world rank), built either from the job's
 * rt_comm or for a virtual job with the same emulation rules as rt_comm (node = rank /
 * ranks_per_node, socket = local rank / ranks_per_socket), so the model-only mode plans exactly
 * what a real run of that shape does. */
#ifndef DSPMM_PART_H
#define DSPMM_PART_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_registry.h"

typedef struct dspmm_topo {
    int nranks;
    int *node_of;   /* nranks entries: node id of each world rank */
    int *socket_of; /* nranks entries: socket id within its node */
} dspmm_topo;

/* A virtual job of nranks ranks: ranks_per_node 0 puts every rank on one node; ranks_per_socket
 * 0 makes every node one socket. ranks_per_node must divide nranks (as rt_comm requires). */
int dspmm_topo_virtual(int nranks, int ranks_per_node, int ranks_per_socket, dspmm_topo *t,
                       rt_err *err);
/* The topology the job's communicator sees (emulated or real). */
int dspmm_topo_from_comm(const rt_comm *comm, dspmm_topo *t, rt_err *err);
void dspmm_topo_free(dspmm_topo *t);
/* RT_TIER_SOCKET (same socket, or a == b), RT_TIER_NODE or RT_TIER_GLOBAL. */
rt_net_tier dspmm_topo_tier(const dspmm_topo *t, int a, int b);

typedef struct dspmm_grid {
    int nranks, p_batch, p_data;
    int64_t rows, cols, k;
    int64_t *row_start; /* p_data + 1: rows of A and C per data rank */
    int64_t *col_start; /* p_data + 1: columns of A (rows of B) per data rank */
    int64_t *k_start;   /* p_batch + 1: columns of B and C per batch group */
    int *place;         /* nranks: world rank at grid position i */
    int *pos_of;        /* nranks: grid position of world rank r */
} dspmm_grid;

/* Builds the grid of a job for matrix a and K columns. Returns 0, RT_INFEASIBLE with why filled
 * (p_batch does not divide nranks, or exceeds K), or -1 with err filled. */
int dspmm_grid_build(const rt_csr *a, int64_t k, int p_batch, const dspmm_topo *topo, dspmm_grid *g,
                     char *why, size_t whylen, rt_err *err);
void dspmm_grid_free(dspmm_grid *g);
/* Batch group and data index of world rank r. */
int dspmm_grid_batch_of(const dspmm_grid *g, int world_rank);
int dspmm_grid_data_of(const dspmm_grid *g, int world_rank);
/* World rank of (batch group b, data index d). */
int dspmm_grid_rank_at(const dspmm_grid *g, int b, int d);
/* The block of a contiguous split that holds item i: the last p with start[p] <= i (so empty
 * blocks never own anything). With g->row_start it is the data rank owning row i of C; with
 * g->col_start, the one multiplying column i of A. */
int dspmm_block_of(const int64_t *start, int parts, int64_t i);

/* Splits n items with prefix weights prefix[0..n] (prefix[0] = 0, non-decreasing) into `parts`
 * contiguous blocks of about equal weight: block p is [start[p], start[p+1]). Falls back to an
 * even split of items when the total weight is 0. The runner splits rows among ranks the same
 * way, and the dspmm family uses it for the canonical output blocks. */
void dspmm_split_weighted(const int64_t *prefix, int64_t n, int parts, int64_t *start);

/* Rows of C that rank `rank` of `nranks` reports to the verification gate: a row block balanced
 * by A's nonzeros, independent of any kernel parameter (the family reference covers exactly it). */
void dspmm_canonical_rows(const rt_csr *a, int rank, int nranks, int64_t *r0, int64_t *r1);

#endif
