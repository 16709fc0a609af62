/* Tiled SpMM preprocessing (spmm_tiled) and its host execution (spmm.cpu.tiled):
 *   - exact plan contents on a hand-worked example, CSR and ELL staging;
 *   - impossible parameters and malformed matrices are refused, naming the parameter;
 *   - rt_tiled_plan_verify rejects corrupted plans (so its passes mean something);
 *   - plans of edge-case and generated matrices verify under many parameters, with stage counts
 *     recomputed here from each block's footprint;
 *   - plans from a matrix's footprints (rt_tiled_plan_build_with, what a sweep over buffsize
 *     reuses) are, array for array, the plans a straightforward builder here makes, and the
 *     footprints survive being used; footprints of another shape or block size are refused;
 *   - the pattern fingerprint tells patterns apart and does not depend on the threads;
 *   - spmm.cpu.tiled against the dense product over shapes, layouts, precisions, parameters.
 * Usage: test_tiled [plan|kernel] (default: both). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_util.h"
#include "rt_generators.h"
#include "rt_test.h"
#include "spmm_cpu_tiled.h"
#include "spmm_family.h"
#include "spmm_tiled.h"

static rt_tiled_params tparams(int block_size, int64_t buffsize, int warp_size, int use_ell,
                               int index_bytes)
{
    const rt_tiled_params p = {.block_size = block_size,
                               .buffsize = buffsize,
                               .warp_size = warp_size,
                               .use_ell = use_ell,
                               .index_bytes = index_bytes};
    return p;
}

/* Row 0: cols {0,4,7}, row 1: {1,3,5}, row 2: {2}, row 3 empty; 8 columns. */
static void hand_matrix(rt_csr *a)
{
    kt_coo m;
    kt_coo_init(&m, 4, 8);
    kt_coo_add(&m, 0, 0, 1.0);
    kt_coo_add(&m, 0, 4, 2.0);
    kt_coo_add(&m, 0, 7, 3.0);
    kt_coo_add(&m, 1, 1, 4.0);
    kt_coo_add(&m, 1, 3, 5.0);
    kt_coo_add(&m, 1, 5, 6.0);
    kt_coo_add(&m, 2, 2, 7.0);
    rt_err err;
    if (kt_coo_to_csr(&m, a, &err) != 0)
        fprintf(stderr, "hand matrix: %s\n", err.msg);
    kt_coo_free(&m);
}

static int same_i64(const int64_t *x, const int64_t *y, int n)
{
    for (int i = 0; i < n; ++i)
        if (x[i] != y[i])
            return 0;
    return 1;
}

/* Blocks of 2 rows, 3 slots: block 0's footprint {0,1,3,4,5,7} makes stages {0,1,3}, {4,5,7};
 * block 1's {2} one stage. */
static void test_hand_plan(void)
{
    rt_csr a;
    hand_matrix(&a);
    rt_err err;
    rt_tiled_plan pl;
    rt_tiled_params p = tparams(2, 3, 32, 0, 4);
    RT_CHECK_MSG(rt_tiled_plan_build(&a, &p, &pl, &err) == 0, "%s", err.msg);
    RT_CHECK(pl.nblocks == 2 && pl.nstages == 3 && pl.nmap == 7 && pl.stored == 7);
    const int64_t buffdispl[] = {0, 2, 3}, mapdispl[] = {0, 3, 6, 7};
    const int32_t map[] = {0, 1, 3, 4, 5, 7, 2};
    const int64_t rowdispl[] = {0, 1, 3, 5, 6, 7, 7};
    const int32_t index[] = {0, 1, 2, 0, 2, 1, 0};
    const double value[] = {1, 4, 5, 2, 3, 6, 7};
    RT_CHECK(same_i64(pl.buffdispl, buffdispl, 3) && same_i64(pl.mapdispl, mapdispl, 4));
    RT_CHECK(memcmp(pl.map, map, sizeof map) == 0);
    RT_CHECK(pl.rowdispl && same_i64(pl.rowdispl, rowdispl, 7) && pl.displ == NULL);
    RT_CHECK(pl.index32 && pl.index16 == NULL && memcmp(pl.index32, index, sizeof index) == 0);
    RT_CHECK(memcmp(pl.value, value, sizeof value) == 0);
    RT_CHECK_MSG(rt_tiled_plan_verify(&pl, &a, &err) == 0, "%s", err.msg);
    rt_metrics m;
    rt_metrics_init(&m);
    rt_tiled_plan_metrics(&pl, &m);
    RT_CHECK(rt_metrics_get(&m, "padding_overhead")->value == 0.0);
    RT_CHECK(rt_metrics_get(&m, "reuse_factor")->value == 1.0);
    RT_CHECK(rt_metrics_get(&m, "stages_per_block_avg")->value == 1.5);
    RT_CHECK(rt_metrics_get(&m, "stages_per_block_max")->value == 2.0);
    RT_CHECK(rt_metrics_get(&m, "staged_entries")->value == 7.0);
    RT_CHECK(rt_metrics_get(&m, "plan_bytes")->value > 0.0);
    for (int i = 0; i < m.n; ++i)
        RT_CHECK_MSG(m.item[i].deterministic && m.item[i].available, "%s", m.item[i].name);
    rt_tiled_plan_free(&pl);

    /* ELL, warps of 2 rows (one warp per block), 2-byte indices. Slices: stage 0 width 2,
     * stage 1 width 2, stage 2 width 1; padding (index 0, value 0) where a row is shorter. */
    p = tparams(2, 3, 2, 1, 2);
    RT_CHECK_MSG(rt_tiled_plan_build(&a, &p, &pl, &err) == 0, "%s", err.msg);
    const int64_t displ[] = {0, 2, 4, 5};
    const uint16_t eindex[] = {0, 1, 0, 2, 0, 1, 2, 0, 0, 0};
    const double evalue[] = {1, 4, 0, 5, 2, 6, 3, 0, 7, 0};
    RT_CHECK(pl.warps_per_block == 1 && pl.stored == 10 && pl.rowdispl == NULL);
    RT_CHECK(pl.displ && same_i64(pl.displ, displ, 4));
    RT_CHECK(pl.index16 && pl.index32 == NULL && memcmp(pl.index16, eindex, sizeof eindex) == 0);
    RT_CHECK(memcmp(pl.value, evalue, sizeof evalue) == 0);
    RT_CHECK_MSG(rt_tiled_plan_verify(&pl, &a, &err) == 0, "%s", err.msg);
    rt_metrics_init(&m);
    rt_tiled_plan_metrics(&pl, &m);
    RT_CHECK(fabs(rt_metrics_get(&m, "padding_overhead")->value - (10.0 / 7.0 - 1.0)) < 1e-15);
    rt_tiled_plan_free(&pl);
    rt_csr_free(&a);
}

