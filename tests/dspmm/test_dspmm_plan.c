/* The distributed SpMM's partition, plan, roles and model, in one process (no MPI).
 *
 * The main check executes a plan by hand: every rank's roles of every batch group are run in
 * memory (local multiply, then each hop: what stays is reduced in place, each message is copied
 * from the sender's level buffer to the receiver's maps), and the C that comes out must equal a
 * dense product computed from the matrix directly. This runs over many virtual topologies
 * (ranks, ranks per node and per socket that do and do not divide the groups), all three
 * reduction schemes and several matrices, including empty rows, empty columns and an empty
 * matrix. Then: the tier of every hop's messages, the volume relations of the hierarchy,
 * a hand-worked 4 x 4 example, the alpha-beta times of the model, and bad inputs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dspmm_desc.h"
#include "dspmm_family.h"
#include "dspmm_model.h"
#include "dspmm_part.h"
#include "dspmm_plan.h"
#include "rt_test.h"

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return rng_state >> 33;
}

/* A random rows x cols matrix with about per_row entries per row; rows listed in `empty_rows`
 * (every empty_every-th row) and the last `empty_cols` columns stay empty. */
static void make_matrix(rt_csr *a, int64_t rows, int64_t cols, int per_row, int empty_every,
                        int64_t empty_cols, int banded)
{
    int64_t cap = rows * per_row + 1, n = 0;
    int64_t *ri = malloc((size_t)cap * sizeof *ri), *ci = malloc((size_t)cap * sizeof *ci);
    double *v = malloc((size_t)cap * sizeof *v);
    const int64_t usable = cols - empty_cols;
    for (int64_t i = 0; i < rows && usable > 0; ++i) {
        if (empty_every > 0 && i % empty_every == 0)
            continue;
        for (int e = 0; e < per_row; ++e) {
            int64_t j;
            if (banded) {
                j = i * usable / rows + (int64_t)(rnd() % 7) - 3;
                j = j < 0 ? 0 : j >= usable ? usable - 1 : j;
            } else {
                j = (int64_t)(rnd() % (uint64_t)usable);
            }
            ri[n] = i;
            ci[n] = j;
            v[n] = (double)(rnd() % 2000) / 1000.0 - 1.0 + 1e-3;
            ++n;
        }
    }
    rt_err err;
    if (rt_csr_from_coo(a, rows, cols, n, ri, ci, v, &err) != 0) {
        fprintf(stderr, "make_matrix: %s\n", err.msg);
        exit(2);
    }
    free(ri);
    free(ci);
    free(v);
}

