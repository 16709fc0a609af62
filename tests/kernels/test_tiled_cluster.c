/* The Tiled SpMM plan of a thread-block cluster (kernels/spmm/spmm_tiled_cluster.h), no GPU:
 *   - the cluster's parameters (cluster x block_size rows, cluster x buffsize slots per stage),
 *     cluster 1 unchanged, bad clusters and 2-byte indices past 65536 cluster slots refused with
 *     the parameter named;
 *   - the share of a stage each rank stages: every cluster slot staged by exactly one rank, at a
 *     slot of its buffer within its share, and no share larger than one block's buffer;
 *   - the plans spmm.cuda.tiled_pipe runs with cluster 1, 2, 4 and 8, on generated banded, 7- and
 *     27-point stencil, Hilbert XCT and random matrices, ELL and CSR: the plan verifies; with
 *     cluster 1 it is today's plan array for array; every nonzero of every rank's rows reads a
 *     slot its owner stages; a cluster's stages stage each B row once (its footprint is the union
 *     of its blocks'); no cluster walks more stages than its blocks' longest walk alone; the
 *     staged rows never grow with the cluster and shrink on the banded and stencil matrices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_util.h"
#include "rt_test.h"
#include "spmm_tiled.h"
#include "spmm_tiled_cluster.h"

static const int64_t clusters[] = {1, 2, 4, 8};

static void test_params(void)
{
    const rt_tiled_params b = {
        .block_size = 256, .buffsize = 1536, .warp_size = 32, .use_ell = 1, .index_bytes = 2};
    rt_tiled_params out;
    rt_err err;
    for (size_t i = 0; i < sizeof clusters / sizeof clusters[0]; ++i) {
        memset(&out, 0x5a, sizeof out);
        RT_CHECK_MSG(rt_tiled_cluster_params(&b, clusters[i], &out, &err) == 0, "%s", err.msg);
        RT_CHECK(out.block_size == b.block_size * clusters[i]);
        RT_CHECK(out.buffsize == b.buffsize * clusters[i]);
        RT_CHECK(out.warp_size == b.warp_size && out.use_ell == b.use_ell &&
                 out.index_bytes == b.index_bytes && out.bank_order == b.bank_order &&
                 out.bank_lanes == b.bank_lanes);
    }
    RT_CHECK(rt_tiled_cluster_params(&b, 1, &out, &err) == 0 && memcmp(&out, &b, sizeof b) == 0);
    static const int64_t bad[] = {0, 3, 16, -2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char want[32];
        snprintf(want, sizeof want, "cluster=%lld", (long long)bad[i]);
        RT_CHECK(rt_tiled_cluster_params(&b, bad[i], &out, &err) != 0);
        RT_CHECK_MSG(strstr(err.msg, want) != NULL, "'%s' lacks '%s'", err.msg, want);
    }
    /* 2-byte indices: 16384 slots a block, 4 blocks address 65536 (fine), 8 do not. */
    rt_tiled_params big = b;
    big.buffsize = 16384;
    RT_CHECK(rt_tiled_cluster_params(&big, 4, &out, &err) == 0 && out.buffsize == 65536);
    RT_CHECK(rt_tiled_cluster_params(&big, 8, &out, &err) != 0);
    RT_CHECK_MSG(strstr(err.msg, "cluster=8") && strstr(err.msg, "index_bytes=2"), "%s", err.msg);
    big.index_bytes = 4;
    RT_CHECK(rt_tiled_cluster_params(&big, 8, &out, &err) == 0 && out.buffsize == 131072);
    rt_tiled_params empty = b;
    empty.buffsize = 0;
    RT_CHECK(rt_tiled_cluster_params(&empty, 2, &out, &err) != 0);
}

/* Every slot of a stage of mapnz slots is staged by exactly one rank, at local slot * cluster +
 * rank, within that rank's share; the shares add up to mapnz and differ by at most one. */
