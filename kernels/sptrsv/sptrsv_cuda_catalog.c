#include "sptrsv_cuda_catalog.h"

#include "rt_tables.h"
#include "sptrsv_family.h"

/* Every option cuSPARSE 13 offers a triangular solve (the baseline's space). */
static const rt_param_schema cusparse_params[] = {
    RT_PARAM_STR("api", "spsv|spsm", "spsv",
                 "cusparseSpSV (a vector per right-hand side) or cusparseSpSM (all right-hand "
                 "sides at once)"),
    RT_PARAM_STR("format", "csr|coo|sell", "csr",
                 "storage format of the triangle: CSR, COO or sliced ELL (slices of 32 rows)"),
    RT_PARAM_STR("storage", "lower|upper", "lower",
                 "lower: L stored (transposed op for the backward solve); upper: L^T stored "
                 "(transposed op for the forward solve)"),
    RT_PARAM_STR("index", "32|64", "32", "index width of the sparse matrix"),
    RT_PARAM_STR("layout", "col|row", "col",
                 "cusparseSpSM's dense B and X: column- or row-major (cusparseSpSV: column only)"),
    RT_PARAM_STR("algorithm", "default", "default",
                 "CUSPARSE_SPSV_ALG_DEFAULT / CUSPARSE_SPSM_ALG_DEFAULT, the only algorithms the "
                 "library has"),
};

/* One warp per row in both row kernels: the block size sets how many rows share a block. */
#define WARP_ROWS_THREADS_PER_BLOCK                                                                \
    RT_PARAM_INT("threads_per_block", "32|64|128|256|512|1024", "256",                             \
                 "threads per block (a warp per row, so threads_per_block / 32 rows per block)")

static const rt_param_schema levelset_params[] = {
    WARP_ROWS_THREADS_PER_BLOCK,
    RT_PARAM_INT(
        "merge_levels", "0|1", "0",
        "1: runs of consecutive levels no wider than threads_per_block / 32 rows in one launch of "
        "one block, a block barrier between the levels (0: one launch per level)"),
};

static const rt_param_schema syncfree_params[] = {
    WARP_ROWS_THREADS_PER_BLOCK,
};

/* A thread block per supernode: the block size is the parallelism inside one supernode. */
static const rt_param_schema supernodal_params[] = {
    RT_PARAM_INT(
        "threads_per_block", "64|128|256|512|1024", "256",
        "threads per block (one block per supernode; warp 0 solves each 32-column diagonal tile)"),
    RT_PARAM_INT(
        "shared_kb", "0|8|16|32", "16",
        "shared memory per block for a supernode's rows of X during its diagonal solve, KiB "
        "(capped at what the widest supernode needs; a wider one works in global memory)"),
    RT_PARAM_INT(
        "backoff_ns", "0|128|1024", "128",
        "longest __nanosleep between two polls of a supernode's pending counter (0: spin)"),
};

static const rt_param_schema distributed_params[] = {
    RT_PARAM_INT("threads_per_block", "64|128|256|512|1024", "256",
                 "threads of the one block of every diagonal solve and every edge update"),
    RT_PARAM_INT("shared_kb", "0|8|16|32", "16",
                 "shared memory for a supernode's rows of X during its diagonal solve, KiB"),
    RT_PARAM_STR(
        "transport", "rma|ipc", "rma",
        "how x travels between ranks: rma (MPI-3 RMA puts from the host copy of X with a polled "
        "counter) or ipc (CUDA IPC: a kernel stores x into the receiver's device X and increments "
        "its counter; every rank on one host, else infeasible); NVSHMEM is not implemented"),
    SPTRSV_PARAM_DIST_POLL_TIMEOUT,
};

/* The persistent kernel: the plan's parameters (sptrsv_ppoint.h) and the launch. */
static const rt_param_schema persistent_params[] = {
    RT_PARAM_INT(
        "parts", "0..16", "0",
        "the first `parts` ranks of the job solve, one GPU each (0: every rank; the others wait)"),
    RT_PARAM_STR("layout", "px1|2d|1xp", "px1",
                 "blocks of L to GPUs: px1 (block rows, the paper's P x 1: x is broadcast), 2d (Pr "
                 "x Pc: x broadcast down columns, partial sums reduced along rows), 1xp (block "
                 "columns: partial sums reduced)"),
    RT_PARAM_STR("map", "cyclic|subtree", "cyclic",
                 "owner of a supernode: cyclic (the paper's block cyclic) or subtree (elimination "
                 "subtrees balanced by bytes, a CHOLMOD supernode's pieces on one GPU)"),
    RT_PARAM_INT("chunk_rows", "16..4096", "256",
                 "most rows below a supernode one task multiplies"),
    RT_PARAM_INT("leaf_kb", "0..65536", "0",
                 "leaf subtrees of the elimination tree with at most this many KiB of L are one "
                 "task each (0: none)"),
    RT_PARAM_INT("threads_per_block", "128|256|512|1024", "256", "threads of each block"),
    RT_PARAM_INT("blocks_per_sm", "1|2|4|8", "2",
                 "blocks of the persistent kernel per SM (at most what fits)"),
    SPTRSV_PARAM_PERSIST_POLL_TIMEOUT,
};

static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(RT_SPTRSV_CUDA_CUSPARSE,
                  "cusparseSpSV / cusparseSpSM (FP64), forward or backward, over every format, "
                  "storage, index width and dense layout the library offers: the analysis in setup "
                  "(analysis_s), the solve timed with events",
                  cusparse_params, "sptrsv"),
    RT_CUDA_ENTRY(RT_SPTRSV_CUDA_LEVELSET,
                  "level-set solve on L's CSR copy: one kernel launch per level of the row DAG, "
                  "one warp per row",
                  levelset_params, "sptrsv"),
    RT_CUDA_ENTRY(
        RT_SPTRSV_CUDA_SYNCFREE,
        "synchronisation-free solve in one launch: one warp per row, rows taken in level order "
        "from a ticket counter, each waiting on per-row ready flags in global memory",
        syncfree_params, "sptrsv"),
    RT_CUDA_ENTRY(
        RT_SPTRSV_CUDA_SUPERNODAL,
        "synchronisation-free supernodal solve in one launch: a thread block per supernode taken "
        "in level order from a ticket, waiting on the supernode's pending-update counter; dense "
        "diagonal block by 32-column tiles, the rows below added into partial sums with atomics",
        supernodal_params, "sptrsv"),
    RT_CUDA_ENTRY(RT_SPTRSV_CUDA_DISTRIBUTED,
                  "message-driven multi-GPU solve: P x 1 block layout, one rank per GPU, x "
                  "broadcast along binary trees with MPI-3 RMA puts or CUDA IPC copies and polled "
                  "counters (the CPU distributed solve's messages), each rank's diagonal solves "
                  "and edge updates as kernels on its GPU",
                  distributed_params, "sptrsv"),
    RT_CUDA_ENTRY(
        RT_SPTRSV_CUDA_PERSISTENT,
        "message-driven multi-GPU solve, forward or backward, as one persistent kernel per GPU: P "
        "x 1, 2D or 1 x P blocks, x and partial sums written into the other GPUs' memory over CUDA "
        "IPC with flags and counters the GPU polls, inverse diagonal blocks",
        persistent_params, "sptrsv"),
};

const rt_cuda_catalog_entry *rt_sptrsv_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}
