#include "dspmm_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int dspmm_comm_parse(const char *name)
{
    if (!name)
        return -1;
    if (strcmp(name, "direct") == 0)
        return DSPMM_COMM_DIRECT;
    if (strcmp(name, "node") == 0)
        return DSPMM_COMM_NODE;
    if (strcmp(name, "socket+node") == 0)
        return DSPMM_COMM_SOCKET_NODE;
    return -1;
}

const char *dspmm_comm_name(dspmm_comm_kind kind)
{
    switch (kind) {
    case DSPMM_COMM_DIRECT: return "direct";
    case DSPMM_COMM_NODE: return "node";
    case DSPMM_COMM_SOCKET_NODE: return "socket+node";
    }
    return "?";
}

const char *dspmm_hop_phase(const dspmm_plan *plan, int hop)
{
    static const char *const names[RT_TIER_COUNT] = {"socket", "node", "global"};
    return names[plan->hop_tier[hop]];
}

int64_t dspmm_chunks(int64_t k_cols, int64_t minibatch, int64_t stages)
{
    if (stages > 0)
        return k_cols <= 0 ? 1 : stages < k_cols ? stages : k_cols;
    if (minibatch <= 0 || minibatch >= k_cols || k_cols <= 0)
        return 1;
    return (k_cols + minibatch - 1) / minibatch;
}

void dspmm_chunk_cols(int64_t k_cols, int64_t chunks, int64_t ch, int64_t *c0, int64_t *w)
{
    const int64_t base = k_cols / chunks, extra = k_cols % chunks;
    *w = base + (ch < extra ? 1 : 0);
    *c0 = ch * base + (ch < extra ? ch : extra);
}

int64_t dspmm_chunk_max(int64_t k_cols, int64_t chunks)
{
    return k_cols / chunks + (k_cols % chunks != 0 ? 1 : 0);
}

/* ---- Routing ------------------------------------------------------------------------------ */

/* Where each data index sits among the group's ranks of its node and of its socket. Members are
 * in placement order (sorted by node, socket, rank), so each node's and each socket's members are
 * a contiguous range of data indices. */
typedef struct route_ctx {
    int hops;
    int *node_lo, *node_cnt; /* first data index and count of my node's members */
    int *sock_lo, *sock_cnt; /* same for my socket */
} route_ctx;

static void route_free(route_ctx *rc)
{
    free(rc->node_lo);
    free(rc->node_cnt);
    free(rc->sock_lo);
    free(rc->sock_cnt);
}

static int route_init(route_ctx *rc, const int *member, int p_data, const dspmm_topo *topo,
                      int hops, rt_err *err)
{
    memset(rc, 0, sizeof *rc);
    rc->hops = hops;
    rc->node_lo = malloc((size_t)p_data * sizeof(int));
    rc->node_cnt = malloc((size_t)p_data * sizeof(int));
    rc->sock_lo = malloc((size_t)p_data * sizeof(int));
    rc->sock_cnt = malloc((size_t)p_data * sizeof(int));
    if (!rc->node_lo || !rc->node_cnt || !rc->sock_lo || !rc->sock_cnt) {
        route_free(rc);
        return rt_err_set(err, "dspmm plan: out of memory for the routes of %d ranks", p_data);
    }
    for (int lo = 0; lo < p_data;) {
        const int node = topo->node_of[member[lo]];
        int hi = lo;
        while (hi < p_data && topo->node_of[member[hi]] == node)
            ++hi;
        for (int d = lo; d < hi; ++d) {
            rc->node_lo[d] = lo;
            rc->node_cnt[d] = hi - lo;
        }
        for (int slo = lo; slo < hi;) {
            const int sock = topo->socket_of[member[slo]];
            int shi = slo;
            while (shi < hi && topo->socket_of[member[shi]] == sock)
                ++shi;
            for (int d = slo; d < shi; ++d) {
                rc->sock_lo[d] = slo;
                rc->sock_cnt[d] = shi - slo;
            }
            slo = shi;
        }
        lo = hi;
    }
    return 0;
}

/* The rank of h's node that stands for q there (q itself when q is on h's node). */
static int proxy_node(const route_ctx *rc, int h, int q)
{
    return rc->node_lo[h] + (q - rc->node_lo[q]) % rc->node_cnt[h];
}

