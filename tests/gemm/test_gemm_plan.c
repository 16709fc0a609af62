/* The gemm plan, model and tile cache on small cases computed by hand (docs/families/gemm.md works
 * them out): the three cases of Eq. (1), peer copies with two GPUs, the inter-process volume on a
 * 2 x 3 grid, the paper's default rule, the infeasible budget, ragged divisions, and LRU with
 * pinning; the map of a process's GPUs to physical devices (gpu_map). */
#include <math.h>
#include <string.h>

#include "gemm_cache.h"
#include "gemm_gpu_map.h"
#include "gemm_plan.h"
#include "rt_registry.h"
#include "rt_test.h"

/* n x n x n tiles on a p x q grid, G GPUs, square blocks of b, chunks of d, lookahead l. */
static gemm_plan_req req_of(int64_t n, int p, int q, int G, int64_t b, int64_t d, int l,
                            int64_t budget)
{
    return (gemm_plan_req){.mt = n,
                           .nt = n,
                           .kt = n,
                           .p = p,
                           .q = q,
                           .G = G,
                           .b = b,
                           .c = b,
                           .d = d,
                           .l = l,
                           .budget_tiles = budget};
}

static gemm_plan plan(int64_t n, int p, int q, int G, int64_t b, int64_t d, int l, int64_t budget)
{
    const gemm_plan_req req = req_of(n, p, q, G, b, d, l, budget);
    gemm_plan pl;
    rt_err err;
    rt_err_clear(&err);
    const int rc = gemm_plan_make(&req, &pl, &err);
    RT_CHECK_MSG(rc == 0, "%s", err.msg);
    return pl;
}

static void test_count_mod(void)
{
    RT_CHECK(gemm_count_mod(10, 3, 0) == 4);
    RT_CHECK(gemm_count_mod(10, 3, 1) == 3);
    RT_CHECK(gemm_count_mod(10, 3, 2) == 3);
    RT_CHECK(gemm_count_mod(2, 3, 2) == 0);
}

/* 12 x 12 x 12 tiles, one process, one GPU, 2 x 2 blocks (X = Y = 6), chunks of 2 (Z = 6). */
static void test_three_cases(void)
{
    gemm_gpu_counts c;
    /* (a) 1000 tiles: everything stays; each tile of A, B and C moves once. */
    gemm_plan pl = plan(12, 1, 1, 1, 2, 2, 0, 1000);
    RT_CHECK(pl.mem_case == 'a' && pl.pool_a == 144 && pl.pool_b == 144);
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK(c.a_loads == 144 && c.b_loads == 144 && c.c_writes == 144 && c.total == 432);
    RT_CHECK(fabs(gemm_eq1(&pl) - 432) < 1e-9);
    /* (b) 40 tiles: C 4, B of a block column 2 x 12 = 24, A pool 12: A cycles Y = 6 times. */
    pl = plan(12, 1, 1, 1, 2, 2, 0, 40);
    RT_CHECK(pl.mem_case == 'b' && pl.pool_b == 24 && pl.pool_a == 12);
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK(c.a_loads == 864 && c.b_loads == 144 && c.total == 1152);
    RT_CHECK(fabs(gemm_eq1(&pl) - 1152) < 1e-9);
    /* (c) 14 tiles: C 4, A pool one chunk (4), B pool 6 < 24: B cycles X = 6 times too. */
    pl = plan(12, 1, 1, 1, 2, 2, 0, 14);
    RT_CHECK(pl.mem_case == 'c' && pl.pool_a == 4 && pl.pool_b == 6);
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK(c.a_loads == 864 && c.b_loads == 864 && c.total == 1872);
    RT_CHECK(fabs(gemm_eq1(&pl) - 1872) < 1e-9);
    /* Lookahead 1 needs two chunks per pool: 4 + 2 x 8 = 20 tiles at least. */
    pl = plan(12, 1, 1, 1, 2, 2, 1, 20);
    RT_CHECK(pl.mem_case == 'c' && pl.pool_a == 8 && pl.pool_b == 8);
}