static void test_bad_params(void)
{
    rt_csr a;
    hand_matrix(&a);
    rt_err err;
    rt_tiled_plan pl;
    struct {
        rt_tiled_params p;
        const char *expect;
    } bad[] = {
        {tparams(48, 64, 32, 1, 2), "block_size"},
        {tparams(0, 64, 32, 0, 2), "block_size"},
        {tparams(-5, 64, 32, 0, 2), "block_size"},
        {tparams(64, 0, 32, 1, 2), "buffsize"},
        {tparams(64, -1, 32, 1, 4), "buffsize"},
        {tparams(64, 70000, 32, 1, 2), "index_bytes"},
        {tparams(64, 64, 32, 1, 3), "index_bytes"},
        {tparams(64, 64, 0, 1, 2), "warp_size"},
        {tparams(64, 64, 32, 2, 2), "use_ell"},
        {tparams(64, (int64_t)1 << 40, 32, 0, 4), "buffsize"},
        {tparams(64, 64, 32, 1, 2), "bank_order"}, /* bank_order set below */
        {tparams(64, 64, 32, 0, 2), "use_ell"},
        {tparams(64, 64, 32, 1, 2), "bank_lanes"},
        {tparams(64, 64, 16, 1, 2), "warp_size"},
    };
    bad[10].p.bank_order = 2;
    bad[11].p.bank_order = 1;
    bad[12].p.bank_order = 1;
    bad[12].p.bank_lanes = 16;
    bad[13].p.bank_order = 1;
    bad[13].p.bank_lanes = 8;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rt_err_clear(&err);
        RT_CHECK_MSG(rt_tiled_plan_build(&a, &bad[i].p, &pl, &err) != 0, "case %zu", i);
        RT_CHECK_MSG(rt_test_contains(err.msg, bad[i].expect), "case %zu: %s", i, err.msg);
        RT_CHECK(pl.map == NULL && pl.value == NULL); /* nothing left allocated */
        rt_tiled_plan_free(&pl);
    }
    /* Allowed corners: buffsize exactly 65536 with 2-byte indices; 48 rows per block in CSR. */
    rt_tiled_params ok = tparams(64, 65536, 32, 1, 2);
    RT_CHECK(rt_tiled_plan_build(&a, &ok, &pl, &err) == 0);
    rt_tiled_plan_free(&pl);
    ok = tparams(48, 5, 32, 0, 2);
    RT_CHECK(rt_tiled_plan_build(&a, &ok, &pl, &err) == 0);
    rt_tiled_plan_free(&pl);

    RT_CHECK(rt_tiled_plan_build(NULL, &ok, &pl, &err) != 0);
    RT_CHECK(rt_tiled_plan_build(&a, NULL, &pl, &err) != 0);
    RT_CHECK(rt_tiled_plan_build(&a, &ok, NULL, &err) != 0);
    a.colidx[2] = 99; /* out of range: a malformed matrix is refused before any indexing */
    RT_CHECK(rt_tiled_plan_build(&a, &ok, &pl, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "malformed"), "%s", err.msg);
    a.colidx[2] = 7;
    const int64_t saved = a.rowptr[2];
    a.rowptr[2] = 1; /* rowptr decreasing */
    RT_CHECK(rt_tiled_plan_build(&a, &ok, &pl, &err) != 0);
    a.rowptr[2] = saved;
    RT_CHECK(rt_tiled_plan_verify(NULL, &a, &err) != 0);
    rt_csr_free(&a);
}

