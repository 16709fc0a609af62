#include "dspmm_part.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dspmm_topo_virtual(int nranks, int ranks_per_node, int ranks_per_socket, dspmm_topo *t,
                       rt_err *err)
{
    memset(t, 0, sizeof *t);
    if (nranks < 1)
        return rt_err_set(err, "dspmm topology: %d ranks (need at least 1)", nranks);
    if (ranks_per_node < 0 || ranks_per_socket < 0)
        return rt_err_set(err, "dspmm topology: negative ranks per node (%d) or socket (%d)",
                          ranks_per_node, ranks_per_socket);
    if (ranks_per_node > 0 && nranks % ranks_per_node != 0)
        return rt_err_set(err,
                          "dspmm topology: %d ranks per node does not divide %d ranks (every "
                          "node must be full, as in a real job)",
                          ranks_per_node, nranks);
    t->nranks = nranks;
    t->node_of = malloc((size_t)nranks * sizeof *t->node_of);
    t->socket_of = malloc((size_t)nranks * sizeof *t->socket_of);
    if (!t->node_of || !t->socket_of) {
        dspmm_topo_free(t);
        return rt_err_set(err, "dspmm topology: out of memory for %d ranks", nranks);
    }
    /* The same formulas as rt_comm's emulation, so a virtual job plans what a real one does. */
    const int rpn = (ranks_per_node > 0 && ranks_per_node < nranks) ? ranks_per_node : nranks;
    for (int r = 0; r < nranks; ++r) {
        t->node_of[r] = r / rpn;
        t->socket_of[r] = ranks_per_socket > 0 ? (r % rpn) / ranks_per_socket : 0;
    }
    return 0;
}

int dspmm_topo_from_comm(const rt_comm *comm, dspmm_topo *t, rt_err *err)
{
    memset(t, 0, sizeof *t);
    if (!comm)
        return rt_err_set(err, "dspmm topology: no communicator (the kernel needs the MPI layer)");
    const int n = rt_comm_world_size(comm);
    t->nranks = n;
    t->node_of = malloc((size_t)n * sizeof *t->node_of);
    t->socket_of = malloc((size_t)n * sizeof *t->socket_of);
    if (!t->node_of || !t->socket_of) {
        dspmm_topo_free(t);
        return rt_err_set(err, "dspmm topology: out of memory for %d ranks", n);
    }
    for (int r = 0; r < n; ++r) {
        t->node_of[r] = rt_comm_node_of(comm, r);
        t->socket_of[r] = rt_comm_socket_of(comm, r);
    }
    return 0;
}

void dspmm_topo_free(dspmm_topo *t)
{
    if (!t)
        return;
    free(t->node_of);
    free(t->socket_of);
    memset(t, 0, sizeof *t);
}

rt_net_tier dspmm_topo_tier(const dspmm_topo *t, int a, int b)
{
    if (t->node_of[a] != t->node_of[b])
        return RT_TIER_GLOBAL;
    if (t->socket_of[a] != t->socket_of[b])
        return RT_TIER_NODE;
    return RT_TIER_SOCKET;
}