/* The rank of h's socket that feeds the node proxy g (g itself when g is on h's socket). */
static int proxy_socket(const route_ctx *rc, int h, int q)
{
    const int g = proxy_node(rc, h, q);
    return rc->sock_lo[h] + (g - rc->sock_lo[g]) % rc->sock_cnt[h];
}

/* Where holder h's partial rows for q go at hop k. */
static int route_next(const route_ctx *rc, int k, int h, int q)
{
    if (k == rc->hops - 1)
        return q;
    if (rc->hops == 2)
        return proxy_node(rc, h, q);
    return k == 0 ? proxy_socket(rc, h, q) : proxy_node(rc, h, q);
}

/* ---- Levels --------------------------------------------------------------------------------- */

typedef struct trip {
    int32_t holder, next, dest, row;
} trip;

static int trip_cmp(const void *x, const void *y)
{
    const trip *a = x, *b = y;
    if (a->holder != b->holder)
        return a->holder < b->holder ? -1 : 1;
    if (a->next != b->next)
        return a->next < b->next ? -1 : 1;
    if (a->dest != b->dest)
        return a->dest < b->dest ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

static void level_free(dspmm_level *l)
{
    free(l->buf);
    free(l->holder_buf);
    free(l->holder_row);
    free(l->rows);
    memset(l, 0, sizeof *l);
}

/* Sorted, duplicate-free triples -> a level (buffers grouped by holder and destination). */
static int level_from_trips(const trip *t, int64_t n, int p_data, dspmm_level *l, rt_err *err)
{
    memset(l, 0, sizeof *l);
    int64_t nbuf = 0;
    for (int64_t i = 0; i < n; ++i)
        if (i == 0 || t[i].holder != t[i - 1].holder || t[i].dest != t[i - 1].dest)
            ++nbuf;
    l->buf = malloc((size_t)(nbuf > 0 ? nbuf : 1) * sizeof *l->buf);
    l->holder_buf = calloc((size_t)p_data + 1, sizeof *l->holder_buf);
    l->holder_row = calloc((size_t)p_data + 1, sizeof *l->holder_row);
    l->rows = malloc((size_t)(n > 0 ? n : 1) * sizeof *l->rows);
    if (!l->buf || !l->holder_buf || !l->holder_row || !l->rows) {
        level_free(l);
        return rt_err_set(err, "dspmm plan: out of memory for %" PRId64 " partial rows", n);
    }
    l->nbuf = nbuf;
    l->nrows = n;
    int64_t b = -1;
    for (int64_t i = 0; i < n; ++i) {
        if (i == 0 || t[i].holder != t[i - 1].holder || t[i].dest != t[i - 1].dest) {
            ++b;
            l->buf[b] = (dspmm_buf){t[i].holder, t[i].dest, t[i].next, i, 0};
            l->holder_buf[t[i].holder + 1]++;
        }
        l->buf[b].n++;
        l->holder_row[t[i].holder + 1]++;
        l->rows[i] = t[i].row;
    }
    for (int h = 0; h < p_data; ++h) {
        l->holder_buf[h + 1] += l->holder_buf[h];
        l->holder_row[h + 1] += l->holder_row[h];
    }
    return 0;
}

void dspmm_plan_free(dspmm_plan *plan)
{
    if (!plan)
        return;
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k)
        level_free(&plan->level[k]);
    free(plan->member);
    free(plan->row_start);
    memset(plan, 0, sizeof *plan);
}