/* Corrupting any part of a plan makes verification fail with a pointed message. */
static void test_verify_catches_corruption(void)
{
    kt_coo m;
    kt_coo_random(&m, 70, 50, 0.2, 8, NULL, 0);
    rt_csr a;
    rt_err err;
    RT_CHECK(kt_coo_to_csr(&m, &a, &err) == 0);
    for (int ell = 0; ell < 2; ++ell) {
        rt_tiled_plan pl;
        rt_tiled_params p = tparams(32, 8, 32, ell, ell ? 2 : 4);
        RT_CHECK(rt_tiled_plan_build(&a, &p, &pl, &err) == 0);
        RT_CHECK_MSG(rt_tiled_plan_verify(&pl, &a, &err) == 0, "%s", err.msg);
        /* The first real entry of stage 0, row 0. */
        const int64_t first = 0;
        const int64_t slot = ell ? pl.index16[first] : pl.index32[first];
        const double v = pl.value[first];

        pl.value[first] = v + 1.0;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "value") || rt_test_contains(err.msg, "missing"),
                     "%s", err.msg);
        pl.value[first] = v;

        const int64_t nslots = pl.mapdispl[1] - pl.mapdispl[0];
        if (ell)
            pl.index16[first] = (uint16_t)nslots;
        else
            pl.index32[first] = (int32_t)nslots;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "index"), "%s", err.msg);
        /* Pointing at another staged column: a column the row lacks, or a missing nonzero. */
        if (ell)
            pl.index16[first] = (uint16_t)((slot + 1) % nslots);
        else
            pl.index32[first] = (int32_t)((slot + 1) % nslots);
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        if (ell)
            pl.index16[first] = (uint16_t)slot;
        else
            pl.index32[first] = (int32_t)slot;

        const int32_t saved_map = pl.map[1];
        pl.map[1] = pl.map[0];
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "same column"), "%s", err.msg);
        pl.map[1] = 50;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "outside"), "%s", err.msg);
        pl.map[1] = saved_map;

        const int64_t saved_md = pl.mapdispl[1];
        pl.mapdispl[1] = pl.mapdispl[2] + 1;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        RT_CHECK_MSG(rt_test_contains(err.msg, "mapdispl"), "%s", err.msg);
        pl.mapdispl[1] = saved_md;

        const int64_t saved_bd = pl.buffdispl[1];
        pl.buffdispl[1] = pl.nstages + 1;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        pl.buffdispl[1] = saved_bd;

        RT_CHECK_MSG(rt_tiled_plan_verify(&pl, &a, &err) == 0, "restored: %s", err.msg);

        /* A matrix that differs in one value, or in shape, does not match the plan. */
        a.val[a.nnz - 1] += 0.5;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        a.val[a.nnz - 1] -= 0.5;
        a.rows -= 1;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        a.rows += 1;
        rt_tiled_plan_free(&pl);
    }
    /* A plan that loses a whole row's entries (CSR: its offsets collapsed) is caught. */
    {
        rt_tiled_plan pl;
        rt_tiled_params p = tparams(16, 1000, 32, 0, 4);
        RT_CHECK(rt_tiled_plan_build(&a, &p, &pl, &err) == 0);
        int64_t r = 0;
        while (a.rowptr[r + 1] == a.rowptr[r])
            ++r;
        /* Give row r's entries to row r+1 instead by moving the boundary between them. */
        const int64_t saved = pl.rowdispl[r + 1];
        pl.rowdispl[r + 1] = pl.rowdispl[r];
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) != 0);
        pl.rowdispl[r + 1] = saved;
        RT_CHECK(rt_tiled_plan_verify(&pl, &a, &err) == 0);
        rt_tiled_plan_free(&pl);
    }
    rt_csr_free(&a);
    kt_coo_free(&m);
}

/* Recomputes each block's footprint with a flag array and checks stage counts and map order. */
static void check_footprints(const rt_tiled_plan *pl, const rt_csr *a, const char *what)
{
    unsigned char *seen = calloc((size_t)(a->cols + 1), 1);
    int64_t total = 0;
    const int64_t bs = pl->p.block_size;
    for (int64_t b = 0; b < pl->nblocks; ++b) {
        memset(seen, 0, (size_t)(a->cols + 1));
        int64_t f = 0;
        const int64_t r1 = (b + 1) * bs < a->rows ? (b + 1) * bs : a->rows;
        for (int64_t e = a->rowptr[b * bs]; e < a->rowptr[r1]; ++e)
            if (!seen[a->colidx[e]]) {
                seen[a->colidx[e]] = 1;
                ++f;
            }
        total += f;
        const int64_t stages = pl->buffdispl[b + 1] - pl->buffdispl[b];
        RT_CHECK_MSG(stages == (f + pl->p.buffsize - 1) / pl->p.buffsize,
                     "%s block %lld: %lld stages for footprint %lld", what, (long long)b,
                     (long long)stages, (long long)f);
        const int64_t m0 = pl->mapdispl[pl->buffdispl[b]], m1 = pl->mapdispl[pl->buffdispl[b + 1]];
        for (int64_t i = m0 + 1; i < m1; ++i)
            RT_CHECK_MSG(pl->map[i - 1] < pl->map[i], "%s: footprint not increasing", what);
    }
    RT_CHECK(total == pl->nmap);
    free(seen);
}

static int64_t plan_slot(const rt_tiled_plan *pl, int64_t i)
{
    return pl->index16 ? (int64_t)pl->index16[i] : (int64_t)pl->index32[i];
}

/* bank_order = 1, checked from the plan alone: in every ELL row the entries that are not padding
 * read slots under distinct keys of their pass (bank_lanes 0/32: the whole warp, key slot mod 32;
 * 8: passes of 8 lanes, key slot mod 8), padding repeats a slot its pass reads (or, in a pass
 * without entries, one its row reads), and every slice is exactly as wide as its largest degree
 * (a lane's entries or a key's), the fewest rows any conflict-free order needs. Entries of value
 * 0 count as padding (the generators store no zeros). */
