/* spmm.cuda.tiled_tma on the host (kernels/spmm/spmm_tiled_tma_rules.h), no GPU needed:
 *   - the feasibility rules on an H100's limits: what runs, what is refused (column-major data,
 *     rows of B, C or the stage that are not 16-byte multiples, merged runs of partial rows,
 *     blocks, buffers, shared memory, compute capability), and that every refusal names its
 *     parameter;
 *   - the shared-memory layout the kernel assumes: buffers, C area and mbarriers in that order,
 *     every bulk-copy target 16-byte aligned, the barriers 8-byte aligned, the total what the
 *     host asks for;
 *   - the plans the kernel runs (Listing 1's, built for its consumer rows), on generated banded,
 *     stencil and XCT matrices: every stage's bytes fit its buffer and one mbarrier phase, and
 *     the producer's bulk copies (one per staged row, or runs of consecutive columns within
 *     32-slot windows) cover every staged row exactly once, each a 16-byte multiple, each run
 *     consecutive columns; runs merge on banded matrices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_util.h"
#include "rt_registry.h"
#include "rt_test.h"
#include "rt_test_device.h"
#include "spmm_tiled.h"
#include "spmm_tiled_tma_rules.h"

static rt_tiled_tma_config base(void)
{
    rt_tiled_tma_config c = {.block_size = 256,
                             .buffer_kib = 32,
                             .n_buffers = 3,
                             .producer = 1,
                             .blocks_per_sm = 1,
                             .register_tile = 8,
                             .merge_runs = 0,
                             .skew = 0,
                             .c_bulk = 0,
                             .tile_interleave = 0,
                             .index_bytes = 2,
                             .use_ell = 1,
                             .k = 32,
                             .elem = 4,
                             .row_major = 1};
    return c;
}

static void expect_refused(const rt_tiled_tma_config *c, const rt_device_info *dev,
                           const char *word, const char *label)
{
    char why[512] = "";
    const int rc = rt_tiled_tma_feasible(c, dev, why, sizeof why);
    RT_CHECK_MSG(rc == RT_INFEASIBLE, "%s: expected infeasible, got %d", label, rc);
    RT_CHECK_MSG(strstr(why, word) != NULL, "%s: reason '%s' lacks '%s'", label, why, word);
}

static void expect_runs(const rt_tiled_tma_config *c, const rt_device_info *dev, const char *label)
{
    char why[512] = "";
    const int rc = rt_tiled_tma_feasible(c, dev, why, sizeof why);
    RT_CHECK_MSG(rc == 0, "%s: expected feasible, got %d: %s", label, rc, why);
}

static void test_rules(void)
{
    const rt_device_info dev = rt_test_h100();
    rt_tiled_tma_config c = base();
    expect_runs(&c, &dev, "defaults");
    expect_runs(&c, NULL, "defaults, no device");

    /* Every flag and shape the bar's configs use. */
    static const int64_t ks[] = {32, 128};
    static const int64_t tiles[] = {4, 8, 16, 32, 64, 128};
    int ran = 0;
    for (size_t ki = 0; ki < 2; ++ki)
        for (size_t ti = 0; ti < sizeof tiles / sizeof tiles[0]; ++ti)
            for (int flags = 0; flags < 32; ++flags) {
                c = base();
                c.k = ks[ki];
                c.register_tile = tiles[ti];
                c.producer = flags & 1;
                c.merge_runs = (flags >> 1) & 1;
                c.skew = (flags >> 2) & 1;
                c.c_bulk = (flags >> 3) & 1;
                c.tile_interleave = (flags >> 4) & 1;
                c.buffer_kib = 48;
                c.n_buffers = 2;
                char why[512];
                const int rc = rt_tiled_tma_feasible(&c, &dev, why, sizeof why);
                if (c.merge_runs && c.register_tile != c.k) {
                    RT_CHECK_MSG(rc == RT_INFEASIBLE && strstr(why, "merge_runs"), "merge %s", why);
                    continue;
                }
                if (c.skew && c.register_tile == 4) {
                    RT_CHECK_MSG(rc == RT_INFEASIBLE && strstr(why, "skew"), "skew %s", why);
                    continue;
                }
                /* 2 x 48 KiB + a C area of 256 x register_tile floats fits 227 KiB up to 128. */
                RT_CHECK_MSG(rc == 0, "K=%lld tile %lld flags %d: %s", (long long)c.k,
                             (long long)c.register_tile, flags, why);
                ran += rc == 0;
            }
    RT_CHECK(ran > 100);

    c = base();
    c.row_major = 0;
    expect_refused(&c, &dev, "layout=col", "column-major");
    c = base();
    c.k = 6;
    expect_refused(&c, &dev, "K=6", "fp32 K off 4 values");
    c.elem = 8;
    c.register_tile = 2;
    expect_runs(&c, &dev, "fp64 K=6, tile 2");
    c = base();
    c.register_tile = 6;
    expect_refused(&c, &dev, "register_tile=6", "fp32 tile off 4 values");
    c.register_tile = 0;
    expect_refused(&c, &dev, "register_tile=0", "tile 0");
    c = base();
    c.merge_runs = 1;
    expect_refused(&c, &dev, "merge_runs=1", "merge with a partial row");
    c.register_tile = 32;
    expect_runs(&c, &dev, "merge with whole rows");
    c = base();
    c.register_tile = 4;
    c.skew = 1;
    expect_refused(&c, &dev, "skew=1", "skew of one chunk");
    c = base();
    c.block_size = 100;
    expect_refused(&c, &dev, "block_size=100", "partial warp");
    c.block_size = 1024;
    expect_refused(&c, &dev, "producer=1", "1024 consumers + producer");
    c.producer = 0;
    expect_runs(&c, &dev, "1024 consumers, no producer");
    c = base();
    c.n_buffers = 5;
    expect_refused(&c, &dev, "n_buffers=5", "five buffers");
    c.n_buffers = 0;
    expect_refused(&c, &dev, "n_buffers=0", "no buffer");
    c = base();
    c.producer = 2;
    expect_refused(&c, &dev, "producer=2", "producer 2");
    c = base();
    c.skew = -1;
    expect_refused(&c, &dev, "skew=-1", "skew -1");
    c = base();
    c.tile_interleave = 2;
    expect_refused(&c, &dev, "tile_interleave=2", "interleave 2");
    c = base();
    c.register_tile = 128;
    c.buffer_kib = 0;
    expect_refused(&c, &dev, "buffer_kib=0", "empty buffer");
    c = base();
    c.index_bytes = 3;
    expect_refused(&c, &dev, "index_bytes=3", "3-byte indices");
    c = base();
    c.register_tile = 4;
    c.elem = 4;
    /* Rows of at least 16 bytes in one phase's 2^20 - 1 bytes are fewer than 65536: 2-byte
     * indices always address a buffer the phase can count (the index rule stays as a guard). */
    c.buffer_kib = 1023;
    expect_runs(&c, NULL, "65472 slots of 16 bytes, 2-byte indices");
    c.buffer_kib = 1025; /* 1025 KiB: past the 2^20 - 1 bytes of a phase */
    expect_refused(&c, NULL, "mbarrier", "a stage past one phase's byte count");
    c = base();
    c.n_buffers = 4;
    c.buffer_kib = 57;
    expect_refused(&c, &dev, "n_buffers=4", "4 x 57 KiB past the opt-in");
    c.buffer_kib = 56;
    expect_runs(&c, &dev, "4 x 56 KiB");
    c.c_bulk = 1;
    expect_refused(&c, &dev, "c_store=bulk", "4 x 56 KiB + C area");
    c = base();
    c.blocks_per_sm = 3;
    c.buffer_kib = 25; /* 3 x (75 KiB + 48 bytes of barriers + 1 KiB reserved) > 228 KiB */
    expect_refused(&c, &dev, "blocks_per_sm=3", "three blocks' shared memory");
    c.buffer_kib = 24;
    expect_runs(&c, &dev, "three blocks of 3 x 24 KiB");
    c = base();
    c.blocks_per_sm = 4;
    c.buffer_kib = 4;
    c.block_size = 512;
    expect_refused(&c, &dev, "threads", "4 x 544 threads");
    rt_device_info ampere = dev;
    ampere.cc_major = 8;
    c = base();
    expect_refused(&c, &ampere, "compute capability 9.0", "sm_80");
}