/* Two GPUs per process: each gets one column of a 2 x 2 block; GPU 1 takes A from GPU 0. */
static void test_two_gpus(void)
{
    gemm_plan pl = plan(12, 1, 1, 2, 2, 2, 0, 40);
    RT_CHECK(pl.cg == 1 && pl.mem_case == 'b' && pl.pool_b == 12 && pl.pool_a == 26);
    for (int g = 0; g < 2; ++g) {
        gemm_gpu_counts c;
        gemm_model_gpu(&pl, 0, 0, g, &c);
        RT_CHECK(c.a_loads == 864 && c.b_loads == 72 && c.c_writes == 72 && c.total == 1008);
    }
    RT_CHECK(fabs(gemm_eq1(&pl) - 1008) < 1e-9);
    gemm_proc_counts pc;
    gemm_model_process(&pl, 0, 0, NULL, &pc);
    RT_CHECK(pc.h2d_a == 864 && pc.d2d_a == 864 && pc.h2d_b == 144 && pc.d2h_c == 144);
    /* c = 3 cannot be split over 2 GPUs. */
    const gemm_plan_req bad = {.mt = 12,
                               .nt = 12,
                               .kt = 12,
                               .p = 1,
                               .q = 1,
                               .G = 2,
                               .b = 3,
                               .c = 3,
                               .d = 1,
                               .l = 0,
                               .budget_tiles = 0};
    rt_err err;
    RT_CHECK(gemm_plan_make(&bad, &pl, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "not a multiple of the 2 GPU(s)"));
}

/* 2 x 3 grid: each process has 6 tile rows and 4 tile columns; X = 3, Y = 2. Process (0, 0)
 * receives 6 x 2 x (12 - 4) = 96 A tiles and 4 x 3 x (12 - 6) = 72 B tiles, the formula's
 * (2 (1 - 1/3) + 2 (1 - 1/2)) 12 x 3 x 2 = 168; it sends as many. */
static void test_grid_volume(void)
{
    gemm_plan pl = plan(12, 2, 3, 1, 2, 2, 0, 0);
    RT_CHECK(pl.X == 3 && pl.Y == 2 && pl.Z == 6);
    double total = 0.0;
    for (int u = 0; u < 2; ++u)
        for (int v = 0; v < 3; ++v) {
            gemm_proc_counts pc;
            gemm_model_process(&pl, u, v, NULL, &pc);
            RT_CHECK(pc.recv_a == 96 && pc.recv_b == 72);
            RT_CHECK(pc.sent_a + pc.sent_b == 168 && pc.sent_tier[0] == 168);
            total += pc.recv_a + pc.recv_b;
        }
    RT_CHECK(fabs(gemm_eq_recv(&pl) - 168) < 1e-9 && total == 6 * 168);
    /* Tiers: ranks 3..5 (process row 1) as another node; (0, 0) sends B to (1, 0) only. */
    const int tiers[6] = {0, 0, 0, 2, 2, 2};
    gemm_proc_counts pc;
    gemm_model_process(&pl, 0, 0, tiers, &pc);
    RT_CHECK(pc.sent_tier[2] == pc.sent_b && pc.sent_tier[0] == pc.sent_a);
}