static void check_bank_order(const rt_tiled_plan *pl, const char *what)
{
    const int64_t ws = pl->p.warp_size;
    const int64_t lanes = pl->p.bank_lanes == 8 ? 8 : 32; /* per pass */
    for (int64_t w = 0; w < pl->nstages * pl->warps_per_block; ++w) {
        int64_t lane_count[64] = {0}, key_count[32] = {0}, degree = 0;
        for (int64_t m = pl->displ[w]; m < pl->displ[w + 1]; ++m) {
            int used[32] = {0}, any = 0, pass_reads[4] = {0};
            for (int64_t lane = 0; lane < ws; ++lane) {
                const int64_t i = m * ws + lane;
                if (pl->value[i] == 0.0)
                    continue;
                const int64_t pass = lanes == 8 ? lane / 8 : 0;
                const int64_t key = pass * lanes + plan_slot(pl, i) % lanes;
                RT_CHECK_MSG(!used[key], "%s: slice %lld row %lld reads key %lld twice", what,
                             (long long)w, (long long)m, (long long)key);
                used[key] = 1;
                any = 1;
                pass_reads[pass] = 1;
                ++lane_count[lane];
                ++key_count[key];
            }
            RT_CHECK_MSG(any, "%s: slice %lld row %lld holds only padding", what, (long long)w,
                         (long long)m);
            for (int64_t lane = 0; lane < ws; ++lane) {
                const int64_t i = m * ws + lane;
                if (pl->value[i] != 0.0)
                    continue;
                const int64_t pass = lanes == 8 ? lane / 8 : 0, slot = plan_slot(pl, i);
                int repeats = 0; /* a slot that a real entry of the pass (or row) reads */
                for (int64_t o = 0; o < ws; ++o) {
                    const int64_t j = m * ws + o, opass = lanes == 8 ? o / 8 : 0;
                    if (pl->value[j] != 0.0 && plan_slot(pl, j) == slot &&
                        (opass == pass || !pass_reads[pass]))
                        repeats = 1;
                }
                RT_CHECK_MSG(repeats,
                             "%s: padding of slice %lld row %lld lane %lld reads a slot no entry "
                             "of its pass reads",
                             what, (long long)w, (long long)m, (long long)lane);
            }
        }
        for (int k = 0; k < 64 && k < ws; ++k)
            degree = lane_count[k] > degree ? lane_count[k] : degree;
        for (int k = 0; k < 32; ++k)
            degree = key_count[k] > degree ? key_count[k] : degree;
        RT_CHECK_MSG(pl->displ[w + 1] - pl->displ[w] == degree,
                     "%s: slice %lld has %lld ELL rows for a largest degree of %lld", what,
                     (long long)w, (long long)(pl->displ[w + 1] - pl->displ[w]), (long long)degree);
    }
}

static void plan_sweep(const rt_csr *a, const char *what)
{
    const int blocks_ell[] = {32, 64, 256};
    const int blocks_csr[] = {1, 7, 32, 100};
    const int64_t buffs[] = {1, 7, 64, 4096};
    int built = 0;
    for (int ell = 0; ell < 2; ++ell)
        for (int bi = 0; bi < (ell ? 3 : 4); ++bi)
            for (int fi = 0; fi < 4; ++fi)
                for (int ib = 2; ib <= 4; ib += 2) {
                    const int bs = ell ? blocks_ell[bi] : blocks_csr[bi];
                    rt_tiled_params p = tparams(bs, buffs[fi], 32, ell, ib);
                    rt_tiled_plan pl;
                    rt_err err;
                    if (rt_tiled_plan_build(a, &p, &pl, &err) != 0) {
                        RT_CHECK_MSG(0, "%s bs=%d buff=%lld ell=%d: %s", what, bs,
                                     (long long)buffs[fi], ell, err.msg);
                        continue;
                    }
                    RT_CHECK_MSG(rt_tiled_plan_verify(&pl, a, &err) == 0,
                                 "%s bs=%d buff=%lld ell=%d ib=%d: %s", what, bs,
                                 (long long)buffs[fi], ell, ib, err.msg);
                    check_footprints(&pl, a, what);
                    rt_metrics m;
                    rt_metrics_init(&m);
                    rt_tiled_plan_metrics(&pl, &m);
                    const double pad = rt_metrics_get(&m, "padding_overhead")->value;
                    RT_CHECK(ell ? pad >= 0.0 : pad == 0.0);
                    RT_CHECK(a->nnz == 0 || rt_metrics_get(&m, "reuse_factor")->value >= 1.0);
                    RT_CHECK(rt_metrics_get(&m, "stages_per_block_max")->value >=
                             rt_metrics_get(&m, "stages_per_block_avg")->value);
                    /* The same plan ordered by banks (4-byte and 16-byte passes): same stages
                     * and map, entries moved. */
                    for (int lanes = 32; ell && lanes >= 8; lanes -= 24) {
                        rt_tiled_params pb = p;
                        pb.bank_order = 1;
                        pb.bank_lanes = lanes;
                        rt_tiled_plan bank;
                        if (rt_tiled_plan_build(a, &pb, &bank, &err) != 0) {
                            RT_CHECK_MSG(0, "%s bs=%d buff=%lld banks/%d: %s", what, bs,
                                         (long long)buffs[fi], lanes, err.msg);
                        } else {
                            RT_CHECK_MSG(rt_tiled_plan_verify(&bank, a, &err) == 0,
                                         "%s bs=%d buff=%lld ib=%d banks: %s", what, bs,
                                         (long long)buffs[fi], ib, err.msg);
                            RT_CHECK(bank.nmap == pl.nmap && bank.nstages == pl.nstages);
                            RT_CHECK(bank.stored >= pl.stored);
                            check_bank_order(&bank, what);
                            ++built;
                        }
                        rt_tiled_plan_free(&bank);
                    }
                    rt_tiled_plan_free(&pl);
                    ++built;
                }
    /* (3 ELL + 4 CSR block sizes) x 4 buffers x 2 widths, plus the ELL plans ordered by banks
     * in passes of 32 and of 8 lanes */
    RT_CHECK(built == (3 + 4) * 4 * 2 + 3 * 4 * 2 * 2);
}

