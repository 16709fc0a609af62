/* The feasibility rules of spmm.cuda.tiled_pipe (kernels/spmm/spmm_tiled_pipe_rules.h) on an
 * H100's limits: what runs, what is refused, and that every refusal names its parameters. */
#include <stdio.h>
#include <string.h>

#include "rt_registry.h"
#include "rt_test.h"
#include "rt_test_device.h"
#include "spmm_tiled_pipe_rules.h"

static rt_tiled_pipe_config base(void)
{
    rt_tiled_pipe_config c = {.block_size = 1024,
                              .buffer_kib = 48,
                              .n_buffers = 2,
                              .blocks_per_sm = 1,
                              .register_tile = 8,
                              .stage_split = 1,
                              .vector = 0,
                              .index_bytes = 2,
                              .warp_rows = 0,
                              .lane_values = 1,
                              .skew = 0,
                              .swizzle = 0,
                              .tile_interleave = 0,
                              .cluster = 1,
                              .use_ell = 1,
                              .k = 32,
                              .elem = 4,
                              .row_major = 1};
    return c;
}

/* Expects RT_INFEASIBLE with every word of `words` (NULL-terminated) in the reason. */
static void expect_refused(const rt_tiled_pipe_config *c, const rt_device_info *dev,
                           const char *const *words, const char *label)
{
    char why[512] = "";
    const int rc = rt_tiled_pipe_feasible(c, dev, why, sizeof why);
    RT_CHECK_MSG(rc == RT_INFEASIBLE, "%s: expected infeasible, got %d", label, rc);
    for (int i = 0; words[i]; ++i)
        RT_CHECK_MSG(strstr(why, words[i]) != NULL, "%s: reason '%s' lacks '%s'", label, why,
                     words[i]);
}

static void expect_runs(const rt_tiled_pipe_config *c, const rt_device_info *dev, const char *label)
{
    char why[512] = "";
    const int rc = rt_tiled_pipe_feasible(c, dev, why, sizeof why);
    RT_CHECK_MSG(rc == 0, "%s: expected feasible, got %d (%s)", label, rc, why);
}