static void test_layout(void)
{
    static const int64_t tiles[] = {2, 4, 8, 16, 32, 64, 128};
    for (int elem = 4; elem <= 8; elem += 4)
        for (size_t ti = 0; ti < sizeof tiles / sizeof tiles[0]; ++ti)
            for (int nb = 1; nb <= 4; ++nb)
                for (int cb = 0; cb < 2; ++cb)
                    for (int pr = 0; pr < 2; ++pr) {
                        rt_tiled_tma_config c = base();
                        c.elem = (size_t)elem;
                        c.register_tile = tiles[ti];
                        c.k = tiles[ti] * 3;
                        c.n_buffers = nb;
                        c.c_bulk = cb;
                        c.producer = pr;
                        c.buffer_kib = 5;
                        char why[512];
                        if (rt_tiled_tma_feasible(&c, NULL, why, sizeof why) != 0) {
                            RT_CHECK_MSG(elem == 4 && tiles[ti] == 2, "%s", why);
                            continue;
                        }
                        const rt_tiled_tma_layout l = rt_tiled_tma_layout_of(&c);
                        RT_CHECK(l.row_bytes == (size_t)tiles[ti] * (size_t)elem);
                        RT_CHECK(l.row_bytes % RT_TILED_TMA_ALIGN == 0);
                        RT_CHECK(l.buffsize == 5 * 1024 / (int64_t)l.row_bytes);
                        RT_CHECK(l.buffer_bytes <= 5 * 1024);
                        RT_CHECK(l.buffer_bytes % RT_TILED_TMA_ALIGN == 0);
                        RT_CHECK(l.c_offset == (size_t)nb * l.buffer_bytes);
                        RT_CHECK(l.c_offset % RT_TILED_TMA_ALIGN == 0);
                        RT_CHECK(l.c_bytes == (cb ? 256 * l.row_bytes : 0));
                        RT_CHECK(l.barrier_offset == l.c_offset + l.c_bytes);
                        RT_CHECK(l.barrier_offset % 8 == 0);
                        RT_CHECK(l.total == l.barrier_offset + (size_t)(16 * nb));
                        RT_CHECK(l.threads == 256 + 32 * pr);
                        /* A warp's C area (32 rows) starts 16-byte aligned: its bulk store. */
                        RT_CHECK((32 * l.row_bytes) % RT_TILED_TMA_ALIGN == 0);
                    }
}