static int cmp_i32(const void *x, const void *y)
{
    const int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* The plan of bank_order = 0 as the method describes it (spmm_tiled.h), built the plain way: per
 * block its footprint sorted with qsort, cut into stages of buffsize; per row its nonzeros in A's
 * order at (stage, next free place); ELL slices as wide as their longest row in the stage, the
 * rest padding (value 0, index 0). Every array of pl is checked against it. */
static void check_against_reference(const rt_tiled_plan *pl, const rt_csr *a, const char *what)
{
    const int64_t bs = pl->p.block_size, ws = pl->p.warp_size, buff = pl->p.buffsize;
    const int64_t wpb = pl->p.use_ell ? bs / ws : 0;
    int bad = 0;
    RT_CHECK(pl->nblocks == (a->rows + bs - 1) / bs);
    unsigned char *seen = calloc((size_t)(pl->stored > 0 ? pl->stored : 1), 1);
    int32_t *fp = malloc((size_t)(a->nnz > 0 ? a->nnz : 1) * sizeof *fp);
    int64_t s_glob = 0, m_glob = 0;
    for (int64_t b = 0; b < pl->nblocks && !bad; ++b) {
        const int64_t r0 = b * bs, r1 = r0 + bs < a->rows ? r0 + bs : a->rows;
        const int64_t e0 = a->rowptr[r0], e1 = a->rowptr[r1];
        int64_t nfp = 0;
        for (int64_t e = e0; e < e1; ++e)
            fp[nfp++] = a->colidx[e];
        qsort(fp, (size_t)nfp, sizeof *fp, cmp_i32);
        int64_t u = 0;
        for (int64_t i = 0; i < nfp; ++i)
            if (u == 0 || fp[u - 1] != fp[i])
                fp[u++] = fp[i];
        nfp = u;
        const int64_t nst = (nfp + buff - 1) / buff;
        bad |= pl->buffdispl[b] != s_glob || pl->buffdispl[b + 1] != s_glob + nst;
        for (int64_t st = 0; st < nst && !bad; ++st) {
            const int64_t slots = nfp - st * buff < buff ? nfp - st * buff : buff;
            bad |= pl->mapdispl[s_glob + st] != m_glob ||
                   pl->mapdispl[s_glob + st + 1] != m_glob + slots;
            for (int64_t i = 0; i < slots && !bad; ++i)
                bad |= pl->map[m_glob + i] != fp[st * buff + i];
            m_glob += slots;
        }
        /* Entries: each nonzero at its stage's next free place in its row. */
        int64_t *count = calloc((size_t)(nst > 0 ? nst : 1) * (size_t)bs, sizeof *count);
        for (int64_t r = r0; r < r1 && !bad; ++r)
            for (int64_t e = a->rowptr[r]; e < a->rowptr[r + 1] && !bad; ++e) {
                const int32_t *hit = bsearch(&a->colidx[e], fp, (size_t)nfp, sizeof *fp, cmp_i32);
                const int64_t slot = hit - fp, st = slot / buff, s = s_glob + st;
                const int64_t lr = r - r0, k = count[st * bs + lr]++;
                const int64_t dst = pl->p.use_ell
                                        ? (pl->displ[s * wpb + lr / ws] + k) * ws + lr % ws
                                        : pl->rowdispl[s * bs + lr] + k;
                bad |= dst < 0 || dst >= pl->stored || plan_slot(pl, dst) != slot % buff ||
                       pl->value[dst] != a->val[e];
                if (!bad)
                    seen[dst] = 1;
            }
        for (int64_t st = 0; st < nst && !bad; ++st) {
            const int64_t s = s_glob + st;
            const int64_t *c = count + st * bs;
            if (pl->p.use_ell)
                for (int64_t w = 0; w < wpb && !bad; ++w) {
                    int64_t width = 0;
                    for (int64_t lr = w * ws; lr < (w + 1) * ws; ++lr)
                        width = c[lr] > width ? c[lr] : width;
                    bad |= pl->displ[s * wpb + w + 1] - pl->displ[s * wpb + w] != width;
                }
            else
                for (int64_t lr = 0; lr < bs && !bad; ++lr)
                    bad |= pl->rowdispl[s * bs + lr + 1] - pl->rowdispl[s * bs + lr] != c[lr];
        }
        free(count);
        s_glob += nst;
    }
    bad |= pl->nstages != s_glob || pl->nmap != m_glob;
    for (int64_t i = 0; i < pl->stored && !bad; ++i)
        bad |= !seen[i] && (plan_slot(pl, i) != 0 || pl->value[i] != 0.0); /* padding */
    RT_CHECK_MSG(!bad, "%s bs=%d buff=%lld ell=%d ib=%d: not the reference plan", what,
                 pl->p.block_size, (long long)buff, pl->p.use_ell, pl->p.index_bytes);
    free(seen);
    free(fp);
}

/* Every array of two plans, byte for byte. */
static int same_plan(const rt_tiled_plan *x, const rt_tiled_plan *y)
{
    if (x->nblocks != y->nblocks || x->nstages != y->nstages || x->nmap != y->nmap ||
        x->stored != y->stored || x->max_stages != y->max_stages ||
        x->warps_per_block != y->warps_per_block || memcmp(&x->p, &y->p, sizeof x->p) != 0)
        return 0;
    const int64_t n_off =
        x->p.use_ell ? x->nstages * x->warps_per_block : x->nstages * x->p.block_size;
    const size_t ib = (size_t)x->p.index_bytes;
    return memcmp(x->buffdispl, y->buffdispl, (size_t)(x->nblocks + 1) * 8) == 0 &&
           memcmp(x->mapdispl, y->mapdispl, (size_t)(x->nstages + 1) * 8) == 0 &&
           memcmp(x->map, y->map, (size_t)x->nmap * 4) == 0 &&
           memcmp(x->p.use_ell ? x->displ : x->rowdispl, y->p.use_ell ? y->displ : y->rowdispl,
                  (size_t)(n_off + 1) * 8) == 0 &&
           memcmp(ib == 2 ? (const void *)x->index16 : (const void *)x->index32,
                  ib == 2 ? (const void *)y->index16 : (const void *)y->index32,
                  (size_t)x->stored * ib) == 0 &&
           memcmp(x->value, y->value, (size_t)x->stored * sizeof(double)) == 0;
}

static int same_footprints(const rt_tiled_footprints *x, const rt_tiled_footprints *y)
{
    return x->nblocks == y->nblocks && x->max_fp == y->max_fp &&
           memcmp(x->start, y->start, (size_t)(x->nblocks + 1) * 8) == 0 &&
           memcmp(x->fp, y->fp, (size_t)x->start[x->nblocks] * 4) == 0 &&
           memcmp(x->pos, y->pos, (size_t)x->nnz * 4) == 0;
}

/* One set of footprints per (matrix, block size), many plans from it, as a sweep over buffsize
 * builds them: each the reference plan (bank_order 0) or, ordered by banks, rt_tiled_plan_build's;
 * the footprints come out of it as they went in. */
static void footprint_sweep(const rt_csr *a, const char *what)
{
    const int blocks[] = {7, 32, 256};
    const int64_t buffs[] = {1, 64, 4096};
    rt_err err;
    int built = 0;
    for (int bi = 0; bi < 3; ++bi) {
        rt_tiled_footprints f, again;
        if (rt_tiled_footprints_build(a, blocks[bi], &f, &err) != 0) {
            RT_CHECK_MSG(0, "%s: footprints of %d rows: %s", what, blocks[bi], err.msg);
            continue;
        }
        for (int fi = 0; fi < 3; ++fi)
            for (int ell = 0; ell < 2; ++ell)
                for (int ib = 2; ib <= 4; ib += 2)
                    for (int lanes = 0; lanes <= 32; lanes += 8) {
                        if ((ell && blocks[bi] % 32) ||
                            (lanes && (!ell || (lanes != 8 && lanes != 32))))
                            continue; /* lanes 0 (A's order), 8 and 32 (banks), ELL only */
                        rt_tiled_params p = tparams(blocks[bi], buffs[fi], 32, ell, ib);
                        p.bank_order = lanes > 0;
                        p.bank_lanes = lanes;
                        rt_tiled_plan with, whole;
                        memset(&whole, 0, sizeof whole);
                        const int w = rt_tiled_plan_build_with(a, &p, &f, &with, &err);
                        RT_CHECK_MSG(w == 0, "%s: %s", what, err.msg);
                        if (w == 0 && !p.bank_order) {
                            check_against_reference(&with, a, what);
                            ++built;
                        } else if (w == 0) { /* no reference of its own: the whole build's */
                            RT_CHECK(rt_tiled_plan_build(a, &p, &whole, &err) == 0);
                            RT_CHECK_MSG(same_plan(&with, &whole), "%s bs=%d buff=%lld lanes=%d",
                                         what, blocks[bi], (long long)buffs[fi], lanes);
                            ++built;
                        }
                        rt_tiled_plan_free(&with);
                        rt_tiled_plan_free(&whole);
                    }
        RT_CHECK(rt_tiled_footprints_build(a, blocks[bi], &again, &err) == 0);
        RT_CHECK_MSG(same_footprints(&f, &again), "%s: footprints changed by their use", what);
        rt_tiled_footprints_free(&again);
        rt_tiled_footprints_free(&f);
    }
    /* CSR: 3 blocks x 3 buffers x 2 widths; ELL (blocks of 32, 256) also in 2 bank orders */
    RT_CHECK_MSG(built == 3 * 3 * 2 + 2 * 3 * 2 * 3, "%s: %d plans", what, built);
}

/* Footprints of another matrix or block size are refused by name; bad arguments too. */
static void test_footprints_refused(const rt_csr *a, const rt_csr *other)
{
    rt_err err;
    rt_tiled_footprints f;
    rt_tiled_plan pl;
    RT_CHECK(rt_tiled_footprints_build(a, 32, &f, &err) == 0);
    rt_tiled_params p = tparams(64, 16, 32, 1, 2);
    RT_CHECK(rt_tiled_plan_build_with(a, &p, &f, &pl, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "block_size 64"), "%s", err.msg);
    RT_CHECK(pl.map == NULL);
    p.block_size = 32;
    RT_CHECK(rt_tiled_plan_build_with(other, &p, &f, &pl, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "footprints of a"), "%s", err.msg);
    RT_CHECK(rt_tiled_plan_build_with(a, &p, NULL, &pl, &err) != 0);
    p.buffsize = 0; /* the parameters are checked as rt_tiled_plan_build checks them */
    RT_CHECK(rt_tiled_plan_build_with(a, &p, &f, &pl, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "buffsize"), "%s", err.msg);
    rt_tiled_footprints_free(&f);
    RT_CHECK(rt_tiled_footprints_build(a, 0, &f, &err) != 0);
    RT_CHECK_MSG(rt_test_contains(err.msg, "block_size"), "%s", err.msg);
    RT_CHECK(f.pos == NULL && f.fp == NULL);
    RT_CHECK(rt_tiled_footprints_build(NULL, 32, &f, &err) != 0);
    RT_CHECK(rt_tiled_footprints_build(a, 32, NULL, &err) != 0);
}

/* The fingerprint: the same pattern the same value, whatever the threads and the values; one
 * column index or one row offset changed, another value. */
static void test_fingerprint(rt_csr *a)
{
    omp_set_num_threads(1);
    const uint64_t h1 = rt_tiled_pattern_fingerprint(a);
    omp_set_num_threads(3);
    const uint64_t h3 = rt_tiled_pattern_fingerprint(a);
    omp_set_num_threads(2);
    RT_CHECK(h1 == h3);
    if (a->nnz < 2)
        return;
    a->val[0] += 1.0;
    RT_CHECK(rt_tiled_pattern_fingerprint(a) == h1);
    a->val[0] -= 1.0;
    const int32_t c = a->colidx[a->nnz - 1];
    a->colidx[a->nnz - 1] = c ^ 1;
    RT_CHECK(rt_tiled_pattern_fingerprint(a) != h1);
    a->colidx[a->nnz - 1] = c;
    const int64_t r = a->rowptr[1];
    a->rowptr[1] = r + 1;
    RT_CHECK(rt_tiled_pattern_fingerprint(a) != h1);
    a->rowptr[1] = r;
    RT_CHECK(rt_tiled_pattern_fingerprint(a) == h1);
}

typedef struct named_csr {
    char name[64];
    kt_coo coo; /* triplets, for the dense reference */
    rt_csr csr;
} named_csr;

/* Edge cases built by hand. */
static int edge_matrices(named_csr *t)
{
    int n = 0;
    rt_err err;
    const int64_t empty[] = {0, 1, 2, 40};
    snprintf(t[n].name, sizeof t[n].name, "empty-rows");
    kt_coo_random(&t[n].coo, 41, 30, 0.3, 3, empty, 4);
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "empty-tail"); /* last 50 rows hold nothing */
    {
        int64_t tail[50];
        for (int i = 0; i < 50; ++i)
            tail[i] = 20 + i;
        kt_coo_random(&t[n].coo, 70, 30, 0.3, 4, tail, 50);
    }
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "dense-row-wider-than-buffer");
    kt_coo_dense_row(&t[n].coo, 35, 5000, 33, 9, 4999, 1.5, 0, -1.5);
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "single-column");
    kt_coo_column(&t[n].coo, 100, 2, 0.01);
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "rows-not-multiple-of-block"); /* 333 rows */
    kt_coo_random(&t[n].coo, 333, 97, 0.05, 5, NULL, 0);
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "no-nonzeros");
    kt_coo_init(&t[n].coo, 50, 20);
    ++n;
    snprintf(t[n].name, sizeof t[n].name, "no-rows");
    kt_coo_init(&t[n].coo, 0, 20);
    ++n;
    for (int i = 0; i < n; ++i)
        if (kt_coo_to_csr(&t[i].coo, &t[i].csr, &err) != 0)
            fprintf(stderr, "%s: %s\n", t[i].name, err.msg);
    return n;
}