static void test_rule_and_budget(void)
{
    /* Unlimited: the whole C, lookahead 1 (one block), and still 8 chunks or more of k (d = 1 is
     * the largest divisor of 12 with 12 / d >= 8), so loads pipeline with products. */
    gemm_plan pl = plan(12, 1, 1, 1, 0, 0, -1, 0);
    RT_CHECK(pl.b == 12 && pl.c == 12 && pl.d == 1 && pl.l == 1 && pl.mem_case == 'a');
    /* 16 tiles of k: d = 2 (8 chunks). */
    pl = plan(16, 1, 1, 1, 0, 0, -1, 0);
    RT_CHECK(pl.d == 2 && pl.Z == 8);
    /* All of C (4 x 4 tiles, 2 per GPU) fits in 3/4 of 16 tiles, but no chunk fits beside it
     * with lookahead 1 (8 + 2 (4 + 2) > 16): the rule falls back to b = c = 2 (it used to give
     * up: t = 4096 at 2 GiB on 2 GPUs, issue 32). */
    const gemm_plan_req whole = {
        .mt = 4, .nt = 4, .kt = 4, .p = 1, .q = 1, .G = 2, .l = -1, .budget_tiles = 16};
    rt_err werr;
    RT_CHECK_MSG(gemm_plan_make(&whole, &pl, &werr) == 0, "%s", werr.msg);
    RT_CHECK(pl.b == 2 && pl.c == 2 && pl.l == 2 && pl.d == 1);
    /* 100 tiles for 8 x 8 x 8: C (64) fits in 3/4 of them; d = 1 is the largest divisor of 8
     * with 64 + 2 (8 + 8) d <= 100. */
    pl = plan(8, 1, 1, 1, 0, 0, -1, 100);
    RT_CHECK(pl.b == 8 && pl.c == 8 && pl.l == 1 && pl.d == 1);
    /* 20 tiles for 12^3: b = c = 3 fits 3/4 of them but no chunk beside it (9 + 3 x 6 d > 20
     * with l = 2), so b = c = 2 and d = 1. */
    pl = plan(12, 1, 1, 1, 0, 0, -1, 20);
    RT_CHECK(pl.b == 2 && pl.c == 2 && pl.l == 2 && pl.d == 1);
    /* A budget too small for the smallest block is infeasible, with the reason. */
    const gemm_plan_req req = {.mt = 12,
                               .nt = 12,
                               .kt = 12,
                               .p = 1,
                               .q = 1,
                               .G = 1,
                               .b = 2,
                               .c = 2,
                               .d = 2,
                               .l = 0,
                               .budget_tiles = 7};
    rt_err err;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == RT_INFEASIBLE);
    RT_CHECK(rt_test_contains(err.msg, "gpu_mem_budget of 7 tiles is too small"));
    RT_CHECK(rt_test_contains(err.msg, "need 12 tiles"));
}

/* 10 tiles over 3 process rows (4, 3, 3) with b = 3: row 0 has blocks of 3 and 1 rows. */
static void test_ragged(void)
{
    const gemm_plan_req req = {.mt = 10,
                               .nt = 7,
                               .kt = 5,
                               .p = 3,
                               .q = 2,
                               .G = 1,
                               .b = 3,
                               .c = 3,
                               .d = 2,
                               .l = 0,
                               .budget_tiles = 0};
    gemm_plan pl;
    rt_err err;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == 0);
    RT_CHECK(pl.X == 2 && pl.Y == 2 && pl.Z == 3);
    RT_CHECK(gemm_plan_block_rows(&pl, 0, 1) == 1 && gemm_plan_block_rows(&pl, 1, 1) == 0);
    RT_CHECK(gemm_plan_block_cols(&pl, 0, 1) == 1 && gemm_plan_block_cols(&pl, 1, 1) == 0);
    RT_CHECK(gemm_plan_chunk_depth(&pl, 2) == 1);
    /* Every C tile belongs to one process: the writes add up to 10 x 7. */
    double writes = 0.0;
    for (int u = 0; u < 3; ++u)
        for (int v = 0; v < 2; ++v) {
            gemm_gpu_counts c;
            gemm_model_gpu(&pl, u, v, 0, &c);
            writes += c.c_writes;
        }
    RT_CHECK(writes == 70);
}

/* ipc on a 1 x 2 grid (12^3 tiles, b = c = d = 2, everything fits): process (0, 0) owns the A
 * tiles of even k; it pulls the other 72 from process (0, 1)'s GPU once (A stays) instead of
 * receiving them over MPI at each of the 3 block columns (216), and sends none. On two nodes the
 * same plan falls back to MPI. */