int dspmm_plan_build(const rt_csr *a, const dspmm_grid *g, int batch, const dspmm_topo *topo,
                     dspmm_comm_kind kind, dspmm_plan *plan, rt_err *err)
{
    memset(plan, 0, sizeof *plan);
    if (!a || !g || !topo || batch < 0 || batch >= g->p_batch)
        return rt_err_set(err,
                          "dspmm plan: no matrix, grid or topology, or batch group %d out "
                          "of range",
                          batch);
    if (a->rows != g->rows || a->cols != g->cols)
        return rt_err_set(err, "dspmm plan: the grid was built for another matrix");
    const int pd = g->p_data;
    plan->kind = kind;
    plan->hops = kind == DSPMM_COMM_DIRECT ? 1 : kind == DSPMM_COMM_NODE ? 2 : 3;
    plan->p_data = pd;
    plan->batch = batch;
    plan->k_cols = g->k_start[batch + 1] - g->k_start[batch];
    if (plan->hops == 1) {
        plan->hop_tier[0] = RT_TIER_GLOBAL;
    } else if (plan->hops == 2) {
        plan->hop_tier[0] = RT_TIER_NODE;
        plan->hop_tier[1] = RT_TIER_GLOBAL;
    } else {
        plan->hop_tier[0] = RT_TIER_SOCKET;
        plan->hop_tier[1] = RT_TIER_NODE;
        plan->hop_tier[2] = RT_TIER_GLOBAL;
    }
    plan->member = malloc((size_t)pd * sizeof *plan->member);
    plan->row_start = malloc((size_t)(pd + 1) * sizeof *plan->row_start);
    if (!plan->member || !plan->row_start) {
        dspmm_plan_free(plan);
        return rt_err_set(err, "dspmm plan: out of memory");
    }
    for (int d = 0; d < pd; ++d)
        plan->member[d] = dspmm_grid_rank_at(g, batch, d);
    memcpy(plan->row_start, g->row_start, (size_t)(pd + 1) * sizeof *plan->row_start);

    route_ctx rc;
    if (route_init(&rc, plan->member, pd, topo, plan->hops, err) != 0) {
        dspmm_plan_free(plan);
        return -1;
    }
    int32_t *col_owner = malloc((size_t)(a->cols > 0 ? a->cols : 1) * sizeof *col_owner);
    int64_t *seen = malloc((size_t)pd * sizeof *seen);
    trip *t = NULL;
    int rc_out = 0;
    if (!col_owner || !seen) {
        rc_out =
            rt_err_set(err, "dspmm plan: out of memory for %" PRId64 " column owners", a->cols);
        goto out;
    }
    for (int d = 0; d < pd; ++d)
        for (int64_t j = g->col_start[d]; j < g->col_start[d + 1]; ++j)
            col_owner[j] = d;
    /* Level 0: every (column block p, row i) pair with a nonzero. Counted first, then filled. */
    for (int d = 0; d < pd; ++d)
        seen[d] = -1;
    int64_t n = 0;
    for (int64_t i = 0; i < a->rows; ++i)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e) {
            const int p = col_owner[a->colidx[e]];
            if (seen[p] != i) {
                seen[p] = i;
                ++n;
            }
        }
    t = malloc((size_t)(n > 0 ? n : 1) * sizeof *t);
    if (!t) {
        rc_out = rt_err_set(err, "dspmm plan: out of memory for %" PRId64 " partial rows", n);
        goto out;
    }
    for (int d = 0; d < pd; ++d)
        seen[d] = -1;
    int64_t m = 0;
    int q = 0;
    for (int64_t i = 0; i < a->rows; ++i) {
        while (q < pd - 1 && g->row_start[q + 1] <= i)
            ++q;
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e) {
            const int p = col_owner[a->colidx[e]];
            if (seen[p] != i) {
                seen[p] = i;
                t[m++] = (trip){p, route_next(&rc, 0, p, q), q, (int32_t)i};
            }
        }
    }
    for (int k = 0; k < plan->hops; ++k) {
        qsort(t, (size_t)n, sizeof *t, trip_cmp);
        /* Buffers for one destination that meet at one holder are reduced: keep one row each. */
        int64_t w = 0;
        for (int64_t i = 0; i < n; ++i)
            if (w == 0 || trip_cmp(&t[i], &t[w - 1]) != 0)
                t[w++] = t[i];
        n = w;
        if (level_from_trips(t, n, pd, &plan->level[k], err) != 0) {
            rc_out = -1;
            goto out;
        }
        if (k + 1 < plan->hops)
            for (int64_t i = 0; i < n; ++i) {
                const int h = t[i].next;
                t[i].holder = h;
                t[i].next = route_next(&rc, k + 1, h, t[i].dest);
            }
    }
out:
    free(t);
    free(seen);
    free(col_owner);
    route_free(&rc);
    if (rc_out != 0)
        dspmm_plan_free(plan);
    return rc_out;
}