/* Generated matrices through the real input pipeline. */
static int generated_matrices(named_csr *t, int start)
{
    struct {
        const char *gen;
        const char *k1;
        int64_t v1;
        const char *k2;
        int64_t v2;
    } specs[] = {
        {"uniform", "rows", 1500, "nnz_per_row", 9}, {"banded", "rows", 2000, "bandwidth", 7},
        {"rmat", "scale", 10, "edge_factor", 8},     {"xct", "image", 24, "angles", 20},
        {"sparse_dnn", "neurons", 1024, "layer", 3},
    };
    int n = start;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i) {
        rt_params args;
        rt_err err;
        rt_params_init(&args);
        rt_params_set(&args, specs[i].k1, rt_value_int(specs[i].v1), &err);
        rt_params_set(&args, specs[i].k2, rt_value_int(specs[i].v2), &err);
        if (rt_matrix_build(specs[i].gen, &args, NULL, NULL, &t[n].csr, &err) != 0) {
            RT_CHECK_MSG(0, "generator %s: %s", specs[i].gen, err.msg);
            continue;
        }
        snprintf(t[n].name, sizeof t[n].name, "%s", specs[i].gen);
        kt_coo_from_csr(&t[n].coo, &t[n].csr);
        ++n;
    }
    return n;
}