int main(void)
{
    const rt_device_info dev = rt_test_h100();
    rt_tiled_pipe_config c = base();

    /* Sizes: 48 KiB of fp32 rows 8 wide is 1536 slots per buffer, two buffers 96 KiB. */
    RT_CHECK(rt_tiled_pipe_buffsize(&c) == 1536);
    RT_CHECK(rt_tiled_pipe_dynamic_shared(&c) == 2u * 48u * 1024u);
    RT_CHECK(rt_tiled_pipe_vector_width(&c) == 4);
    expect_runs(&c, &dev, "defaults");

    /* Listing 1's best H100 shape (one 227 KiB buffer) still runs; two of them do not fit. */
    c.n_buffers = 1;
    c.buffer_kib = 227;
    expect_runs(&c, &dev, "one 227 KiB buffer");
    c.n_buffers = 2;
    expect_refused(&c, &dev, (const char *const[]){"n_buffers=2", "buffer_kib=227", "opt-in", NULL},
                   "two 227 KiB buffers");
    /* Without a device only the shape rules apply (validate on a laptop). */
    expect_runs(&c, NULL, "two 227 KiB buffers, no device");

    /* Two blocks per SM: two buffers of 56 KiB each fit (2 x (112 KiB + 1 KiB reserved) of
     * 228 KiB), 57 KiB do not; three 1024-thread blocks exceed 2048 threads. */
    c = base();
    c.blocks_per_sm = 2;
    c.buffer_kib = 56;
    expect_runs(&c, &dev, "2 blocks x 2 x 56 KiB");
    c.buffer_kib = 57;
    expect_refused(&c, &dev,
                   (const char *const[]){"blocks_per_sm=2", "buffer_kib=57", "an SM has", NULL},
                   "2 blocks x 2 x 57 KiB");
    c.buffer_kib = 16;
    c.blocks_per_sm = 3;
    expect_refused(&c, &dev, (const char *const[]){"blocks_per_sm=3", "block_size=1024", NULL},
                   "3 blocks of 1024 threads");
    c.block_size = 512;
    c.blocks_per_sm = 4;
    expect_runs(&c, &dev, "4 blocks of 512 threads");

    /* Vectors: row-major only, register tile and K multiples of 4 (fp32) or 2 (fp64). */
    c = base();
    c.vector = 1;
    expect_runs(&c, &dev, "vector fp32 K=32 tile 8");
    c.vector = 2;
    expect_runs(&c, &dev, "vector stores fp32 K=32 tile 8");
    c.row_major = 0;
    expect_refused(&c, &dev, (const char *const[]){"vector=2", "row-major", NULL},
                   "vector stores col-major");
    c.vector = 1;
    expect_refused(&c, &dev, (const char *const[]){"vector=1", "row-major", NULL},
                   "vector col-major");
    c.row_major = 1;
    c.k = 30;
    expect_refused(&c, &dev, (const char *const[]){"K=30", "multiples of 4", NULL},
                   "vector fp32 K=30");
    c.k = 32;
    c.register_tile = 6;
    expect_refused(&c, &dev, (const char *const[]){"register_tile=6", NULL}, "vector fp32 tile 6");
    c.elem = 8;
    RT_CHECK(rt_tiled_pipe_vector_width(&c) == 2);
    expect_runs(&c, &dev, "vector fp64 tile 6");
    c.k = 33;
    expect_refused(&c, &dev, (const char *const[]){"K=33", "multiples of 2", NULL},
                   "vector fp64 K=33");

    /* Shape rules. */
    c = base();
    c.block_size = 48;
    expect_refused(&c, &dev, (const char *const[]){"staging=ell", "block_size", "48", NULL},
                   "ELL partial warp");
    c.use_ell = 0;
    expect_runs(&c, &dev, "CSR 48 threads");
    c = base();
    c.buffer_kib = 0;
    expect_refused(&c, NULL, (const char *const[]){"buffer_kib=0", "buffsize 0", NULL},
                   "empty buffer");
    c = base();
    c.register_tile = 1;
    c.buffer_kib = 300; /* past the schema's domain: the rule itself still holds */
    expect_refused(&c, NULL, (const char *const[]){"index_bytes=2", "76800", NULL},
                   "2-byte indices over 65536 slots");
    c.index_bytes = 4;
    expect_runs(&c, NULL, "4-byte indices");
    c = base();
    c.stage_split = 0;
    expect_refused(&c, NULL, (const char *const[]){"stage_split=0", NULL}, "stage_split 0");

    /* The warp mapping: a block of 1024 threads and 16 rows per warp covers 512 rows of A; a
     * thread per row covers block_size rows. */
    c = base();
    RT_CHECK(rt_tiled_pipe_plan_rows(&c) == 1024);
    c.lane_values = 4;
    expect_refused(&c, &dev, (const char *const[]){"lane_values=4", "warp_rows=0", NULL},
                   "lane_values without the warp mapping");
    c.warp_rows = 16;
    c.register_tile = 32;
    RT_CHECK(rt_tiled_pipe_plan_rows(&c) == 512);
    expect_refused(&c, &dev, (const char *const[]){"warp_rows=16", "staging=csr", NULL},
                   "warp mapping with ELL staging");
    c.use_ell = 0;
    expect_runs(&c, &dev, "warp mapping, tile 32, 4 values per lane");
    c.vector = 1;
    expect_runs(&c, &dev, "warp mapping with 16-byte copies");
    c.vector = 2;
    expect_refused(&c, &dev, (const char *const[]){"vector=2", "warp_rows=16", NULL},
                   "warp mapping with vector stores");
    c.vector = 0;
    c.register_tile = 16;
    expect_refused(&c, &dev, (const char *const[]){"register_tile=16", "multiple of 32", NULL},
                   "warp mapping, tile 16");
    /* Tile 128: four values of each row per lane, so lane_values 4 (one nonzero per warp) runs
     * and lane_values 2 cannot hold a lane's share. */
    c.register_tile = 128;
    expect_runs(&c, &dev, "warp mapping, tile 128, 4 values per lane");
    c.lane_values = 2;
    expect_refused(&c, &dev, (const char *const[]){"lane_values=2", "register_tile=128", NULL},
                   "warp mapping, tile 128, 2 values per lane");
    /* fp64: 4 values are 32 bytes, past one vector load. */
    c.register_tile = 32;
    c.lane_values = 4;
    c.elem = 8;
    expect_refused(&c, &dev, (const char *const[]){"lane_values=4", "16 bytes", NULL},
                   "warp mapping fp64, 4 values per lane");
    c.lane_values = 2;
    expect_runs(&c, &dev, "warp mapping fp64, 2 values per lane");
    c = base();
    c.use_ell = 0;
    c.register_tile = 32;
    c.block_size = 48;
    c.warp_rows = 8;
    expect_refused(&c, &dev, (const char *const[]){"warp_rows=8", "block_size", "48", NULL},
                   "warp mapping, partial warp");
    c.block_size = 64;
    c.warp_rows = -1;
    expect_refused(&c, NULL, (const char *const[]){"warp_rows=-1", NULL}, "negative warp_rows");

    /* Skewed reads: row-major stages read a thread per row only. */
    c = base();
    c.skew = 1;
    c.register_tile = 32;
    expect_runs(&c, &dev, "skew, tile 32");
    c.row_major = 0;
    expect_refused(&c, &dev, (const char *const[]){"skew=1", "column-major", NULL},
                   "skew on column-major data");
    c.row_major = 1;
    c.use_ell = 0;
    c.warp_rows = 16;
    expect_refused(&c, &dev, (const char *const[]){"skew=1", "warp_rows=16", NULL},
                   "skew with the warp mapping");

    /* Steps ordered by banks: ELL, column-major, a thread per row. */
    c = base();
    c.row_major = 0;
    c.bank_order = 1;
    expect_runs(&c, &dev, "banks, column-major ELL");
    c.row_major = 1;
    expect_refused(&c, &dev, (const char *const[]){"nnz_order=banks", "row-major", NULL},
                   "banks on row-major data");
    c.row_major = 0;
    c.use_ell = 0;
    expect_refused(&c, &dev, (const char *const[]){"nnz_order=banks", "csr", NULL},
                   "banks with CSR staging");

    /* Interleaved register tiles: any mapping and layout, 0 or 1 only. */
    c = base();
    c.tile_interleave = 1;
    expect_runs(&c, &dev, "tile_interleave 1, row-major");
    c.row_major = 0;
    expect_runs(&c, &dev, "tile_interleave 1, column-major");
    c.row_major = 1;
    c.warp_rows = 16;
    c.use_ell = 0;
    c.register_tile = 32;
    c.lane_values = 4;
    expect_runs(&c, &dev, "tile_interleave 1 with the warp mapping");
    c = base();
    c.tile_interleave = 2;
    expect_refused(&c, &dev, (const char *const[]){"tile_interleave=2", "0 or 1", NULL},
                   "tile_interleave 2");

    /* Swizzled row-major stages: a thread per row, 16-byte copies, no skew, a power-of-two
     * number of 16-byte chunks per staged row. */
    c = base();
    c.swizzle = 1;
    expect_refused(&c, &dev, (const char *const[]){"swizzle=1", "vector=0", NULL},
                   "swizzle without 16-byte copies");
    c.vector = 1;
    expect_runs(&c, &dev, "swizzle fp32 tile 8");
    c.vector = 2;
    c.register_tile = 32;
    expect_runs(&c, &dev, "swizzle fp32 tile 32, vector stores");
    c.register_tile = 4;
    expect_runs(&c, &dev, "swizzle fp32 tile 4 (one chunk)");
    c.register_tile = 12;
    expect_refused(&c, &dev,
                   (const char *const[]){"swizzle=1", "register_tile=12", "power of two", NULL},
                   "swizzle fp32 tile 12 (3 chunks)");
    c.register_tile = 8;
    c.elem = 8;
    expect_runs(&c, &dev, "swizzle fp64 tile 8 (4 chunks)");
    c.register_tile = 6;
    expect_refused(&c, &dev,
                   (const char *const[]){"swizzle=1", "register_tile=6", "power of two", NULL},
                   "swizzle fp64 tile 6 (3 chunks)");
    c = base();
    c.swizzle = 1;
    c.vector = 1;
    c.row_major = 0;
    expect_refused(&c, &dev, (const char *const[]){"swizzle=1", "column-major", NULL},
                   "swizzle on column-major data");
    c.row_major = 1;
    c.skew = 1;
    expect_refused(&c, &dev, (const char *const[]){"swizzle=1", "skew=1", NULL},
                   "swizzle with skew");
    c.skew = 0;
    c.use_ell = 0;
    c.register_tile = 32;
    c.warp_rows = 16;
    expect_refused(&c, &dev, (const char *const[]){"swizzle=1", "warp_rows=16", NULL},
                   "swizzle with the warp mapping");
    c = base();
    c.swizzle = 2;
    c.vector = 1;
    expect_refused(&c, NULL, (const char *const[]){"swizzle=2", NULL}, "swizzle 2");

    /* Steps ordered by banks on swizzled row-major stages (8-lane passes); still ELL only, and
     * row-major without the swizzle is still refused. */
    c = base();
    c.vector = 1;
    c.bank_order = 1;
    expect_refused(&c, &dev,
                   (const char *const[]){"nnz_order=banks", "row-major", "swizzle=0", NULL},
                   "banks on unswizzled row-major data");
    c.swizzle = 1;
    expect_runs(&c, &dev, "banks, swizzled row-major ELL");
    c.register_tile = 16;
    c.elem = 8;
    expect_runs(&c, &dev, "banks, swizzled row-major ELL fp64 tile 16");
    c.use_ell = 0;
    expect_refused(&c, &dev, (const char *const[]){"nnz_order=banks", "csr", NULL},
                   "banks on swizzled stages with CSR staging");

    /* Thread-block clusters: 2, 4 and 8 blocks run on an H100 with every mapping and layout (the
     * driver says later whether a cluster fits a GPC); other sizes, the bank order, 2-byte indices
     * past 65536 cluster slots and devices below 9.0 are refused. */
    static const int64_t sizes[] = {2, 4, 8};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        for (int shape = 0; shape < 4; ++shape) {
            c = base();
            c.cluster = sizes[i];
            if (shape == 1) { /* column-major, split, interleaved */
                c.row_major = 0;
                c.stage_split = 2;
                c.tile_interleave = 1;
            } else if (shape == 2) { /* the warp mapping */
                c.use_ell = 0;
                c.warp_rows = 4;
                c.register_tile = 32;
                c.buffer_kib = 16;
            } else if (shape == 3) { /* swizzled row-major stages */
                c.vector = 1;
                c.swizzle = 1;
            }
            expect_runs(&c, &dev, "a cluster");
        }
        c.bank_order = 1;
        expect_refused(&c, &dev, (const char *const[]){"cluster=", "nnz_order=banks", NULL},
                       "cluster with bank-ordered steps");
    }
    static const int64_t bad_sizes[] = {0, 3, 16, -1};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; ++i) {
        c = base();
        c.cluster = bad_sizes[i];
        char want[32];
        snprintf(want, sizeof want, "cluster=%lld", (long long)bad_sizes[i]);
        expect_refused(&c, NULL, (const char *const[]){want, "1, 2, 4 or 8", NULL}, want);
    }
    /* 2-byte indices address 65536 cluster slots: 8 blocks of 227 KiB of fp32 rows 8 wide (7264
     * slots each, 58112) fit, 8 of 64 KiB rows 2 wide (8192 each) exactly, 4 of 227 KiB rows 2
     * wide (29056 each, 116224) do not; 4-byte indices do. */
    c = base();
    c.cluster = 8;
    c.buffer_kib = 227;
    c.n_buffers = 1;
    expect_runs(&c, &dev, "8 blocks of 7264 slots, 2-byte indices");
    c.register_tile = 2;
    c.buffer_kib = 64;
    expect_runs(&c, &dev, "8 blocks of 8192 slots, 2-byte indices");
    c.buffer_kib = 227;
    c.cluster = 4;
    expect_refused(&c, &dev, (const char *const[]){"index_bytes=2", "cluster=4", "116224", NULL},
                   "4 blocks of 29056 slots, 2-byte indices");
    c.index_bytes = 4;
    expect_runs(&c, &dev, "4 blocks of 29056 slots, 4-byte indices");
    c = base();
    c.cluster = 2;
    rt_device_info a100 = dev;
    a100.cc_major = 8;
    expect_refused(&c, &a100, (const char *const[]){"cluster=2", "compute capability 9.0", NULL},
                   "cluster on an A100");
    c.cluster = 1;
    expect_runs(&c, &a100, "no cluster on an A100");
    return RT_TEST_RESULT();
}