int dspmm_plan_messages(const dspmm_plan *plan, int hop, dspmm_msg **out, int64_t *n, rt_err *err)
{
    *out = NULL;
    *n = 0;
    if (hop < 0 || hop >= plan->hops)
        return rt_err_set(err, "dspmm plan: hop %d of a %d-hop plan", hop, plan->hops);
    const dspmm_level *l = &plan->level[hop];
    int64_t count = 0;
    for (int64_t b = 0; b < l->nbuf; ++b)
        if (l->buf[b].next != l->buf[b].holder &&
            (b == 0 || l->buf[b - 1].holder != l->buf[b].holder ||
             l->buf[b - 1].next != l->buf[b].next))
            ++count;
    if (count == 0)
        return 0;
    dspmm_msg *msg = malloc((size_t)count * sizeof *msg);
    if (!msg)
        return rt_err_set(err, "dspmm plan: out of memory for %" PRId64 " messages", count);
    int64_t c = -1;
    for (int64_t b = 0; b < l->nbuf; ++b) {
        const dspmm_buf *bf = &l->buf[b];
        if (bf->next == bf->holder)
            continue;
        if (c < 0 || msg[c].src != bf->holder || msg[c].dst != bf->next) {
            ++c;
            msg[c] =
                (dspmm_msg){bf->holder, bf->next, 0, bf->off - l->holder_row[bf->holder], b, b};
        }
        msg[c].rows += bf->n;
        msg[c].end_buf = b + 1;
    }
    *out = msg;
    *n = count;
    return 0;
}

int dspmm_plan_tally(const dspmm_plan *plan, const dspmm_topo *topo, int hop, size_t elem_bytes,
                     int64_t minibatch, int64_t stages, dspmm_tally *per_rank, int64_t *pair_bytes,
                     rt_err *err)
{
    const int64_t chunks = dspmm_chunks(plan->k_cols, minibatch, stages);
    for (int k = 0; k < plan->hops; ++k) {
        if (hop >= 0 && k != hop)
            continue;
        dspmm_msg *msg = NULL;
        int64_t n = 0;
        if (dspmm_plan_messages(plan, k, &msg, &n, err) != 0)
            return -1;
        for (int64_t i = 0; i < n; ++i) {
            const int src = plan->member[msg[i].src], dst = plan->member[msg[i].dst];
            const rt_net_tier tier = dspmm_topo_tier(topo, src, dst);
            /* Over all chunks a message carries its rows once per column of the group. */
            const int64_t bytes = msg[i].rows * plan->k_cols * (int64_t)elem_bytes;
            per_rank[src].bytes[tier] += bytes;
            per_rank[src].msgs[tier] += chunks;
            if (pair_bytes)
                pair_bytes[(int64_t)src * topo->nranks + dst] += bytes;
        }
        free(msg);
    }
    return 0;
}

/* ---- Roles ---------------------------------------------------------------------------------- */

void dspmm_role_free(dspmm_role *role)
{
    if (!role)
        return;
    for (int k = 0; k < DSPMM_MAX_HOPS; ++k) {
        dspmm_hop_role *h = &role->hop[k];
        for (int i = 0; h->recv && i < h->n_recv; ++i)
            free(h->recv[i].map);
        free(h->recv);
        free(h->send);
        free(h->self_src);
        free(h->self_dst);
    }
    memset(role, 0, sizeof *role);
}

/* Position of global row `row` for destination q in my level buffer `l` (dest_buf[q] is my buffer
 * for q there, or -1), or in my C after the last hop. -1 when the plan is inconsistent. */