static void test_ipc(void)
{
    gemm_plan_req req = req_of(12, 1, 2, 1, 2, 2, 0, 1000);
    gemm_plan pl;
    rt_err err;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == 0 && pl.mem_case == 'a');
    gemm_proc_counts pc;
    gemm_model_process(&pl, 0, 0, NULL, &pc);
    RT_CHECK(pc.h2d_a == 144 && pc.ipc_a == 0 && pc.recv_a == 216 && pc.sent_a == 216);
    req.ipc = 1;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == 0 && pl.ipc == 1);
    gemm_model_process(&pl, 0, 0, NULL, &pc);
    RT_CHECK_MSG(pc.h2d_a == 72 && pc.ipc_a == 72 && pc.recv_a == 0 && pc.sent_a == 0,
                 "h2d %g ipc %g recv %g sent %g", pc.h2d_a, pc.ipc_a, pc.recv_a, pc.sent_a);
    RT_CHECK(pc.h2d_b == 72 && pc.ipc_b == 0 && pc.d2h_c == 72);
    const int two_nodes[2] = {0, 2};
    gemm_model_process(&pl, 0, 0, two_nodes, &pc);
    RT_CHECK(pc.h2d_a == 144 && pc.ipc_a == 0 && pc.recv_a == 216 && pc.sent_a == 216);
}

/* Elements moved, exact with ragged tiles: 10 x 10 x 10 in tiles of 4 (4, 4, 2), everything
 * fits. One GPU: A and B in once (200 elements), C back (100). Two GPUs (b = 3, c = 4): one of
 * them takes A from the host, the other from it (100 device to device); B splits 60 + 40. */
static void test_elements(void)
{
    gemm_plan_req req = req_of(3, 1, 1, 1, 3, 1, 0, 0);
    req.m = req.n = req.k = 10;
    req.t = 4;
    gemm_plan pl;
    rt_err err;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == 0);
    gemm_proc_counts pc;
    gemm_model_process(&pl, 0, 0, NULL, &pc);
    RT_CHECK(pc.el_h2d == 200 && pc.el_d2h == 100 && pc.el_d2d == 0 && pc.el_ipc == 0);
    req.G = 2;
    req.b = req.c = 4;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) == 0 && pl.b == 3 && pl.c == 4 && pl.cg == 2);
    gemm_model_process(&pl, 0, 0, NULL, &pc);
    RT_CHECK_MSG(pc.el_h2d == 200 && pc.el_d2h == 100 && pc.el_d2d == 100, "h2d %g d2h %g d2d %g",
                 pc.el_h2d, pc.el_d2h, pc.el_d2d);
    RT_CHECK(pc.h2d_a == 9 && pc.d2d_a == 9 && pc.h2d_b == 9);
    /* Sizes that do not fit the tile counts are rejected. */
    req.t = -1;
    RT_CHECK(gemm_plan_make(&req, &pl, &err) != 0 && rt_test_contains(err.msg, "not valid"));
}

static gemm_plan plan_split(int64_t n, int G, int64_t b, int64_t budget, int64_t split)
{
    gemm_plan_req req = req_of(n, 1, 1, G, b, 2, 0, budget);
    req.split = split;
    gemm_plan pl;
    rt_err err;
    rt_err_clear(&err);
    RT_CHECK_MSG(gemm_plan_make(&req, &pl, &err) == 0, "%s", err.msg);
    return pl;
}

/* The tail split, 12^3 tiles on one process, d = 2, l = 0 (docs/families/gemm.md works them out):
 * the last block row's rows in sub-blocks, the tail (C of the GPU's last block) smaller by the
 * split, B reloaded per sub-block only where its pool cycles (case (c)), Eq. (1) counting it. */