static void test_shares(void)
{
    for (size_t ci = 0; ci < sizeof clusters / sizeof clusters[0]; ++ci) {
        const int64_t c = clusters[ci];
        for (int64_t mapnz = 0; mapnz <= 70; ++mapnz) {
            int seen[70] = {0};
            int64_t total = 0, lo = mapnz, hi = 0;
            for (int64_t r = 0; r < c; ++r) {
                const int64_t share = rt_tiled_cluster_share(mapnz, r, c);
                total += share;
                lo = share < lo ? share : lo;
                hi = share > hi ? share : hi;
                for (int64_t l = 0; l < share; ++l) {
                    const int64_t slot = l * c + r;
                    RT_CHECK(slot < mapnz);
                    if (slot < mapnz) {
                        ++seen[slot];
                        RT_CHECK(rt_tiled_cluster_owner(slot, c) == r);
                        RT_CHECK(rt_tiled_cluster_local(slot, c) == l);
                    }
                }
            }
            RT_CHECK_MSG(total == mapnz, "cluster %lld mapnz %lld: shares add to %lld",
                         (long long)c, (long long)mapnz, (long long)total);
            RT_CHECK(hi - lo <= 1);
            for (int64_t i = 0; i < mapnz; ++i)
                RT_CHECK_MSG(seen[i] == 1, "cluster %lld mapnz %lld: slot %lld staged %d times",
                             (long long)c, (long long)mapnz, (long long)i, seen[i]);
        }
    }
}

static int64_t entry_index(const rt_tiled_plan *p, int64_t e)
{
    return p->index16 ? (int64_t)p->index16[e] : (int64_t)p->index32[e];
}

/* The entries of rank r's row t (0 .. block_size) in stage s of cluster plan p: ELL (the slice of
 * the rank's warp, the row's lane, padding included: it reads a slot too) or CSR. */
static void rank_row_entries(const rt_tiled_plan *p, int64_t block_size, int64_t cluster, int64_t s,
                             int64_t r, int64_t t, int64_t *first, int64_t *count, int64_t *step)
{
    if (p->p.use_ell) {
        const int64_t w =
            s * p->warps_per_block + r * (block_size / p->p.warp_size) + t / p->p.warp_size;
        *first = p->displ[w] * p->p.warp_size + t % p->p.warp_size;
        *count = p->displ[w + 1] - p->displ[w];
        *step = p->p.warp_size;
    } else {
        const int64_t row = s * block_size * cluster + r * block_size + t;
        *first = p->rowdispl[row];
        *count = p->rowdispl[row + 1] - p->rowdispl[row];
        *step = 1;
    }
}

/* What the kernel assumes of cluster plan p (blocks of block_size rows, buffsize slots each). */
static void check_cluster_plan(const rt_tiled_plan *p, int64_t block_size, int64_t buffsize,
                               int64_t c, int32_t *last_seen, const char *what)
{
    for (int64_t b = 0; b < p->nblocks; ++b) {
        for (int64_t s = p->buffdispl[b]; s < p->buffdispl[b + 1]; ++s) {
            const int64_t m0 = p->mapdispl[s], mapnz = p->mapdispl[s + 1] - m0;
            for (int64_t r = 0; r < c; ++r)
                RT_CHECK_MSG(rt_tiled_cluster_share(mapnz, r, c) <= buffsize,
                             "%s: stage %lld gives rank %lld more than a buffer", what,
                             (long long)s, (long long)r);
            /* Each B row once per cluster: a column seen in an earlier stage of this cluster (or
             * earlier in this stage) would be staged twice. */
            for (int64_t i = 0; i < mapnz; ++i) {
                const int32_t col = p->map[m0 + i];
                RT_CHECK_MSG(last_seen[col] != (int32_t)b,
                             "%s: cluster %lld stages column %d twice", what, (long long)b, col);
                last_seen[col] = (int32_t)b;
            }
            for (int64_t r = 0; r < c; ++r)
                for (int64_t t = 0; t < block_size; ++t) {
                    int64_t e, n, step;
                    rank_row_entries(p, block_size, c, s, r, t, &e, &n, &step);
                    for (int64_t k = 0; k < n; ++k, e += step) {
                        const int64_t idx = entry_index(p, e);
                        const int64_t owner = rt_tiled_cluster_owner(idx, c);
                        const int64_t local = rt_tiled_cluster_local(idx, c);
                        RT_CHECK_MSG(idx < mapnz, "%s: slot %lld of a stage of %lld", what,
                                     (long long)idx, (long long)mapnz);
                        RT_CHECK_MSG(local < rt_tiled_cluster_share(mapnz, owner, c),
                                     "%s: slot %lld is not staged by its owner %lld", what,
                                     (long long)idx, (long long)owner);
                    }
                }
        }
    }
}