static int64_t landing(const dspmm_plan *plan, int data, const dspmm_level *l,
                       const int64_t *dest_buf, int q, int32_t row)
{
    if (!l) /* after the last hop the row lands in C, which holds every row I own */
        return (q == data && row >= plan->row_start[data] && row < plan->row_start[data + 1])
                   ? row - plan->row_start[data]
                   : -1;
    const int64_t b = dest_buf[q];
    if (b < 0)
        return -1;
    const dspmm_buf *bf = &l->buf[b];
    int64_t lo = 0, hi = bf->n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (l->rows[bf->off + mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= bf->n || l->rows[bf->off + lo] != row)
        return -1;
    return bf->off + lo - l->holder_row[data];
}

int dspmm_role_build(const dspmm_plan *plan, int data, dspmm_role *role, rt_err *err)
{
    memset(role, 0, sizeof *role);
    if (data < 0 || data >= plan->p_data)
        return rt_err_set(err, "dspmm role: data index %d of %d", data, plan->p_data);
    role->data = data;
    role->hops = plan->hops;
    role->c_row0 = plan->row_start[data];
    role->c_rows = plan->row_start[data + 1] - plan->row_start[data];
    role->level0_rows = plan->level[0].rows + plan->level[0].holder_row[data];
    for (int k = 0; k < plan->hops; ++k)
        role->level_rows[k] = plan->level[k].holder_row[data + 1] - plan->level[k].holder_row[data];

    int64_t *dest_buf = malloc((size_t)plan->p_data * sizeof *dest_buf);
    if (!dest_buf)
        return rt_err_set(err, "dspmm role: out of memory");
    for (int k = 0; k < plan->hops; ++k) {
        const dspmm_level *l = &plan->level[k];
        const dspmm_level *nl = k + 1 < plan->hops ? &plan->level[k + 1] : NULL;
        dspmm_hop_role *hr = &role->hop[k];
        for (int q = 0; q < plan->p_data; ++q)
            dest_buf[q] = -1;
        if (nl)
            for (int64_t b = nl->holder_buf[data]; b < nl->holder_buf[data + 1]; ++b)
                dest_buf[nl->buf[b].dest] = b;
        dspmm_msg *msg = NULL;
        int64_t nmsg = 0;
        if (dspmm_plan_messages(plan, k, &msg, &nmsg, err) != 0)
            goto fail;
        for (int64_t i = 0; i < nmsg; ++i) {
            hr->n_send += msg[i].src == data;
            hr->n_recv += msg[i].dst == data;
        }
        int64_t nself = 0;
        for (int64_t b = l->holder_buf[data]; b < l->holder_buf[data + 1]; ++b)
            if (l->buf[b].next == data)
                nself += l->buf[b].n;
        hr->send = calloc((size_t)(hr->n_send > 0 ? hr->n_send : 1), sizeof *hr->send);
        hr->recv = calloc((size_t)(hr->n_recv > 0 ? hr->n_recv : 1), sizeof *hr->recv);
        hr->self_src = malloc((size_t)(nself > 0 ? nself : 1) * sizeof *hr->self_src);
        hr->self_dst = malloc((size_t)(nself > 0 ? nself : 1) * sizeof *hr->self_dst);
        if (!hr->send || !hr->recv || !hr->self_src || !hr->self_dst) {
            free(msg);
            rt_err_set(err, "dspmm role: out of memory");
            goto fail;
        }
        int ns = 0, nr = 0;
        for (int64_t i = 0; i < nmsg; ++i) {
            const dspmm_msg *mg = &msg[i];
            if (mg->src == data) {
                hr->send[ns++] = (dspmm_xfer){plan->member[mg->dst], mg->row_off, mg->rows, NULL};
            } else if (mg->dst == data) {
                dspmm_xfer *x = &hr->recv[nr++];
                x->peer = plan->member[mg->src];
                x->rows = mg->rows;
                x->map = malloc((size_t)mg->rows * sizeof *x->map);
                if (!x->map) {
                    free(msg);
                    rt_err_set(err, "dspmm role: out of memory for a receive map");
                    goto fail;
                }
                int64_t r = 0;
                for (int64_t b = mg->first_buf; b < mg->end_buf; ++b) {
                    const dspmm_buf *bf = &l->buf[b];
                    for (int64_t e = 0; e < bf->n; ++e) {
                        const int64_t pos =
                            landing(plan, data, nl, dest_buf, bf->dest, l->rows[bf->off + e]);
                        if (pos < 0) {
                            /* mg points into msg: name the sender before freeing it */
                            rt_err_set(err,
                                       "dspmm role: internal error: row %d from data rank "
                                       "%d has no place at hop %d",
                                       l->rows[bf->off + e], mg->src, k);
                            free(msg);
                            goto fail;
                        }
                        x->map[r++] = pos;
                    }
                }
                hr->recv_rows += mg->rows;
            }
        }
        free(msg);
        for (int64_t b = l->holder_buf[data]; b < l->holder_buf[data + 1]; ++b) {
            const dspmm_buf *bf = &l->buf[b];
            if (bf->next != data)
                continue;
            for (int64_t e = 0; e < bf->n; ++e) {
                const int64_t pos =
                    landing(plan, data, nl, dest_buf, bf->dest, l->rows[bf->off + e]);
                if (pos < 0) {
                    rt_err_set(err, "dspmm role: internal error: my row %d has no place at hop %d",
                               l->rows[bf->off + e], k);
                    goto fail;
                }
                hr->self_src[hr->n_self] = bf->off + e - l->holder_row[data];
                hr->self_dst[hr->n_self] = pos;
                hr->n_self++;
            }
        }
    }
    free(dest_buf);
    return 0;
fail:
    free(dest_buf);
    dspmm_role_free(role);
    return -1;
}