static void test_plans(named_csr *mats, int n)
{
    for (int i = 0; i < n; ++i) {
        plan_sweep(&mats[i].csr, mats[i].name);
        footprint_sweep(&mats[i].csr, mats[i].name);
        test_fingerprint(&mats[i].csr);
    }
    test_footprints_refused(&mats[n - 1].csr, &mats[n - 2].csr);
}

static int tiled_points = 0;

static void test_tiled_kernel(named_csr *mats, int n)
{
    const rt_kernel_desc *k = rt_spmm_cpu_tiled_kernel();
    const int64_t ks[] = {1, 5, 33};
    struct {
        const char *staging;
        int64_t block_size, buffer_kib, register_tile, index_bytes;
    } combos[] = {
        {"ell", 32, 1, 1, 2}, {"ell", 64, 48, 8, 2},   {"ell", 256, 1, 3, 4},  {"csr", 32, 1, 8, 4},
        {"csr", 96, 2, 5, 2}, {"csr", 48, 228, 64, 4}, {"ell", 1024, 4, 2, 2},
    };
    for (int mi = 0; mi < n; ++mi)
        for (int ki = 0; ki < 3; ++ki)
            for (int prec = 0; prec < 2; ++prec)
                for (int lay = 0; lay < 2; ++lay) {
                    /* Generated matrices: a subset of shapes keeps the test quick. */
                    if (mats[mi].csr.nnz > 5000 && (ki == 2 || lay != prec))
                        continue;
                    rt_spmm_inputs *in = NULL;
                    rt_err err;
                    if (rt_spmm_inputs_create(&mats[mi].csr, ks[ki], (rt_precision)prec,
                                              (rt_layout)lay, 17, &in, &err) != 0) {
                        RT_CHECK_MSG(0, "%s: %s", mats[mi].name, err.msg);
                        continue;
                    }
                    const int64_t nout = mats[mi].csr.rows * ks[ki];
                    double *dense = malloc((size_t)(nout + 1) * sizeof *dense);
                    double *out = malloc((size_t)(nout + 1) * sizeof *out);
                    kt_dense_reference(&mats[mi].coo, &in->b, dense);
                    for (size_t c = 0; c < sizeof combos / sizeof combos[0]; ++c) {
                        rt_params p;
                        rt_params_init(&p);
                        rt_params_set(&p, "staging", rt_value_str(combos[c].staging), &err);
                        rt_params_set(&p, "block_size", rt_value_int(combos[c].block_size), &err);
                        rt_params_set(&p, "buffer_kib", rt_value_int(combos[c].buffer_kib), &err);
                        rt_params_set(&p, "register_tile", rt_value_int(combos[c].register_tile),
                                      &err);
                        rt_params_set(&p, "index_bytes", rt_value_int(combos[c].index_bytes), &err);
                        rt_metrics m;
                        rt_metrics_init(&m);
                        const int rc = kt_run_kernel(k, in, &p, out, &m, &err);
                        RT_CHECK_MSG(rc == 0, "%s combo %zu: %s", mats[mi].name, c, err.msg);
                        if (rc != 0)
                            continue;
                        const double rel = rt_spmm_rel_error(out, dense, nout);
                        RT_CHECK_MSG(rel <= rt_spmm_family()->tolerance(in),
                                     "%s K=%lld %s %s combo %zu: relative error %g", mats[mi].name,
                                     (long long)ks[ki], rt_precision_name(in->prec),
                                     rt_layout_name(in->layout), c, rel);
                        const rt_metric *pre = rt_metrics_get(&m, "preprocess_s");
                        RT_CHECK(pre && !pre->deterministic && pre->value >= 0.0);
                        const rt_metric *buff = rt_metrics_get(&m, "buffsize");
                        RT_CHECK(buff && buff->value ==
                                             (double)(combos[c].buffer_kib * 1024 /
                                                      (combos[c].register_tile * (prec ? 8 : 4))));
                        const rt_metric *staged = rt_metrics_get(&m, "staged_bytes");
                        const rt_metric *entries = rt_metrics_get(&m, "staged_entries");
                        RT_CHECK(staged && entries &&
                                 staged->value ==
                                     entries->value * (double)ks[ki] * (prec ? 8.0 : 4.0));
                        RT_CHECK(rt_metrics_get(&m, "padding_overhead") != NULL);
                        ++tiled_points;
                    }
                    free(dense);
                    free(out);
                    rt_spmm_inputs_destroy(in);
                }
}