/* Runs every rank's role of every group in memory; returns max |C - ref| / max |ref|. */
static double simulate(const rt_csr *a, int64_t k, const dspmm_topo *topo, int p_batch,
                       dspmm_comm_kind kind, int *failed)
{
    rt_err err;
    char why[256];
    dspmm_grid g;
    if (dspmm_grid_build(a, k, p_batch, topo, &g, why, sizeof why, &err) != 0) {
        fprintf(stderr, "grid: %s %s\n", why, err.msg);
        *failed = 1;
        return INFINITY;
    }
    double *b = malloc((size_t)(a->cols * k + 1) * sizeof *b);
    double *ref = calloc((size_t)(a->rows * k + 1), sizeof *ref);
    double *c = malloc((size_t)(a->rows * k + 1) * sizeof *c);
    for (int64_t i = 0; i < a->cols * k; ++i)
        b[i] = (double)(rnd() % 1000) / 500.0 - 1.0;
    for (int64_t i = 0; i < a->rows; ++i)
        for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e)
            for (int64_t j = 0; j < k; ++j)
                ref[i * k + j] += a->val[e] * b[a->colidx[e] * k + j];
    for (int64_t i = 0; i < a->rows * k; ++i)
        c[i] = NAN;
    for (int bt = 0; bt < g.p_batch; ++bt) {
        dspmm_plan plan;
        if (dspmm_plan_build(a, &g, bt, topo, kind, &plan, &err) != 0) {
            fprintf(stderr, "plan: %s\n", err.msg);
            *failed = 1;
            break;
        }
        const int pd = plan.p_data;
        const int64_t k0 = g.k_start[bt], kb = plan.k_cols;
        dspmm_role *roles = calloc((size_t)pd, sizeof *roles);
        double *lev[DSPMM_MAX_HOPS + 1][64];
        for (int d = 0; d < pd; ++d)
            if (dspmm_role_build(&plan, d, &roles[d], &err) != 0) {
                fprintf(stderr, "role: %s\n", err.msg);
                *failed = 1;
            }
        /* Level 0 by a local multiply of each data rank's columns; level `hops` is C. */
        for (int d = 0; d < pd; ++d) {
            const dspmm_role *r = &roles[d];
            for (int h = 0; h <= plan.hops; ++h) {
                const int64_t n = h < plan.hops ? r->level_rows[h] : r->c_rows;
                lev[h][d] = calloc((size_t)(n * kb + 1), sizeof(double));
            }
            for (int64_t x = 0; x < r->level_rows[0]; ++x) {
                const int64_t i = r->level0_rows[x];
                for (int64_t e = a->rowptr[i]; e < a->rowptr[i + 1]; ++e)
                    if (a->colidx[e] >= g.col_start[d] && a->colidx[e] < g.col_start[d + 1])
                        for (int64_t j = 0; j < kb; ++j)
                            lev[0][d][x * kb + j] += a->val[e] * b[a->colidx[e] * k + k0 + j];
            }
        }
        for (int h = 0; h < plan.hops; ++h)
            for (int d = 0; d < pd; ++d) {
                const dspmm_hop_role *hr = &roles[d].hop[h];
                for (int64_t x = 0; x < hr->n_self; ++x)
                    for (int64_t j = 0; j < kb; ++j)
                        lev[h + 1][d][hr->self_dst[x] * kb + j] +=
                            lev[h][d][hr->self_src[x] * kb + j];
                for (int m = 0; m < hr->n_recv; ++m) {
                    const dspmm_xfer *rx = &hr->recv[m];
                    const int src = g.pos_of[rx->peer] % pd;
                    /* The sender's matching send: same pair, same row count. */
                    const dspmm_hop_role *sr = &roles[src].hop[h];
                    const dspmm_xfer *sx = NULL;
                    for (int s = 0; s < sr->n_send; ++s)
                        if (sr->send[s].peer == plan.member[d])
                            sx = &sr->send[s];
                    if (!sx || sx->rows != rx->rows) {
                        fprintf(stderr, "hop %d: %d -> %d: no matching send\n", h, src, d);
                        *failed = 1;
                        continue;
                    }
                    for (int64_t x = 0; x < rx->rows; ++x)
                        for (int64_t j = 0; j < kb; ++j)
                            lev[h + 1][d][rx->map[x] * kb + j] +=
                                lev[h][src][(sx->row_off + x) * kb + j];
                }
            }
        for (int d = 0; d < pd; ++d) {
            for (int64_t x = 0; x < roles[d].c_rows; ++x)
                for (int64_t j = 0; j < kb; ++j)
                    c[(roles[d].c_row0 + x) * k + k0 + j] = lev[plan.hops][d][x * kb + j];
            for (int h = 0; h <= plan.hops; ++h)
                free(lev[h][d]);
            dspmm_role_free(&roles[d]);
        }
        free(roles);
        dspmm_plan_free(&plan);
    }
    double worst = 0.0, scale = 0.0;
    for (int64_t i = 0; i < a->rows * k; ++i) {
        const double dlt = fabs(c[i] - ref[i]);
        if (!(dlt <= worst)) /* NAN (a row nobody wrote) makes it infinite */
            worst = isnan(dlt) ? INFINITY : dlt;
        if (fabs(ref[i]) > scale)
            scale = fabs(ref[i]);
    }
    free(b);
    free(ref);
    free(c);
    dspmm_grid_free(&g);
    return scale > 0 ? worst / scale : worst;
}

