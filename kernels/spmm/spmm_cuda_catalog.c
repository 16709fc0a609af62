#include "spmm_cuda_catalog.h"

#include "dspmm_sender_common.h"
#include "spmm2d_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block size, register tile and launch bounds are NVRTC defines (compile_time = 1): each value
 * selects a kernel variant compiled at run time and cached on disk. */
/* CSR and ELL: one thread per row of C, the same three compile-time parameters. */
static const rt_param_schema row_kernel_params[] = {
    {"block_size", RT_V_INT, "32..1024", "256", 1,
     "threads per block; one thread computes one row of C"},
    {"register_tile", RT_V_INT, "1..64", "4", 1,
     "columns of C each thread accumulates in registers (grid.y = ceil(K / register_tile))"},
    {"min_blocks", RT_V_INT, "0..32", "0", 1,
     "__launch_bounds__ minimum resident blocks per SM (0: no minimum, only the block size)"},
};

static const rt_param_schema tiled_params[] = {
    {"block_size", RT_V_INT, "32..1024", "1024", 1,
     "threads (= rows of A) per block; a multiple of 32 for ELL staging"},
    {"shared_kib", RT_V_INT, "1..228", "96", 0,
     "dynamic shared memory per block in KiB; buffsize = shared_kib*1024 / "
     "(register_tile * sizeof(value)) staged columns of B per stage"},
    {"register_tile", RT_V_INT, "1..64", "8", 1,
     "REGISTER: columns of C per thread held in registers (grid.y = ceil(K / register_tile))"},
    {"min_blocks", RT_V_INT, "0..32", "1", 1,
     "NUMBLOCKS of __launch_bounds__ (0: only the block size)"},
    {"staging", RT_V_STR, "ell|csr", "ell", 1,
     "storage of A per stage: ELL padded per warp (coalesced) or CSR per row"},
    {"index_bytes", RT_V_INT, "2|4", "2", 1,
     "bytes per shared-memory index of A (2 needs buffsize <= 65536)"},
    {"allow_spills", RT_V_INT, "0|1", "0", 0,
     "1: run variants that spill registers to local memory; 0: record them as infeasible"},
    {"nnz_unroll", RT_V_INT, "1|2|4|8", "1", 1,
     "NNZ_UNROLL: nonzeros whose value and index are loaded ahead per thread (memory-level "
     "parallelism; costs 2 registers each). 1 is Listing 1's loop"},
};

static const rt_param_schema cusparse_params[] = {
    {"alg", RT_V_STR,
     "default|csr_alg1|csr_alg2|csr_alg3|coo_alg1|coo_alg2|coo_alg3|coo_alg4|blocked_ell",
     "default", 0,
     "cusparseSpMM algorithm; csr_* and default use CSR, coo_* COO, blocked_ell Blocked-ELL"},
    {"ell_block", RT_V_INT, "8|16|32|64", "16", 0,
     "block size of the Blocked-ELL format (alg = blocked_ell only)"},
};

/* spdnn (kernels/spdnn/spdnn_family.h): the fused Tiled SpMM + bias + ReLU layer takes the Tiled
 * SpMM's parameters, register_tile counting features of a thread. */
static const rt_param_schema spdnn_fused_params[] = {
    {"block_size", RT_V_INT, "32..1024", "1024", 1,
     "threads (= neurons of a layer) per block; a multiple of 32"},
    {"shared_kib", RT_V_INT, "1..228", "96", 0,
     "dynamic shared memory per block in KiB: the staged input neurons of register_tile "
     "features, buffsize = (shared_kib*1024 - 4*register_tile) / (4*register_tile)"},
    {"register_tile", RT_V_INT, "1..64", "8", 1,
     "REGISTER: features per thread held in registers (grid.y = ceil(live features / "
     "register_tile))"},
    {"min_blocks", RT_V_INT, "0..32", "1", 1,
     "NUMBLOCKS of __launch_bounds__ (0: only the block size)"},
    {"staging", RT_V_STR, "ell|csr", "ell", 1,
     "storage of W^T per stage: ELL padded per warp (coalesced) or CSR per row"},
    {"index_bytes", RT_V_INT, "2|4", "2", 1,
     "bytes per shared-memory index of W^T (2 needs buffsize <= 65536)"},
    {"allow_spills", RT_V_INT, "0|1", "0", 0,
     "1: run variants that spill registers to local memory; 0: record them as infeasible"},
};

static const rt_param_schema spdnn_cusparse_params[] = {
    {"alg", RT_V_STR, "default|csr_alg1|csr_alg2", "default", 0,
     "cusparseSpMM algorithm for each layer's W^T (CSR); bias and ReLU run as a separate kernel"},
};

#define N_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* dspmm (kernels/dspmm/cuda/dspmm_cuda_sender.h): the CPU sender's algorithm and plan; the
 * transport of each hop is chosen by the tier it crosses. */
