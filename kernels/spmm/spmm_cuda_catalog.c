#include "spmm_cuda_catalog.h"

#include "rt_tables.h"
#include "rt_cusparse_algs.h"

/* Block size, register tile and launch bounds are NVRTC defines (compile_time = 1): each value
 * selects a kernel variant compiled at run time and cached on disk. */
/* CSR and ELL: one thread per row of C, the same three compile-time parameters. */
static const rt_param_schema row_kernel_params[] = {
    RT_PARAM_INT_NVRTC("block_size", "32..1024", "256",
                       "threads per block; one thread computes one row of C"),
    RT_PARAM_INT_NVRTC(
        "register_tile", "1..64", "4",
        "columns of C each thread accumulates in registers (grid.y = ceil(K / register_tile))"),
    RT_PARAM_INT_NVRTC(
        "min_blocks", "0..32", "0",
        "__launch_bounds__ minimum resident blocks per SM (0: no minimum, only the block size)"),
};

static const rt_param_schema tiled_params[] = {
    RT_PARAM_INT_NVRTC("block_size", "32..1024", "1024",
                       "threads (= rows of A) per block; a multiple of 32 for ELL staging"),
    RT_PARAM_INT("shared_kib", "1..228", "96",
                 "dynamic shared memory per block in KiB; buffsize = shared_kib*1024 / "
                 "(register_tile * sizeof(value)) staged columns of B per stage"),
    RT_PARAM_INT_NVRTC(
        "register_tile", "1..64", "8",
        "REGISTER: columns of C per thread held in registers (grid.y = ceil(K / register_tile))"),
    RT_TILED_PARAM_MIN_BLOCKS,
    RT_TILED_PARAM_STAGING("A"),
    RT_TILED_PARAM_INDEX_BYTES("A"),
    RT_TILED_PARAM_ALLOW_SPILLS,
    RT_PARAM_INT_NVRTC("nnz_unroll", "1|2|4|8", "1",
                       "NNZ_UNROLL: nonzeros whose value and index are loaded ahead per thread "
                       "(memory-level parallelism; costs 2 registers each). 1 is Listing 1's loop"),
};

/* Entries the two Hopper kernels (tiled_pipe, tiled_tma) share. */
#define HOPPER_PARAM_BLOCKS_PER_SM                                                                 \
    RT_PARAM_INT_NVRTC(                                                                            \
        "blocks_per_sm", "1|2|3|4", "1",                                                           \
        "resident blocks asked of every SM (__launch_bounds__ minimum); the blocks' "              \
        "shared memory must fit the SM together")
#define HOPPER_PARAM_NNZ_UNROLL                                                                    \
    RT_PARAM_INT_NVRTC("nnz_unroll", "1|2|4|8", "4",                                               \
                       "NNZ_UNROLL: nonzeros whose value and index are loaded ahead per thread")

/* The pipelined Tiled SpMM (Hopper): Listing 1's staging and register tiling, with the staging of
 * B overlapped with compute (cp.async into n_buffers buffers), a residency target, block rows
 * split over several blocks, 16-byte vectors, and a second mapping of threads to C (warp_rows:
 * lanes split the columns, conflict-free reads of the stages). Infeasible combinations are named by
 * kernels/spmm/spmm_tiled_pipe_rules.h. */
