#include "spdnn_cuda_catalog.h"

#include "rt_tables.h"
#include "rt_cusparse_algs.h"
#include "spmm_cuda_catalog.h"

/* spdnn (kernels/spdnn/spdnn_family.h): the fused Tiled SpMM + bias + ReLU layer takes the Tiled
 * SpMM's parameters, register_tile counting features of a thread. */
static const rt_param_schema spdnn_fused_params[] = {
    RT_PARAM_INT_NVRTC("block_size", "32..1024", "1024",
                       "threads (= neurons of a layer) per block; a multiple of 32"),
    RT_PARAM_INT(
        "shared_kib", "1..228", "96",
        "dynamic shared memory per block in KiB: the staged input neurons of register_tile "
        "features, buffsize = (shared_kib*1024 - 4*register_tile) / (4*register_tile)"),
    RT_PARAM_INT_NVRTC("register_tile", "1..64", "8",
                       "REGISTER: features per thread held in registers (grid.y = ceil(live "
                       "features / register_tile))"),
    RT_TILED_PARAM_MIN_BLOCKS,
    RT_TILED_PARAM_STAGING("W^T"),
    RT_TILED_PARAM_INDEX_BYTES("W^T"),
    RT_PARAM_INT_NVRTC("nnz_unroll", "1|2|4|8", "1",
                       "NNZ_UNROLL: nonzeros of W^T whose value and index are loaded ahead per "
                       "thread (1: Listing 1's loop)"),
    RT_PARAM_STR_NVRTC(
        "stage_layout", "feature|slot|slot_xor", "feature",
        "SLOT_MAJOR: staged inputs as feature rows (the paper's shared[k][slot]), as slot rows "
        "(shared[slot][k], read with 16-byte loads; register_tile a multiple of 4), or as slot "
        "rows with XOR-swizzled 16-byte chunks (every chunk of a slot in bank group slot mod 8; "
        "register_tile 4, 8, 16, 32 or 64)"),
    RT_PARAM_STR_NVRTC(
        "nnz_order", "columns|banks", "columns",
        "order of each warp's nonzeros of W^T per stage: columns (Listing 1: each row in column "
        "order) or banks (the fewest ELL steps in which no two reads of a shared-memory pass meet "
        "in a bank: 32 lanes on 32 banks with stage_layout feature, each quarter-warp on 8 bank "
        "groups with slot_xor; staging ell)"),
    RT_PARAM_INT_NVRTC("n_buffers", "1|2|3", "1",
                       "N_BUFFERS: 1 stages with plain loads between barriers (Listing 1); 2 or 3 "
                       "split shared_kib into that many stage buffers and gather the next stages "
                       "with cp.async (sm_80+) while the current one is consumed"),
    RT_TILED_PARAM_ALLOW_SPILLS,
};

/* The baseline's space is every SpMM algorithm cuSPARSE offers, in both layouts of the features. */
static const rt_param_schema spdnn_cusparse_params[] = {
    RT_PARAM_STR("alg", RT_CUSPARSE_SPMM_ALGS, "default",
                 RT_CUSPARSE_SPMM_ALGS_HELP
                 " (each layer's W^T); bias and ReLU run as a separate kernel"),
    RT_PARAM_STR("layout", "col|row", "col",
                 "the features as cuSPARSE's dense operands: col = column-major neurons x live "
                 "(feature-major rows), row = row-major neurons x live (neuron-major rows); "
                 "compaction is the same"),
    RT_PARAM_INT("ell_block", RT_CUSPARSE_ELL_BLOCKS, "16",
                 RT_CUSPARSE_ELL_BLOCKS_HELP "; it must divide the neurons"),
};

static const rt_cuda_catalog_entry catalog[] = {
    RT_CUDA_ENTRY(RT_SPDNN_CUDA_FUSED,
                  "sparse DNN inference: fused Tiled SpMM + bias + clamped ReLU per layer, dead "
                  "features compacted out on the device",
                  spdnn_fused_params, "spdnn"),
    RT_CUDA_ENTRY(RT_SPDNN_CUDA_CUSPARSE,
                  "sparse DNN inference: cuSPARSE SpMM per layer, then a separate bias + ReLU "
                  "kernel (baseline), dead features compacted out",
                  spdnn_cusparse_params, "spdnn"),
};

const rt_cuda_catalog_entry *rt_spdnn_cuda_catalog(int *n)
{
    *n = RT_N_OF(catalog);
    return catalog;
}

const rt_cuda_catalog_entry *rt_spdnn_cuda_catalog_at(int kind)
{
    return rt_cuda_catalog_at(catalog, RT_N_OF(catalog), kind);
}