static void test_tail_split(void)
{
    gemm_gpu_counts c;
    /* Everything fits, one block of 12 x 12: the split moves nothing more, the tail shrinks from
     * all of C (144) to the last sub-block's 4 x 12. */
    gemm_plan pl = plan_split(12, 1, 12, 0, 1);
    RT_CHECK(pl.X == 1 && pl.xs == 1 && pl.bs == 12 && pl.mem_case == 'a');
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK(c.total == 432 && c.c_tail == 144);
    pl = plan_split(12, 1, 12, 0, 3);
    RT_CHECK(pl.X == 3 && pl.xs == 3 && pl.bs == 4 && pl.xf == 0 && pl.l == 0);
    RT_CHECK(gemm_plan_block_row0(&pl, 2) == 8 && gemm_plan_block_slot0(&pl, 2) == 8);
    RT_CHECK(gemm_plan_block_rows(&pl, 0, 1) == 4 && gemm_plan_chunks(&pl) == 18);
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK_MSG(c.a_loads == 144 && c.b_loads == 144 && c.c_writes == 144 && c.c_tail == 48,
                 "a %g b %g c %g tail %g", c.a_loads, c.b_loads, c.c_writes, c.c_tail);
    RT_CHECK(fabs(gemm_eq1(&pl) - 432) < 1e-9);
    /* Case (c), b = c = 4 (X = Y = 3), 40 tiles: A pool 8, B pool 16 < the 48 B tiles of a block
     * column, so B moves once per block row: 3 x 48 x 3 = 432, A 3 x 144, C 144: 1008. */
    pl = plan_split(12, 1, 4, 40, 1);
    RT_CHECK(pl.mem_case == 'c' && pl.pool_a == 8 && pl.pool_b == 16 && pl.X == 3);
    gemm_model_gpu(&pl, 0, 0, 0, &c);
    RT_CHECK(c.a_loads == 432 && c.b_loads == 432 && c.total == 1008 && c.c_tail == 16);
    RT_CHECK(fabs(gemm_eq1(&pl) - 1008) < 1e-9);
    /* Split 2: the last block row as 2 sub-blocks of 2 rows (X = 4): B 4 x 48 x 3 = 576, the
     * tail 2 x 4 = 8; the pools, the lookahead and A stay. Eq. (1) counts the 4 B passes. */
    gemm_plan sp = plan_split(12, 1, 4, 40, 2);
    RT_CHECK(sp.X == 4 && sp.xs == 2 && sp.bs == 2 && sp.pool_a == 8 && sp.pool_b == 16);
    gemm_model_gpu(&sp, 0, 0, 0, &c);
    RT_CHECK(c.a_loads == 432 && c.b_loads == 576 && c.total == 1152 && c.c_tail == 8);
    RT_CHECK(fabs(gemm_eq1(&sp) - 1152) < 1e-9);
    /* Split 3 of 4 rows: sub-blocks of ceil(4/3) = 2 rows, so 2 of them (never an empty one). */
    sp = plan_split(12, 1, 4, 40, 3);
    RT_CHECK(sp.xs == 2 && sp.bs == 2 && sp.X == 4);
    /* Split 4: 4 sub-blocks of one row, B 6 x 48 x 3 = 864, tail 4. */
    sp = plan_split(12, 1, 4, 40, 4);
    gemm_model_gpu(&sp, 0, 0, 0, &c);
    RT_CHECK(sp.xs == 4 && c.b_loads == 864 && c.c_tail == 4);
    gemm_proc_counts pc;
    gemm_model_process(&sp, 0, 0, NULL, &pc);
    RT_CHECK(pc.h2d_b == 864 && pc.d2h_tail == 4 && pc.d2h_c == 144);
    /* Case (b) on 2 GPUs (B pool 24 holds each GPU's block column): the split adds nothing; each
     * GPU's tail is 2 rows x 2 columns instead of 4 x 2. */
    pl = plan_split(12, 2, 4, 40, 1);
    sp = plan_split(12, 2, 4, 40, 2);
    RT_CHECK(pl.mem_case == 'b' && sp.mem_case == 'b' && sp.pool_b == 24 && sp.pool_a == 8);
    for (int g = 0; g < 2; ++g) {
        gemm_gpu_counts c1, c2;
        gemm_model_gpu(&pl, 0, 0, g, &c1);
        gemm_model_gpu(&sp, 0, 0, g, &c2);
        RT_CHECK(c1.total == c2.total && c2.a_loads == 432 && c2.b_loads == 72);
        RT_CHECK(c1.c_tail == 8 && c2.c_tail == 4);
    }
    RT_CHECK(fabs(gemm_eq1(&sp) - gemm_eq1(&pl)) < 1e-9);
    /* A negative split is bad input. */
    gemm_plan_req bad = req_of(12, 1, 1, 1, 4, 2, 0, 40);
    bad.split = -1;
    rt_err err;
    RT_CHECK(gemm_plan_make(&bad, &pl, &err) != 0 && rt_test_contains(err.msg, "tail_split"));
}