static const rt_param_schema tiled_pipe_params[] = {
    RT_PARAM_INT_NVRTC("block_size", "32..1024", "1024",
                       "threads per block (= rows of A per block when warp_rows is 0); a multiple "
                       "of 32 for ELL staging or warp_rows > 0"),
    RT_PARAM_INT("buffer_kib", "1..227", "48",
                 "shared memory per buffer in KiB; buffsize = buffer_kib*1024 / (register_tile * "
                 "sizeof(value)) staged columns of B per stage"),
    RT_PARAM_INT_NVRTC("n_buffers", "1|2|3", "2",
                       "N_BUFFERS: shared-memory buffers; with 2 or 3 the next stages are copied "
                       "(cp.async) while the current one is consumed"),
    HOPPER_PARAM_BLOCKS_PER_SM,
    RT_PARAM_INT_NVRTC("register_tile", "1..128", "8",
                       "REGISTER: columns of C per thread (warp_rows 0) or per warp (warp_rows > "
                       "0, a multiple of 32) held in registers (grid.y = ceil(K / register_tile))"),
    RT_PARAM_INT_NVRTC(
        "warp_rows", "0|1|2|4|8|16|32", "0",
        "0: each thread owns a row of C (Listing 1); N: each warp owns N rows of C and its lanes "
        "split register_tile columns, so a block covers block_size / 32 * N rows (staging=csr)"),
    RT_PARAM_INT_NVRTC(
        "lane_values", "1|2|4", "1",
        "warp_rows > 0: columns of C each lane takes per nonzero, read as one vector from the "
        "stage; register_tile / lane_values lanes share a nonzero (1 with warp_rows 0)"),
    RT_PARAM_INT_NVRTC("skew", "0|1", "0",
                       "warp_rows 0, row-major: 1 starts each lane's register tile at a chunk "
                       "rotated by its lane index, so a quarter-warp reads different shared-memory "
                       "banks (conflict-free at register_tile 32 and 64 fp32)"),
    RT_PARAM_INT_NVRTC(
        "swizzle", "0|1", "0",
        "warp_rows 0, row-major, vector 1 or 2, skew 0: 1 XOR-swizzles the 16-byte chunks of each "
        "staged row so that chunk q of slot s lies in bank group s mod 8 for every q; with "
        "nnz_order banks every quarter-warp then reads 8 slots of distinct s mod 8, conflict-free "
        "(register_tile / vector width a power of two)"),
    RT_PARAM_STR_NVRTC(
        "nnz_order", "columns|banks", "columns",
        "order of each warp's nonzeros per stage: columns (Listing 1: each row in column order) or "
        "banks (every ELL step's 32 lanes read a column-major stage in 32 different banks, or with "
        "swizzle 1 each quarter-warp a row-major stage in 8 different bank groups, in the fewest "
        "steps that allows; staging ell, warp_rows 0, column-major or swizzle 1)"),
    RT_PARAM_INT_NVRTC(
        "stage_split", "1|2|3|4|6|8", "1",
        "blocks sharing one block row's stages (grid.x = row blocks x stage_split); above 1, C is "
        "zeroed in the timed run and partial sums are added atomically"),
    RT_PARAM_INT_NVRTC(
        "tile_interleave", "0|1", "0",
        "0: grid.y walks the register tiles of K, so a tile's blocks all run before the next "
        "tile's and A is read from DRAM once per tile (Listing 1); 1: the tiles of a block row are "
        "neighbours along grid.x and run together, so A's second and later reads hit L2"),
    RT_PARAM_INT_NVRTC(
        "cluster", "1|2|4|8", "1",
        "CLUSTER: consecutive row blocks per thread-block cluster (compute capability 9.0); a "
        "cluster stages the union of its blocks' B rows once per stage, each block a share, and "
        "every block reads the others' shares through distributed shared memory (1: no cluster)"),
    RT_PARAM_INT_NVRTC("vector", "0|1|2", "0",
                       "1: B staged in 16-byte vectors, 2: C stored in them too (row-major, "
                       "register_tile and K multiples of 4 fp32 or 2 fp64 values)"),
    RT_TILED_PARAM_STAGING("A"),
    RT_TILED_PARAM_INDEX_BYTES("A"),
    HOPPER_PARAM_NNZ_UNROLL,
    RT_TILED_PARAM_ALLOW_SPILLS,
};

/* The Tiled SpMM with Hopper's bulk copies (cp.async.bulk) and mbarriers: a thread per row of C,
 * row-major B staged a whole register-tile row per copy into a ring of buffers by a producer warp,
 * C stored with 16-byte vectors or bulk copies. Infeasible combinations are named by
 * kernels/spmm/spmm_tiled_tma_rules.h. */