void dspmm_split_weighted(const int64_t *prefix, int64_t n, int parts, int64_t *start)
{
    const int64_t total = prefix[n];
    start[0] = 0;
    start[parts] = n;
    for (int p = 1; p < parts; ++p) {
        if (total <= 0) {
            start[p] = n * p / parts;
            continue;
        }
        /* First index whose prefix weight reaches p / parts of the total (the runner's rule). */
        const double target = (double)total * p / parts;
        int64_t lo = 0, hi = n;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if ((double)prefix[mid] < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        start[p] = lo < start[p - 1] ? start[p - 1] : lo;
    }
}

void dspmm_canonical_rows(const rt_csr *a, int rank, int nranks, int64_t *r0, int64_t *r1)
{
    if (nranks <= 1) {
        *r0 = 0;
        *r1 = a->rows;
        return;
    }
    /* Only two boundaries are needed; a full split would allocate nranks + 1 entries. */
    int64_t b[2];
    for (int side = 0; side < 2; ++side) {
        const int p = rank + side;
        if (p == 0) {
            b[side] = 0;
        } else if (p == nranks) {
            b[side] = a->rows;
        } else if (a->nnz <= 0) {
            b[side] = a->rows * p / nranks;
        } else {
            const double target = (double)a->nnz * p / nranks;
            int64_t lo = 0, hi = a->rows;
            while (lo < hi) {
                const int64_t mid = lo + (hi - lo) / 2;
                if ((double)a->rowptr[mid] < target)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            b[side] = lo;
        }
    }
    *r0 = b[0];
    *r1 = b[1] < b[0] ? b[0] : b[1];
}

void dspmm_grid_free(dspmm_grid *g)
{
    if (!g)
        return;
    free(g->row_start);
    free(g->col_start);
    free(g->k_start);
    free(g->place);
    free(g->pos_of);
    memset(g, 0, sizeof *g);
}

/* Sort key of the topology-aware placement. */
typedef struct place_key {
    int node, socket, rank;
} place_key;

static int place_cmp(const void *x, const void *y)
{
    const place_key *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    if (a->socket != b->socket)
        return a->socket < b->socket ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

int dspmm_grid_build(const rt_csr *a, int64_t k, int p_batch, const dspmm_topo *topo, dspmm_grid *g,
                     char *why, size_t whylen, rt_err *err)
{
    memset(g, 0, sizeof *g);
    if (!a || !topo || topo->nranks < 1)
        return rt_err_set(err, "dspmm grid: no matrix or topology");
    const int n = topo->nranks;
    if (p_batch < 1 || n % p_batch != 0) {
        snprintf(why, whylen, "p_batch = %d does not divide the %d ranks of the job", p_batch, n);
        return RT_INFEASIBLE;
    }
    if ((int64_t)p_batch > k) {
        snprintf(why, whylen,
                 "p_batch = %d exceeds K = %" PRId64 ": a batch group would own no column", p_batch,
                 k);
        return RT_INFEASIBLE;
    }
    if (a->rows > INT32_MAX || a->cols > INT32_MAX)
        return rt_err_set(err,
                          "dspmm grid: a %" PRId64 " x %" PRId64 " matrix exceeds the 2^31 "
                          "rows the plan indexes",
                          a->rows, a->cols);
    g->nranks = n;
    g->p_batch = p_batch;
    g->p_data = n / p_batch;
    g->rows = a->rows;
    g->cols = a->cols;
    g->k = k;
    g->row_start = malloc((size_t)(g->p_data + 1) * sizeof *g->row_start);
    g->col_start = malloc((size_t)(g->p_data + 1) * sizeof *g->col_start);
    g->k_start = malloc((size_t)(p_batch + 1) * sizeof *g->k_start);
    g->place = malloc((size_t)n * sizeof *g->place);
    g->pos_of = malloc((size_t)n * sizeof *g->pos_of);
    int64_t *colsum = calloc((size_t)a->cols + 1, sizeof *colsum);
    place_key *keys = malloc((size_t)n * sizeof *keys);
    if (!g->row_start || !g->col_start || !g->k_start || !g->place || !g->pos_of || !colsum ||
        !keys) {
        free(colsum);
        free(keys);
        dspmm_grid_free(g);
        return rt_err_set(err, "dspmm grid: out of memory for %d ranks and %" PRId64 " columns", n,
                          a->cols);
    }
    dspmm_split_weighted(a->rowptr, a->rows, g->p_data, g->row_start);
    for (int64_t e = 0; e < a->nnz; ++e)
        colsum[a->colidx[e] + 1]++;
    for (int64_t j = 0; j < a->cols; ++j)
        colsum[j + 1] += colsum[j];
    dspmm_split_weighted(colsum, a->cols, g->p_data, g->col_start);
    free(colsum);
    for (int b = 0; b <= p_batch; ++b) /* the first K mod P_batch groups get one column more */
        g->k_start[b] = (k / p_batch) * b + (b < k % p_batch ? b : k % p_batch);
    for (int r = 0; r < n; ++r)
        keys[r] = (place_key){topo->node_of[r], topo->socket_of[r], r};
    qsort(keys, (size_t)n, sizeof *keys, place_cmp);
    for (int i = 0; i < n; ++i) {
        g->place[i] = keys[i].rank;
        g->pos_of[keys[i].rank] = i;
    }
    free(keys);
    return 0;
}

int dspmm_grid_batch_of(const dspmm_grid *g, int world_rank)
{
    return g->pos_of[world_rank] / g->p_data;
}

int dspmm_grid_data_of(const dspmm_grid *g, int world_rank)
{
    return g->pos_of[world_rank] % g->p_data;
}

int dspmm_grid_rank_at(const dspmm_grid *g, int b, int d)
{
    return g->place[b * g->p_data + d];
}

int dspmm_block_of(const int64_t *start, int parts, int64_t i)
{
    int lo = 0, hi = parts - 1;
    /* Last block whose start is <= i (empty blocks share a start; the last of them owns i). */
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (start[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}