/* Parameters the tiled kernel cannot run with, or that are not parameters at all. */
static void test_tiled_kernel_params(const rt_csr *a)
{
    const rt_kernel_desc *k = rt_spmm_cpu_tiled_kernel();
    rt_spmm_inputs *in = NULL;
    rt_err err;
    RT_CHECK(rt_spmm_inputs_create(a, 8, RT_FP32, RT_ROW_MAJOR, 1, &in, &err) == 0);
    if (!in)
        return;
    rt_kernel_env env;
    memset(&env, 0, sizeof env);
    rt_params p;
    rt_params_init(&p);
    rt_params_set(&p, "block_size", rt_value_int(48), &err); /* ELL needs whole warps */
    char why[256] = "";
    RT_CHECK(k->check(k, in, &p, &env, why, sizeof why, &err) == RT_INFEASIBLE);
    RT_CHECK_MSG(rt_test_contains(why, "block_size"), "%s", why);
    void *state = NULL;
    RT_CHECK(k->setup(k, in, &p, &env, &state, &err) == RT_INFEASIBLE && state == NULL);
    RT_CHECK(rt_test_contains(err.msg, "block_size"));
    rt_params_set(&p, "staging", rt_value_str("csr"), &err); /* fine with CSR staging */
    RT_CHECK(k->check(k, in, &p, &env, why, sizeof why, &err) == 0);

    struct {
        const char *name;
        rt_value v;
    } bad[] = {
        {"staging", rt_value_str("coo")},   {"staging", rt_value_int(1)},
        {"block_size", rt_value_int(16)},   {"block_size", rt_value_int(2048)},
        {"buffer_kib", rt_value_int(0)},    {"buffer_kib", rt_value_int(229)},
        {"register_tile", rt_value_int(0)}, {"register_tile", rt_value_int(65)},
        {"index_bytes", rt_value_int(3)},   {"index_bytes", rt_value_str("two")},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        rt_params_init(&p);
        rt_params_set(&p, bad[i].name, bad[i].v, &err);
        rt_err_clear(&err);
        RT_CHECK_MSG(k->check(k, in, &p, &env, why, sizeof why, &err) == -1, "%s", bad[i].name);
        RT_CHECK_MSG(k->setup(k, in, &p, &env, &state, &err) == -1 && state == NULL, "%s",
                     bad[i].name);
        RT_CHECK_MSG(rt_test_contains(err.msg, bad[i].name), "%s", err.msg);
    }
    rt_params_init(&p);
    rt_traffic t;
    RT_CHECK(k->traffic(k, in, &p, &env, &t, &err) == 0 && t.flops == 2.0 * (double)a->nnz * 8.0);
    rt_spmm_inputs_destroy(in);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int do_plan = strcmp(what, "kernel") != 0;
    const int do_kernel = strcmp(what, "plan") != 0;
    named_csr mats[16];
    int n = edge_matrices(mats);
    n = generated_matrices(mats, n);
    if (do_plan) {
        test_hand_plan();
        test_bad_params();
        test_verify_catches_corruption();
        test_plans(mats, n);
    }
    if (do_kernel) {
        test_tiled_kernel(mats, n);
        test_tiled_kernel_params(&mats[0].csr);
        printf("%d tiled kernel points verified\n", tiled_points);
        RT_CHECK(tiled_points > 500);
    }
    for (int i = 0; i < n; ++i) {
        rt_csr_free(&mats[i].csr);
        kt_coo_free(&mats[i].coo);
    }
    return RT_TEST_RESULT();
}