/* The copies of one stage: cover map[0 .. n) once, in order, each a run of consecutive columns
 * inside one window, a 16-byte multiple of row_bytes. */
static void check_copies(const int32_t *map, int64_t n, int merge, size_t row_bytes, int64_t *runs,
                         int64_t *n_copies, const char *what)
{
    const int64_t copies = rt_tiled_tma_stage_copies(map, n, merge, runs);
    RT_CHECK_MSG(copies >= (n > 0) && copies <= n, "%s: %lld copies of %lld rows", what,
                 (long long)copies, (long long)n);
    int64_t at = 0;
    for (int64_t i = 0; i < copies; ++i) {
        RT_CHECK(runs[i] >= 1 && runs[i] <= RT_TILED_TMA_RUN_WINDOW);
        RT_CHECK(((size_t)runs[i] * row_bytes) % RT_TILED_TMA_ALIGN == 0);
        RT_CHECK_MSG(at / RT_TILED_TMA_RUN_WINDOW == (at + runs[i] - 1) / RT_TILED_TMA_RUN_WINDOW,
                     "%s: a run crosses a window", what);
        for (int64_t s = at + 1; s < at + runs[i]; ++s)
            RT_CHECK_MSG(map[s] == map[s - 1] + 1, "%s: a run of non-consecutive columns", what);
        /* Maximal: the next copy does not continue this one inside the window. */
        const int64_t end = at + runs[i];
        if (merge && end < n && end % RT_TILED_TMA_RUN_WINDOW != 0)
            RT_CHECK_MSG(map[end] != map[end - 1] + 1, "%s: a run split without need", what);
        if (!merge)
            RT_CHECK(runs[i] == 1);
        at = end;
    }
    RT_CHECK_MSG(at == n, "%s: copies cover %lld of %lld rows", what, (long long)at, (long long)n);
    *n_copies += copies;
}

static int build(const char *gen, const char *const *keys, const int64_t *vals, int n, rt_csr *a)
{
    rt_err err;
    if (kt_generate(gen, keys, vals, n, a, &err) != 0) {
        RT_CHECK_MSG(0, "generator %s: %s", gen, err.msg);
        return -1;
    }
    return 0;
}