static void test_simulated_products(void)
{
    rt_csr mats[4];
    make_matrix(&mats[0], 97, 83, 5, 0, 0, 0);   /* random: partial rows go everywhere */
    make_matrix(&mats[1], 120, 120, 4, 7, 9, 1); /* banded, empty rows and columns */
    make_matrix(&mats[2], 10, 40, 3, 0, 0, 0);   /* fewer rows than some jobs have ranks */
    make_matrix(&mats[3], 30, 30, 0, 0, 0, 0);   /* no nonzeros at all */
    static const struct {
        int n, rpn, rps;
    } topos[] = {{1, 0, 0}, {2, 1, 0}, {2, 2, 1}, {4, 2, 0},  {4, 2, 1},  {4, 4, 2}, {6, 3, 0},
                 {6, 2, 1}, {8, 4, 2}, {8, 2, 0}, {12, 6, 3}, {12, 4, 2}, {9, 3, 2}};
    int cases = 0;
    for (size_t t = 0; t < sizeof topos / sizeof topos[0]; ++t) {
        dspmm_topo topo;
        rt_err err;
        RT_CHECK(dspmm_topo_virtual(topos[t].n, topos[t].rpn, topos[t].rps, &topo, &err) == 0);
        for (int mi = 0; mi < 4; ++mi)
            for (int kind = 0; kind < 3; ++kind)
                for (int pb = 1; pb <= topos[t].n; ++pb) {
                    if (topos[t].n % pb != 0 || pb > 5)
                        continue;
                    int failed = 0;
                    const double e =
                        simulate(&mats[mi], 5, &topo, pb, (dspmm_comm_kind)kind, &failed);
                    RT_CHECK_MSG(!failed && e <= 1e-12,
                                 "n=%d rpn=%d rps=%d matrix %d comm %s p_batch %d: error %g",
                                 topos[t].n, topos[t].rpn, topos[t].rps, mi,
                                 dspmm_comm_name((dspmm_comm_kind)kind), pb, e);
                    ++cases;
                }
        dspmm_topo_free(&topo);
    }
    RT_CHECK(cases > 200);
    for (int mi = 0; mi < 4; ++mi)
        rt_csr_free(&mats[mi]);
}

/* Every message of a hop crosses exactly the tier its scheme allows. */
static void test_hop_tiers(void)
{
    rt_csr a;
    make_matrix(&a, 200, 200, 6, 0, 0, 0);
    dspmm_topo topo;
    rt_err err;
    char why[128];
    RT_CHECK(dspmm_topo_virtual(12, 6, 3, &topo, &err) == 0);
    dspmm_grid g;
    RT_CHECK(dspmm_grid_build(&a, 16, 1, &topo, &g, why, sizeof why, &err) == 0);
    for (int kind = 0; kind < 3; ++kind) {
        dspmm_plan p;
        RT_CHECK(dspmm_plan_build(&a, &g, 0, &topo, (dspmm_comm_kind)kind, &p, &err) == 0);
        for (int h = 0; h < p.hops; ++h) {
            dspmm_msg *m = NULL;
            int64_t n = 0;
            RT_CHECK(dspmm_plan_messages(&p, h, &m, &n, &err) == 0);
            RT_CHECK(n > 0);
            for (int64_t i = 0; i < n; ++i) {
                const rt_net_tier t =
                    dspmm_topo_tier(&topo, p.member[m[i].src], p.member[m[i].dst]);
                RT_CHECK(m[i].src != m[i].dst && m[i].rows > 0);
                if (i > 0) /* one message per (sender, receiver) pair and hop */
                    RT_CHECK(m[i - 1].src < m[i].src ||
                             (m[i - 1].src == m[i].src && m[i - 1].dst < m[i].dst));
                if (kind == DSPMM_COMM_SOCKET_NODE)
                    RT_CHECK_MSG((int)t == h, "socket+node hop %d crosses tier %d", h, (int)t);
                else if (kind == DSPMM_COMM_NODE)
                    RT_CHECK_MSG(h == 0 ? t != RT_TIER_GLOBAL : t == RT_TIER_GLOBAL,
                                 "node hop %d crosses tier %d", h, (int)t);
            }
            free(m);
        }
        RT_CHECK(strcmp(dspmm_hop_phase(&p, p.hops - 1), "global") == 0);
        dspmm_plan_free(&p);
    }
    dspmm_grid_free(&g);
    dspmm_topo_free(&topo);
    rt_csr_free(&a);
}