/* The split on unequal process rows: 11 tile rows over 3 process rows (4, 4, 3), b = 2: the last
 * block row (rows 2..3) in sub-blocks of one row; process row 2 has no row in the last one, so its
 * tail is its block row 1's one row; every C tile is still written once; the volume formula
 * counts B per sub-block. */
static void test_tail_split_ragged(void)
{
    gemm_plan_req req = {.mt = 11, .nt = 6, .kt = 6, .p = 3, .q = 1, .G = 1, .b = 2, .c = 2};
    req.d = 2;
    req.split = 2;
    gemm_plan pl;
    rt_err err;
    RT_CHECK_MSG(gemm_plan_make(&req, &pl, &err) == 0, "%s", err.msg);
    RT_CHECK(pl.xf == 1 && pl.bl == 2 && pl.bs == 1 && pl.xs == 2 && pl.X == 3 && pl.Y == 3);
    RT_CHECK(gemm_plan_block_rows(&pl, 0, 2) == 1 && gemm_plan_block_rows(&pl, 2, 1) == 1 &&
             gemm_plan_block_rows(&pl, 2, 2) == 0);
    double writes = 0.0;
    for (int u = 0; u < 3; ++u) {
        gemm_gpu_counts c;
        gemm_model_gpu(&pl, u, 0, 0, &c);
        writes += c.c_writes;
        RT_CHECK_MSG(c.c_tail == 2, "process row %d: tail %g", u, c.c_tail);
    }
    RT_CHECK(writes == 66);
    /* B over MPI: per block column (2 columns) and block row a process computes in, the 4 of the
     * 6 k it does not own, 2 tiles each: 24 per block row and column (here 3 columns). Process
     * rows 0 and 1 compute in 3 block rows (the last as 2 sub-blocks), row 2 in 2: 64 on average.
     */
    double recv = 0.0;
    for (int u = 0; u < 3; ++u) {
        gemm_proc_counts pc;
        gemm_model_process(&pl, u, 0, NULL, &pc);
        recv += pc.recv_b;
    }
    RT_CHECK_MSG(fabs(recv / 3 - 64) < 1e-9, "recv_b %g", recv / 3);
}