/* Plan a with blocks of block_size rows and buffsize slots, as one block (cluster 1) and in
 * clusters; returns the cluster plan's staged rows (nmap), -1 on failure. */
static int64_t plan_case(const rt_csr *a, const rt_tiled_params *bp, int64_t c,
                         const rt_tiled_plan *alone, int32_t *last_seen, const char *what)
{
    rt_tiled_params cp;
    rt_err err;
    if (rt_tiled_cluster_params(bp, c, &cp, &err) != 0) {
        RT_CHECK_MSG(0, "%s: %s", what, err.msg);
        return -1;
    }
    rt_tiled_plan p;
    if (rt_tiled_plan_build(a, &cp, &p, &err) != 0) {
        RT_CHECK_MSG(0, "%s plan: %s", what, err.msg);
        rt_tiled_plan_free(&p);
        return -1;
    }
    RT_CHECK_MSG(rt_tiled_plan_verify(&p, a, &err) == 0, "%s: %s", what, err.msg);
    RT_CHECK(p.nblocks == (a->rows + cp.block_size - 1) / cp.block_size);
    for (int64_t i = 0; i < a->cols; ++i)
        last_seen[i] = -1;
    check_cluster_plan(&p, bp->block_size, bp->buffsize, c, last_seen, what);
    /* A cluster's window is c buffers over at most c footprints: never more stages than its
     * longest block alone. */
    RT_CHECK_MSG(p.max_stages <= alone->max_stages, "%s: %lld stages, alone %lld", what,
                 (long long)p.max_stages, (long long)alone->max_stages);
    RT_CHECK(p.nmap <= alone->nmap);
    if (c == 1) {
        /* Today's plan, array for array. */
        const size_t n_entries = (size_t)p.stored;
        RT_CHECK(p.nstages == alone->nstages && p.nmap == alone->nmap &&
                 p.stored == alone->stored && p.nblocks == alone->nblocks);
        if (p.nstages == alone->nstages && p.nmap == alone->nmap && p.stored == alone->stored &&
            p.nblocks == alone->nblocks) {
            RT_CHECK(memcmp(p.buffdispl, alone->buffdispl,
                            (size_t)(p.nblocks + 1) * sizeof *p.buffdispl) == 0);
            RT_CHECK(memcmp(p.mapdispl, alone->mapdispl,
                            (size_t)(p.nstages + 1) * sizeof *p.mapdispl) == 0);
            RT_CHECK(memcmp(p.map, alone->map, (size_t)p.nmap * sizeof *p.map) == 0);
            RT_CHECK(memcmp(p.value, alone->value, n_entries * sizeof *p.value) == 0);
            if (p.index16)
                RT_CHECK(memcmp(p.index16, alone->index16, n_entries * sizeof *p.index16) == 0);
            else
                RT_CHECK(memcmp(p.index32, alone->index32, n_entries * sizeof *p.index32) == 0);
            if (p.displ)
                RT_CHECK(memcmp(p.displ, alone->displ,
                                (size_t)(p.nstages * p.warps_per_block + 1) * sizeof *p.displ) ==
                         0);
            else
                RT_CHECK(memcmp(p.rowdispl, alone->rowdispl,
                                (size_t)(p.nstages * bp->block_size + 1) * sizeof *p.rowdispl) ==
                         0);
        }
    }
    const int64_t nmap = p.nmap;
    rt_tiled_plan_free(&p);
    return nmap;
}