/* The hierarchy's promise (thesis section 3.3.3-3.3.4): local reduction never adds inter-node
 * volume, and the socket stage never adds cross-socket volume. */
static void test_volume_relations(void)
{
    rt_csr a;
    make_matrix(&a, 600, 600, 8, 0, 0, 0);
    dspmm_model_result r[3];
    for (int kind = 0; kind < 3; ++kind) {
        const dspmm_model_opts o = {.nranks = 12,
                                    .ranks_per_node = 6,
                                    .ranks_per_socket = 3,
                                    .p_batch = 1,
                                    .comm = (dspmm_comm_kind)kind,
                                    .k = 8,
                                    .prec = RT_FP32};
        char why[128];
        rt_err err;
        RT_CHECK(dspmm_model_run(&a, &o, &r[kind], why, sizeof why, &err) == 0);
    }
    const int64_t direct_g = r[0].bytes_total[RT_TIER_GLOBAL],
                  node_g = r[1].bytes_total[RT_TIER_GLOBAL];
    RT_CHECK_MSG(node_g < direct_g, "node %lld vs direct %lld", (long long)node_g,
                 (long long)direct_g);
    RT_CHECK(r[2].bytes_total[RT_TIER_GLOBAL] == node_g);
    RT_CHECK(r[2].bytes_total[RT_TIER_NODE] < r[1].bytes_total[RT_TIER_NODE]);
    /* Partial data shrinks from level to level: reduction only ever merges rows. */
    RT_CHECK(r[2].partial_bytes[1] <= r[2].partial_bytes[0]);
    RT_CHECK(r[2].partial_bytes[2] <= r[2].partial_bytes[1]);
    RT_CHECK(r[0].hops == 1 && r[1].hops == 2 && r[2].hops == 3);
    for (int kind = 0; kind < 3; ++kind)
        dspmm_model_result_free(&r[kind]);
    rt_csr_free(&a);
}

/* A 4 x 4 example worked by hand: rows and columns split [0,2) | [2,4) between 2 ranks on 2
 * nodes; rank 0 multiplies columns 0-1 (rows 0, 1, 3 get partials: row 3 belongs to rank 1),
 * rank 1 columns 2-3 (rows 0, 2, 3: row 0 belongs to rank 0). Direct: one row each way. */
static void test_hand_example(void)
{
    const int64_t ri[] = {0, 0, 1, 2, 3, 3}, ci[] = {0, 3, 1, 2, 0, 3};
    const double v[] = {1, 2, 3, 4, 5, 6};
    rt_csr a;
    rt_err err;
    RT_CHECK(rt_csr_from_coo(&a, 4, 4, 6, ri, ci, v, &err) == 0);
    dspmm_model_opts o;
    memset(&o, 0, sizeof o);
    o.nranks = 2;
    o.ranks_per_node = 1;
    o.p_batch = 1;
    o.comm = DSPMM_COMM_DIRECT;
    o.k = 4;
    o.prec = RT_FP64;
    o.minibatch = 3; /* two chunks (3 + 1 columns): two messages each, same bytes */
    o.have_tiers = 1;
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        o.tier_gbs[t] = 1.0;        /* 1 GB/s: 32 bytes take 32 ns */
        o.tier_latency_us[t] = 2.0; /* per message */
    }
    o.want_pairs = 1;
    dspmm_model_result r;
    char why[128];
    RT_CHECK(dspmm_model_run(&a, &o, &r, why, sizeof why, &err) == 0);
    RT_CHECK(r.p_data == 2 && r.hops == 1 && r.chunks_max == 2);
    RT_CHECK(r.bytes_total[RT_TIER_GLOBAL] == 64 && r.bytes_max[RT_TIER_GLOBAL] == 32);
    RT_CHECK(r.msgs_total[RT_TIER_GLOBAL] == 4 && r.msgs_max[RT_TIER_GLOBAL] == 2);
    RT_CHECK(r.bytes_total[RT_TIER_SOCKET] == 0 && r.bytes_total[RT_TIER_NODE] == 0);
    RT_CHECK(r.pair_bytes[0 * 2 + 1] == 32 && r.pair_bytes[1 * 2 + 0] == 32);
    RT_CHECK(r.partial_bytes[0] == 6 * 4 * 8); /* rows {0,1},{3} and {0},{2,3} */
    const double want = 2 * 2e-6 + 32 / 1e9;
    RT_CHECK_MSG(fabs(r.comm_time_s - want) < 1e-15, "%g vs %g", r.comm_time_s, want);
    RT_CHECK(fabs(r.tier_time_s[RT_TIER_GLOBAL] - want) < 1e-15);
    RT_CHECK(r.tier_time_s[RT_TIER_SOCKET] == 0.0);
    dspmm_model_result_free(&r);

    /* The same job on one node: the exchange is socket traffic, nothing global. */
    o.ranks_per_node = 2;
    RT_CHECK(dspmm_model_run(&a, &o, &r, why, sizeof why, &err) == 0);
    RT_CHECK(r.bytes_total[RT_TIER_SOCKET] == 64 && r.bytes_total[RT_TIER_GLOBAL] == 0);
    dspmm_model_result_free(&r);

    /* Batch parallelism on 2 ranks: each rank has all of A, nothing to send. */
    o.p_batch = 2;
    RT_CHECK(dspmm_model_run(&a, &o, &r, why, sizeof why, &err) == 0);
    RT_CHECK(r.p_data == 1 && r.bytes_total[RT_TIER_SOCKET] == 0 &&
             r.msgs_total[RT_TIER_SOCKET] == 0);
    dspmm_model_result_free(&r);
    rt_csr_free(&a);
}