static void test_plans(void)
{
    static const char *const banded_k[] = {"rows", "bandwidth"};
    static const int64_t banded_v[] = {3000, 16};
    static const char *const stencil_k[] = {"points", "nx", "ny", "nz"};
    static const int64_t stencil7_v[] = {7, 12, 11, 10};
    static const int64_t stencil27_v[] = {27, 10, 9, 8};
    static const char *const xct_k[] = {"image", "angles", "hilbert"};
    static const int64_t xct_v[] = {32, 24, 1};
    struct {
        const char *name, *gen;
        const char *const *keys;
        const int64_t *vals;
        int n;
        int runs_merge; /* consecutive staged columns are common: merging must save copies */
    } mats[] = {{"banded", "banded", banded_k, banded_v, 2, 1},
                {"stencil-7", "stencil", stencil_k, stencil7_v, 4, 1},
                {"stencil-27", "stencil", stencil_k, stencil27_v, 4, 1},
                {"xct-hilbert", "xct", xct_k, xct_v, 3, 0}};
    for (size_t m = 0; m < sizeof mats / sizeof mats[0]; ++m) {
        rt_csr a;
        if (build(mats[m].gen, mats[m].keys, mats[m].vals, mats[m].n, &a) != 0)
            continue;
        static const int64_t ks[] = {32, 128};
        for (size_t ki = 0; ki < 2; ++ki)
            for (int variant = 0; variant < 4; ++variant) {
                rt_tiled_tma_config c = base();
                c.k = ks[ki];
                c.register_tile = variant & 1 ? c.k : 8;
                c.use_ell = variant < 2;
                c.block_size = variant & 2 ? 128 : 256;
                c.buffer_kib = variant & 1 ? 16 : 2;
                c.merge_runs = c.register_tile == c.k;
                char why[512];
                RT_CHECK_MSG(rt_tiled_tma_feasible(&c, NULL, why, sizeof why) == 0, "%s", why);
                const rt_tiled_tma_layout l = rt_tiled_tma_layout_of(&c);
                rt_tiled_params tp = {.block_size = (int)c.block_size,
                                      .buffsize = l.buffsize,
                                      .warp_size = 32,
                                      .use_ell = c.use_ell,
                                      .index_bytes = (int)c.index_bytes};
                rt_tiled_plan plan;
                rt_err err;
                if (rt_tiled_plan_build(&a, &tp, &plan, &err) != 0) {
                    RT_CHECK_MSG(0, "%s plan: %s", mats[m].name, err.msg);
                    rt_tiled_plan_free(&plan);
                    continue;
                }
                RT_CHECK_MSG(rt_tiled_plan_verify(&plan, &a, &err) == 0, "%s: %s", mats[m].name,
                             err.msg);
                int64_t *runs = malloc((size_t)(l.buffsize > 0 ? l.buffsize : 1) * sizeof *runs);
                int64_t single = 0, merged = 0;
                char what[128];
                snprintf(what, sizeof what, "%s K=%lld variant %d", mats[m].name, (long long)c.k,
                         variant);
                for (int64_t s = 0; s < plan.nstages; ++s) {
                    const int64_t n = plan.mapdispl[s + 1] - plan.mapdispl[s];
                    const int32_t *map = plan.map + plan.mapdispl[s];
                    /* The bytes the full barrier expects fit the buffer and one phase. */
                    RT_CHECK(n >= 1 && n <= l.buffsize);
                    RT_CHECK((size_t)n * l.row_bytes <= l.buffer_bytes);
                    RT_CHECK((size_t)n * l.row_bytes <= RT_TILED_TMA_MAX_TX);
                    for (int64_t i = 1; i < n; ++i)
                        RT_CHECK(map[i] > map[i - 1]); /* ascending: runs are found by +1 */
                    check_copies(map, n, 0, l.row_bytes, runs, &single, what);
                    check_copies(map, n, 1, l.row_bytes, runs, &merged, what);
                }
                RT_CHECK(single == plan.nmap);
                RT_CHECK(merged <= single);
                if (mats[m].runs_merge && plan.nmap > 0)
                    RT_CHECK_MSG(merged * 2 < single, "%s: %lld merged copies of %lld rows", what,
                                 (long long)merged, (long long)single);
                free(runs);
                rt_tiled_plan_free(&plan);
            }
        rt_csr_free(&a);
    }

    /* Hand-made maps: windows cut runs, gaps end them. */
    int32_t map[70];
    int64_t runs[70], copies = 0;
    for (int i = 0; i < 70; ++i)
        map[i] = i < 40 ? 100 + i : 200 + 2 * i;
    check_copies(map, 70, 1, 16, runs, &copies, "hand");
    /* [0,32) one run, [32,40) one run, [40,64) 24 singles, [64,70) 6 singles. */
    RT_CHECK_MSG(copies == 2 + 24 + 6, "hand: %lld copies", (long long)copies);
    RT_CHECK(runs[0] == 32 && runs[1] == 8 && runs[2] == 1);
    RT_CHECK(rt_tiled_tma_stage_copies(map, 0, 1, NULL) == 0);
    RT_CHECK(rt_tiled_tma_stage_copies(map, 5, 0, NULL) == 5);
}

int main(void)
{
    test_rules();
    test_layout();
    test_plans();
    return RT_TEST_RESULT();
}
