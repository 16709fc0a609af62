#include "spmm_cuda_variant.h"

#include <string.h>

#include "rt_schema.h"
#include "spmm_cuda_catalog.h"

int rt_spmm_cuda_param_int(const rt_params *p, int kind, const char *name, int64_t *out,
                           rt_err *err)
{
    const rt_cuda_catalog_entry *e = rt_spmm_cuda_catalog_at(kind);
    if (!e)
        return rt_err_set(err, "parameter %s: no spmm CUDA kernel of kind %d", name, kind);
    return rt_schema_int(e->params, e->n_params, e->name, p, name, out, err);
}

int rt_spmm_cuda_param_str(const rt_params *p, int kind, const char *name, char *out, size_t len,
                           rt_err *err)
{
    const rt_cuda_catalog_entry *e = rt_spmm_cuda_catalog_at(kind);
    if (!e)
        return rt_err_set(err, "parameter %s: no spmm CUDA kernel of kind %d", name, kind);
    return rt_schema_str(e->params, e->n_params, e->name, p, name, out, len, err);
}

void rt_spmm_cuda_defines(rt_cuda_defines *d, const rt_spmm_inputs *in, int64_t block_size,
                          int64_t register_tile, int64_t min_blocks)
{
    rt_cuda_defines_init(d);
    rt_cuda_define_int(d, "RT_FP64", in->prec == RT_FP64);
    rt_cuda_define_int(d, "RT_ROW_MAJOR", in->layout == RT_ROW_MAJOR);
    rt_cuda_define_int(d, "BLOCK_SIZE", block_size);
    rt_cuda_define_int(d, "REGISTER", register_tile);
    rt_cuda_define_int(d, "MIN_BLOCKS", min_blocks);
}

int rt_spmm_tiled_read_params(const rt_params *p, const rt_spmm_inputs *in,
                              rt_spmm_tiled_params *tp, rt_err *err)
{
    const int kind = RT_SPMM_CUDA_KIND_TILED;
    char staging[16];
    memset(tp, 0, sizeof *tp);
    if (rt_spmm_cuda_param_int(p, kind, "block_size", &tp->block_size, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "shared_kib", &tp->shared_kib, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "register_tile", &tp->register_tile, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "min_blocks", &tp->min_blocks, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "index_bytes", &tp->index_bytes, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "allow_spills", &tp->allow_spills, err) != 0 ||
        rt_spmm_cuda_param_int(p, kind, "nnz_unroll", &tp->nnz_unroll, err) != 0 ||
        rt_spmm_cuda_param_str(p, kind, "staging", staging, sizeof staging, err) != 0)
        return -1;
    tp->use_ell = strcmp(staging, "ell") == 0;
    const size_t elem = rt_precision_bytes(in->prec);
    /* The paper's buffsize: the shared-memory budget split over REGISTER columns of B. */
    tp->buffsize = tp->shared_kib * 1024 / (tp->register_tile * (int64_t)elem);
    tp->dynamic_shared = (size_t)tp->buffsize * (size_t)tp->register_tile * elem;
    return 0;
}

void rt_spmm_tiled_variant(const rt_spmm_inputs *in, const rt_spmm_tiled_params *tp,
                           const char *what, rt_cuda_defines *defs, rt_cuda_variant_request *rq)
{
    rt_spmm_cuda_defines(defs, in, tp->block_size, tp->register_tile, tp->min_blocks);
    rt_cuda_define_int(defs, "STAGING_ELL", tp->use_ell);
    rt_cuda_define_int(defs, "INDEX_BYTES", tp->index_bytes);
    rt_cuda_define_int(defs, "NNZ_UNROLL", tp->nnz_unroll);
    *rq = (rt_cuda_variant_request){
        .source_name = "spmm_tiled.cu",
        .entry = "rt_spmm_tiled",
        .defines = defs,
        .block_size = tp->block_size,
        .register_tile = tp->register_tile,
        .allow_spills = (int)tp->allow_spills,
        .dynamic_shared = tp->dynamic_shared,
        .what = what,
    };
}