static const rt_param_schema tiled_tma_params[] = {
    RT_PARAM_INT_NVRTC("block_size", "32..1024", "256",
                       "consumer threads per block (= rows of A per block, a multiple of 32); "
                       "producer=1 adds one warp"),
    RT_PARAM_INT("buffer_kib", "1..227", "32",
                 "shared memory per stage buffer in KiB; buffsize = buffer_kib*1024 / "
                 "(register_tile * sizeof(value)) staged rows of B per stage"),
    RT_PARAM_INT_NVRTC("n_buffers", "1|2|3|4", "3",
                       "N_BUFFERS: stage buffers in the mbarrier ring; the copies of the next "
                       "stages are in flight while the current one is consumed"),
    RT_PARAM_INT_NVRTC("producer", "0|1", "1",
                       "1: a producer warp beside the consumers issues the bulk copies; 0: "
                       "consumer warp 0 issues them n_buffers - 1 stages ahead of its own compute"),
    HOPPER_PARAM_BLOCKS_PER_SM,
    RT_PARAM_INT_NVRTC("register_tile", "1..128", "8",
                       "REGISTER: columns of C per thread (grid.y = ceil(K / register_tile)); a "
                       "multiple of 16 bytes of values; = K makes the tile the whole row"),
    RT_PARAM_INT_NVRTC("merge_runs", "0|1", "0",
                       "1: runs of consecutive staged columns (within 32 slots) are one bulk copy; "
                       "needs register_tile = K (whole rows)"),
    RT_PARAM_INT_NVRTC("skew", "0|1", "0",
                       "1: each lane starts its register tile at 16-byte chunk lane mod chunks, so "
                       "a quarter-warp reads different bank groups of the unswizzled staged rows"),
    RT_PARAM_STR_NVRTC(
        "c_store", "direct|bulk", "direct",
        "direct: each thread stores its tile of C with 16-byte vectors; bulk: each warp writes its "
        "tiles to shared memory and bulk-copies them (one copy of 32 rows when register_tile = K)"),
    RT_PARAM_INT_NVRTC(
        "tile_interleave", "0|1", "0",
        "as spmm.cuda.tiled_pipe: 1 puts a block row's register tiles side by side along grid.x"),
    RT_TILED_PARAM_STAGING("A"),
    RT_TILED_PARAM_INDEX_BYTES("A"),
    HOPPER_PARAM_NNZ_UNROLL,
    RT_TILED_PARAM_ALLOW_SPILLS,
};

static const rt_param_schema cusparse_params[] = {
    RT_PARAM_STR("alg", RT_CUSPARSE_SPMM_ALGS, "default", RT_CUSPARSE_SPMM_ALGS_HELP),
    RT_PARAM_INT("ell_block", RT_CUSPARSE_ELL_BLOCKS, "16", RT_CUSPARSE_ELL_BLOCKS_HELP),
};

static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(RT_SPMM_CUDA_CSR,
                  "CSR SpMM on the GPU, one thread per row, register-tiled over K",
                  row_kernel_params, "spmm"),
    RT_CUDA_ENTRY(RT_SPMM_CUDA_ELL,
                  "warp-sliced ELL SpMM on the GPU (slices of 32 rows, coalesced A)",
                  row_kernel_params, "spmm"),
    RT_CUDA_ENTRY(
        RT_SPMM_CUDA_TILED,
        "Tiled SpMM (Hidayetoglu): multi-stage shared-memory staging of B, register tiling",
        tiled_params, "spmm"),
    RT_CUDA_ENTRY(RT_SPMM_CUDA_CUSPARSE, "cuSPARSE cusparseSpMM (CSR, COO or Blocked-ELL)",
                  cusparse_params, "spmm"),
    RT_CUDA_ENTRY(RT_SPMM_CUDA_TILED_PIPE,
                  "Tiled SpMM for Hopper: cp.async multi-buffered staging of B, block rows split "
                  "over blocks, 16-byte vectors, a thread or a warp per row of C",
                  tiled_pipe_params, "spmm"),
    RT_CUDA_ENTRY(
        RT_SPMM_CUDA_TILED_TMA,
        "Tiled SpMM with Hopper bulk copies (TMA, cp.async.bulk) of row-major B into an mbarrier "
        "ring, a producer warp, register tiles up to whole rows, bulk or vector stores of C",
        tiled_tma_params, "spmm"),
};

const rt_cuda_catalog_entry *rt_spmm_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}

const rt_cuda_catalog_entry *rt_spmm_cuda_catalog_at(int kind)
{
    return rt_cuda_catalog_at(catalog, RT_N_OF(catalog), kind);
}