static void test_plans(void)
{
    /* Generated matrices (generator, its integer arguments) and a random one (gen NULL). */
    static const struct {
        const char *name, *gen;
        int n;
        const char *keys[4];
        int64_t vals[4];
        int shared_rows;   /* neighbouring blocks share B rows: a cluster must stage fewer */
        int64_t staged[4]; /* variant 0's staged rows with cluster 1, 2, 4, 8 (quoted in
                              docs/families/spmm-hopper.md); 0: not checked */
    } mats[] = {
        {"banded", "banded", 2, {"rows", "bandwidth"}, {5000, 16}, 1, {5585, 5285, 5135, 5060}},
        {"stencil-7",
         "stencil",
         4,
         {"points", "nx", "ny", "nz"},
         {7, 12, 11, 10},
         1,
         {3778, 2468, 1848, 1584}},
        {"stencil-27",
         "stencil",
         4,
         {"points", "nx", "ny", "nz"},
         {27, 10, 9, 8},
         1,
         {1708, 1124, 922, 720}},
        {"xct-hilbert", "xct", 3, {"image", "angles", "hilbert"}, {32, 24, 1}, 0, {0}},
        {"random", NULL, 0, {NULL}, {0}, 0, {0}}};
    for (size_t m = 0; m < sizeof mats / sizeof mats[0]; ++m) {
        rt_csr a;
        rt_err err;
        if (mats[m].gen) {
            if (kt_generate(mats[m].gen, mats[m].keys, mats[m].vals, mats[m].n, &a, &err) != 0) {
                RT_CHECK_MSG(0, "generator %s: %s", mats[m].gen, err.msg);
                continue;
            }
        } else {
            kt_coo coo;
            kt_coo_random(&coo, 1999, 777, 0.01, 17, NULL, 0);
            const int rc = kt_coo_to_csr(&coo, &a, &err);
            kt_coo_free(&coo);
            if (rc != 0) {
                RT_CHECK_MSG(0, "random: %s", err.msg);
                continue;
            }
        }
        int32_t *last_seen = malloc((size_t)(a.cols > 0 ? a.cols : 1) * sizeof *last_seen);
        for (int variant = 0; variant < 4; ++variant) {
            /* Small buffers: many stages per block, a short last stage, uneven shares. */
            const rt_tiled_params bp = {.block_size = variant & 1 ? 96 : 128,
                                        .buffsize = variant & 2 ? 61 : 256,
                                        .warp_size = 32,
                                        .use_ell = !(variant & 1),
                                        .index_bytes = variant & 2 ? 2 : 4};
            rt_tiled_plan alone;
            if (rt_tiled_plan_build(&a, &bp, &alone, &err) != 0) {
                RT_CHECK_MSG(0, "%s plan: %s", mats[m].name, err.msg);
                rt_tiled_plan_free(&alone);
                continue;
            }
            int64_t nmap[4] = {0};
            for (size_t ci = 0; ci < sizeof clusters / sizeof clusters[0]; ++ci) {
                char what[160];
                snprintf(what, sizeof what, "%s variant %d cluster %lld", mats[m].name, variant,
                         (long long)clusters[ci]);
                nmap[ci] = plan_case(&a, &bp, clusters[ci], &alone, last_seen, what);
            }
            if (mats[m].shared_rows)
                for (size_t ci = 1; ci < 4; ++ci)
                    RT_CHECK_MSG(nmap[ci] < nmap[ci - 1],
                                 "%s variant %d: cluster %lld stages %lld rows, %lld before",
                                 mats[m].name, variant, (long long)clusters[ci],
                                 (long long)nmap[ci], (long long)nmap[ci - 1]);
            if (variant == 0 && mats[m].staged[0] > 0)
                for (size_t ci = 0; ci < 4; ++ci)
                    RT_CHECK_MSG(nmap[ci] == mats[m].staged[ci],
                                 "%s cluster %lld: %lld staged rows, the docs say %lld",
                                 mats[m].name, (long long)clusters[ci], (long long)nmap[ci],
                                 (long long)mats[m].staged[ci]);
            if (variant == 0)
                printf("%s (%lld x %lld): staged rows with cluster 1, 2, 4, 8: %lld %lld %lld "
                       "%lld\n",
                       mats[m].name, (long long)a.rows, (long long)a.cols, (long long)nmap[0],
                       (long long)nmap[1], (long long)nmap[2], (long long)nmap[3]);
            rt_tiled_plan_free(&alone);
        }
        free(last_seen);
        rt_csr_free(&a);
    }
}

int main(void)
{
    test_params();
    test_shares();
    test_plans();
    return RT_TEST_RESULT();
}