static void test_grid_and_family(void)
{
    rt_csr a;
    make_matrix(&a, 50, 40, 3, 0, 0, 0);
    dspmm_topo topo;
    rt_err err;
    char why[256] = "";
    RT_CHECK(dspmm_topo_virtual(6, 0, 0, &topo, &err) == 0);
    dspmm_grid g;
    RT_CHECK(dspmm_grid_build(&a, 1024, 3, &topo, &g, why, sizeof why, &err) == 0);
    /* K = 1024 on 3 batch groups: 342, 341, 341 (thesis section 3.1). */
    RT_CHECK(g.k_start[1] == 342 && g.k_start[2] == 683 && g.k_start[3] == 1024);
    RT_CHECK(g.p_data == 2 && g.row_start[2] == 50 && g.col_start[2] == 40);
    RT_CHECK(dspmm_grid_batch_of(&g, 5) == 2 && dspmm_grid_data_of(&g, 5) == 1);
    dspmm_grid_free(&g);
    RT_CHECK(dspmm_grid_build(&a, 1024, 4, &topo, &g, why, sizeof why, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(why, "does not divide"));
    RT_CHECK(dspmm_grid_build(&a, 2, 3, &topo, &g, why, sizeof why, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(why, "exceeds K"));
    dspmm_topo_free(&topo);

    /* Placement puts a group's data ranks together even when the job's ranks are interleaved
     * across nodes (as a round-robin mapping does). */
    dspmm_topo rr = {4, (int[]){0, 1, 0, 1}, (int[]){0, 0, 0, 0}};
    RT_CHECK(dspmm_grid_build(&a, 8, 2, &rr, &g, why, sizeof why, &err) == 0);
    RT_CHECK(g.place[0] == 0 && g.place[1] == 2 && g.place[2] == 1 && g.place[3] == 3);
    RT_CHECK(dspmm_grid_batch_of(&g, 2) == 0 && dspmm_grid_batch_of(&g, 1) == 1);
    dspmm_grid_free(&g);

    /* Canonical rows tile the matrix for any job size. */
    for (int n = 1; n <= 7; ++n) {
        int64_t next = 0;
        for (int r = 0; r < n; ++r) {
            int64_t r0, r1;
            dspmm_canonical_rows(&a, r, n, &r0, &r1);
            RT_CHECK(r0 == next && r1 >= r0);
            next = r1;
        }
        RT_CHECK(next == a.rows);
    }
    /* The family: output elements and reference of rank 1 of 3 against a direct product. */
    rt_dspmm_inputs *in = NULL;
    RT_CHECK(rt_dspmm_inputs_create(&a, 4, RT_FP64, 7, 1, 3, &in, &err) == 0);
    const rt_family_desc *fam = rt_dspmm_family();
    RT_CHECK(fam->wants_whole_matrix == 1);
    const int64_t n_out = fam->output_elems(in);
    RT_CHECK(n_out == (in->c_row1 - in->c_row0) * 4 && n_out > 0);
    double *out = malloc((size_t)n_out * sizeof *out);
    RT_CHECK(fam->reference(in, out, &err) == 0);
    double worst = 0;
    for (int64_t i = in->c_row0; i < in->c_row1; ++i)
        for (int64_t j = 0; j < 4; ++j) {
            double s = 0;
            for (int64_t e = a.rowptr[i]; e < a.rowptr[i + 1]; ++e)
                s += a.val[e] * rt_dense_get(&in->spmm->b, a.colidx[e], j);
            const double d = fabs(s - out[(i - in->c_row0) * 4 + j]);
            worst = d > worst ? d : worst;
        }
    RT_CHECK(worst < 1e-14);
    RT_CHECK(fam->flops(in) == 2.0 * (double)(a.rowptr[in->c_row1] - a.rowptr[in->c_row0]) * 4);
    free(out);
    rt_dspmm_inputs_destroy(in);
    RT_CHECK(rt_dspmm_inputs_create(&a, 4, RT_FP64, 7, 3, 3, &in, &err) == -1);
    RT_CHECK(rt_test_contains(err.msg, "rank 3 of 3"));
    rt_csr_free(&a);
}

static void test_bad_inputs(void)
{
    dspmm_topo t;
    rt_err err;
    RT_CHECK(dspmm_topo_virtual(6, 4, 0, &t, &err) == -1);
    RT_CHECK(rt_test_contains(err.msg, "does not divide 6 ranks"));
    RT_CHECK(dspmm_topo_virtual(0, 0, 0, &t, &err) == -1);
    RT_CHECK(dspmm_topo_virtual(4, -1, 0, &t, &err) == -1);
    RT_CHECK(dspmm_comm_parse("socket+node") == DSPMM_COMM_SOCKET_NODE);
    RT_CHECK(dspmm_comm_parse("hierarchical") == -1);
    RT_CHECK(dspmm_chunks(10, 0, 0) == 1 && dspmm_chunks(10, 3, 0) == 4 &&
             dspmm_chunks(10, 10, 0) == 1);
    /* Stages asked directly: at most one per column; widths cover K once, widest first. */
    RT_CHECK(dspmm_chunks(10, 3, 4) == 4 && dspmm_chunks(10, 0, 16) == 10);
    int64_t next = 0;
    for (int64_t ch = 0; ch < 4; ++ch) {
        int64_t c0 = -1, w = -1;
        dspmm_chunk_cols(10, 4, ch, &c0, &w);
        RT_CHECK(c0 == next && w == (ch < 2 ? 3 : 2) && w <= dspmm_chunk_max(10, 4));
        next = c0 + w;
    }
    RT_CHECK(next == 10);

    rt_csr a;
    make_matrix(&a, 20, 20, 2, 0, 0, 0);
    dspmm_model_opts o;
    memset(&o, 0, sizeof o);
    o.nranks = 6;
    o.p_batch = 4;
    o.k = 8;
    dspmm_model_result r;
    char why[128] = "";
    RT_CHECK(dspmm_model_run(&a, &o, &r, why, sizeof why, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(why, "p_batch = 4"));
    dspmm_model_result_free(&r);
    o.p_batch = 1;
    o.have_tiers = 1; /* a zero bandwidth is refused rather than dividing by it */
    RT_CHECK(dspmm_model_run(&a, &o, &r, why, sizeof why, &err) == -1);
    RT_CHECK(rt_test_contains(err.msg, "bandwidth"));
    dspmm_model_result_free(&r);
    rt_csr_free(&a);
}

int main(void)
{
    test_simulated_products();
    test_hop_tiers();
    test_volume_relations();
    test_hand_example();
    test_grid_and_family();
    test_bad_inputs();
    return RT_TEST_RESULT();
}