static const rt_param_schema dspmm_sender_params[] = {
    DSPMM_PARAM_P_BATCH,
    DSPMM_PARAM_COMM,
    DSPMM_PARAM_MINIBATCH,
    {"intra", RT_V_STR, "ipc|staged", "ipc", 0,
     "hops inside a node: device to device through CUDA IPC, or staged through pinned host "
     "memory and MPI like the hops between nodes"},
    DSPMM_PARAM_FAIL_RANK,
    DSPMM_PARAM_FAIL_AT,
};

static const rt_spmm_cuda_entry catalog[RT_CUDA_CATALOG_COUNT] = {
    {RT_SPMM_CUDA_CSR, "CSR SpMM on the GPU, one thread per row, register-tiled over K",
     row_kernel_params, N_OF(row_kernel_params), "spmm"},
    {RT_SPMM_CUDA_ELL, "warp-sliced ELL SpMM on the GPU (slices of 32 rows, coalesced A)",
     row_kernel_params, N_OF(row_kernel_params), "spmm"},
    {RT_SPMM_CUDA_TILED,
     "Tiled SpMM (Hidayetoglu): multi-stage shared-memory staging of B, register tiling",
     tiled_params, N_OF(tiled_params), "spmm"},
    {RT_SPMM_CUDA_CUSPARSE, "cuSPARSE cusparseSpMM (CSR, COO or Blocked-ELL)", cusparse_params,
     N_OF(cusparse_params), "spmm"},
    {RT_SPDNN_CUDA_FUSED,
     "sparse DNN inference: fused Tiled SpMM + bias + clamped ReLU per layer, dead features "
     "compacted out on the device",
     spdnn_fused_params, N_OF(spdnn_fused_params), "spdnn"},
    {RT_SPDNN_CUDA_CUSPARSE,
     "sparse DNN inference: cuSPARSE SpMM per layer, then a separate bias + ReLU kernel "
     "(baseline), dead features compacted out",
     spdnn_cusparse_params, N_OF(spdnn_cusparse_params), "spdnn"},
    {RT_DSPMM_CUDA_SENDER,
     "distributed SpMM on GPUs, sender multiplies (cuSPARSE): partial rows reduced directly or "
     "through node (and socket) proxies; CUDA IPC inside a node, pinned host staging + MPI "
     "between nodes",
     dspmm_sender_params, N_OF(dspmm_sender_params), "dspmm"},
    {"spmm2d.cuda.stationary_c",
     "2D SpMM on GPUs, stationary C (cuSPARSE local SpMM, tiles staged through the host)",
     rt_spmm2d_sc_params, RT_SPMM2D_SC_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.stationary_a", "2D SpMM on GPUs, stationary A: partial C to remote queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.stationary_b", "2D SpMM on GPUs, stationary B: partial C to remote queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.summa", "2D SpMM on GPUs, bulk-synchronous SUMMA", rt_spmm2d_summa_params,
     RT_SPMM2D_SUMMA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.summa_a", "2D SpMM on GPUs, reduce-based stationary-A SUMMA",
     rt_spmm2d_summa_params, RT_SPMM2D_SUMMA_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.ws_random", "2D SpMM on GPUs, stationary A with random work stealing",
     rt_spmm2d_ws_params, RT_SPMM2D_WS_NPARAMS, "spmm2d"},
    {"spmm2d.cuda.ws_locality", "2D SpMM on GPUs, stationary C with locality-aware work stealing",
     rt_spmm2d_ws_params, RT_SPMM2D_WS_NPARAMS, "spmm2d"},
    {"spgemm2d.cuda.stationary_c", "2D SpGEMM on GPUs (cuSPARSE local SpGEMM), stationary C",
     rt_spmm2d_sc_params, RT_SPMM2D_SC_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.stationary_a", "2D SpGEMM on GPUs, stationary A: sparse partial C to queues",
     rt_spmm2d_sa_params, RT_SPMM2D_SA_NPARAMS, "spgemm2d"},
    {"spgemm2d.cuda.summa", "2D SpGEMM on GPUs, bulk-synchronous SUMMA", rt_spmm2d_summa_params,
     RT_SPMM2D_SUMMA_NPARAMS, "spgemm2d"},
};

const rt_spmm_cuda_entry *rt_spmm_cuda_catalog_at(int kind)
{
    if (kind < 0 || kind >= RT_SPMM_CUDA_KIND_COUNT)
        return NULL;
    return &catalog[kind];
}

const rt_spmm_cuda_entry *rt_cuda_catalog_entry(int index)
{
    if (index < 0 || index >= RT_CUDA_CATALOG_COUNT)
        return NULL;
    return &catalog[index];
}

const rt_spmm_cuda_entry *rt_spmm_cuda_catalog_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < RT_CUDA_CATALOG_COUNT; ++i)
        if (strcmp(catalog[i].name, name) == 0)
            return &catalog[i];
    return NULL;
}

void rt_spmm_cuda_describe(const rt_spmm_cuda_entry *e, rt_kernel_desc *out)
{
    memset(out, 0, sizeof *out);
    out->name = e->name;
    out->family = e->family ? e->family : "spmm";
    out->backend = "cuda";
    out->summary = e->summary;
    out->params = e->params;
    out->n_params = e->n_params;
}