static void test_cache(void)
{
    gemm_cache *c = NULL;
    rt_err err;
    RT_CHECK(gemm_cache_create(2, 10, 1, 20, &c, &err) == 0);
    int64_t s1, s2, s3, s;
    int hit, used;
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 100, &s1, &hit, &used, &err) == 0 && !hit && !used);
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 200, &s2, &hit, &used, &err) == 0 && !hit && !used);
    RT_CHECK(s1 >= 10 && s1 < 12 && s2 >= 10 && s2 < 12 && s1 != s2);
    /* Both pinned: a third tile has nowhere to go. */
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 300, &s, &hit, &used, &err) != 0);
    RT_CHECK(rt_test_contains(err.msg, "pinned"));
    RT_CHECK(gemm_cache_pinned_slot(c, GEMM_POOL_A, 100) == s1);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s1, &err) == 0);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s2, &err) == 0);
    RT_CHECK(gemm_cache_pinned_slot(c, GEMM_POOL_A, 100) == -1);
    /* 100 used again: 200 is now the least recent and makes room for 300. */
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 100, &s, &hit, &used, &err) == 0 && hit && s == s1);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s, &err) == 0);
    /* ... whose slot held 200 (the caller must wait for its readers before overwriting it). */
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 300, &s3, &hit, &used, &err) == 0 && !hit &&
             s3 == s2 && used);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s3, &err) == 0);
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 200, &s, &hit, &used, &err) == 0 && !hit && s == s1);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s, &err) == 0);
    RT_CHECK(gemm_cache_release(c, GEMM_POOL_A, s, &err) != 0); /* not pinned any more */
    /* The B pool is separate. */
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_B, 100, &s, &hit, &used, &err) == 0 && !hit && s == 20);
    gemm_cache_reset(c);
    RT_CHECK(gemm_cache_take(c, GEMM_POOL_A, 300, &s, &hit, &used, &err) == 0 && !hit);
    gemm_cache_free(c);
}

/* gpu_map: physical puts the ranks of a host on disjoint devices (local rank x G + g); auto falls
 * back to logical (the rank's own device) without enough devices; physical then is infeasible. */
static void test_gpu_map(void)
{
    gemm_gpu_map m;
    char why[256];
    gemm_map_mode mode;
    RT_CHECK(gemm_map_mode_parse("physical", &mode) == 0 && mode == GEMM_MAP_PHYSICAL);
    RT_CHECK(gemm_map_mode_parse("Physical", &mode) == -1);
    /* One process, G = 2 on a 2-device host: devices 0 and 1. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_AUTO, 2, 0, 1, 2, 0, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 1 && m.devices[0] == 0 && m.devices[1] == 1 && m.distinct == 2);
    /* Two ranks x G = 2 on 4 devices: rank 1 takes devices 2 and 3. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_PHYSICAL, 2, 1, 2, 4, 1, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 1 && m.devices[0] == 2 && m.devices[1] == 3 && m.distinct == 2);
    /* Two ranks x G = 1 on 2 devices: each rank its own device (its context's, local rank). */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_AUTO, 1, 1, 2, 2, 1, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 1 && m.devices[0] == 1 && m.distinct == 1);
    /* One device: auto is logical, every GPU on the rank's own device. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_AUTO, 2, 0, 1, 1, 0, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 0 && m.devices[0] == 0 && m.devices[1] == 0 && m.distinct == 1);
    /* Explicit logical on a 2-device host stays on the own device. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_LOGICAL, 2, 1, 2, 2, 1, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 0 && m.devices[0] == 1 && m.devices[1] == 1);
    /* Physical without enough devices: infeasible, with the numbers. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_PHYSICAL, 2, 0, 2, 2, 0, &m, why, sizeof why) ==
             RT_INFEASIBLE);
    RT_CHECK_MSG(strstr(why, "needs 4 devices") && strstr(why, "has 2"), "%s", why);
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_AUTO, 2, 0, 2, 2, 0, &m, why, sizeof why) == 0);
    RT_CHECK(m.physical == 0);
    /* A layout that cannot be. */
    RT_CHECK(gemm_gpu_map_resolve(GEMM_MAP_AUTO, 2, 2, 2, 2, 0, &m, why, sizeof why) == -1);
}

int main(void)
{
    test_count_mod();
    test_three_cases();
    test_two_gpus();
    test_grid_volume();
    test_rule_and_budget();
    test_ragged();
    test_ipc();
    test_elements();
    test_tail_split();
    test_tail_split_ragged();
    test_cache();
    test_gpu_map();
    return RT_TEST_RESULT();
}