/* ---------------------------------------------------------------------------------------------
 * Unavailable descriptors. The registry keeps pointers, so the descriptors and the copied reason
 * live in one heap block; each descriptor's backend_ctx points back at the block, and the block
 * holds the address of a private constant so unregister recognises its own blocks. The
 * descriptors come first: the registry's pointer to the first one is the block's own address,
 * which keeps the block reachable (not a leak) for as long as the registry holds it. */

static const char unavailable_marker[] = "spmm.cuda.unavailable";

typedef struct unavailable_block {
    rt_kernel_desc desc[RT_CUDA_CATALOG_COUNT];
    const char *marker;
    char reason[512];
} unavailable_block;

static int unavailable_error(const rt_kernel_desc *self, rt_err *err)
{
    return rt_err_set(err, "kernel %s is unavailable on this host: %s", self->name,
                      self->unavailable ? self->unavailable : "no CUDA backend");
}

static int stub_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    if (why && whylen > 0)
        snprintf(why, whylen, "unavailable: %s", self->unavailable ? self->unavailable : "");
    return unavailable_error(self, err);
}

static int stub_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    if (state)
        *state = NULL;
    return unavailable_error(self, err);
}

/* The per-state hooks get no descriptor; the state is always NULL because setup never succeeds. */
static int stub_run(void *state, double *seconds, rt_err *err)
{
    return rt_err_set(err, "a CUDA kernel was run although it is unavailable on this host");
}

static int stub_output(void *state, double *out, rt_err *err)
{
    return rt_err_set(err, "a CUDA kernel's output was read although it is unavailable on this "
                           "host");
}

static void stub_teardown(void *state) {}

static int stub_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    return unavailable_error(self, err);
}

static int is_unavailable_block(const rt_kernel_desc *k)
{
    const unavailable_block *b = (const unavailable_block *)k->backend_ctx;
    return b && k->unavailable && strcmp(k->backend, "cuda") == 0 &&
           rt_spmm_cuda_catalog_find(k->name) && b->marker == unavailable_marker;
}

/* Removes every descriptor that belongs to block b (or, with b NULL, to any unavailable block)
 * and returns the blocks found, at most max of them, in found[]. */
static int remove_blocks(rt_registry *reg, const unavailable_block *only, unavailable_block **found,
                         int max)
{
    int nfound = 0;
    int kept = 0;
    for (int i = 0; i < reg->n_kernels; ++i) {
        const rt_kernel_desc *k = reg->kernels[i];
        unavailable_block *b = is_unavailable_block(k) ? (unavailable_block *)k->backend_ctx : NULL;
        if (b && (!only || b == only)) {
            int seen = 0;
            for (int j = 0; j < nfound; ++j)
                seen |= found[j] == b;
            if (!seen && nfound < max)
                found[nfound++] = b;
            continue;
        }
        reg->kernels[kept++] = k;
    }
    for (int i = kept; i < reg->n_kernels; ++i)
        reg->kernels[i] = NULL;
    reg->n_kernels = kept;
    return nfound;
}

int rt_spmm_cuda_register_unavailable(rt_registry *reg, const char *reason, rt_err *err)
{
    if (!reg)
        return rt_err_set(err, "rt_spmm_cuda_register_unavailable: no registry given");
    unavailable_block *b = calloc(1, sizeof *b);
    if (!b)
        return rt_err_set(err, "out of memory registering the unavailable CUDA kernels (%zu bytes)",
                          sizeof *b);
    b->marker = unavailable_marker;
    snprintf(b->reason, sizeof b->reason, "%s",
             reason && *reason ? reason : "the CUDA backend is not loaded");
    for (int i = 0; i < RT_CUDA_CATALOG_COUNT; ++i) {
        /* The spmm kernels always (their family must be there); other families' kernels only
         * where the registry has the family. */
        if (i >= RT_SPMM_CUDA_KIND_COUNT && !rt_registry_find_family(reg, catalog[i].family))
            continue;
        rt_kernel_desc *d = &b->desc[i];
        rt_spmm_cuda_describe(&catalog[i], d);
        d->unavailable = b->reason;
        d->check = stub_check;
        d->setup = stub_setup;
        d->run = stub_run;
        d->output = stub_output;
        d->teardown = stub_teardown;
        d->traffic = stub_traffic;
        d->backend_ctx = b;
        if (rt_registry_add_kernel(reg, d, err) != 0) {
            unavailable_block *found[1];
            remove_blocks(reg, b, found, 1);
            free(b);
            return rt_err_prefix(err, "registering the unavailable CUDA kernels");
        }
    }
    return 0;
}

void rt_spmm_cuda_unregister_unavailable(rt_registry *reg)
{
    if (!reg)
        return;
    unavailable_block *found[RT_REGISTRY_MAX_KERNELS];
    const int n = remove_blocks(reg, NULL, found, RT_REGISTRY_MAX_KERNELS);
    for (int i = 0; i < n; ++i)
        free(found[i]);
}
