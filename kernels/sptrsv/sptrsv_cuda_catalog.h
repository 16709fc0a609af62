/* sptrsv_cuda_catalog: names, summaries and parameter schemas of the sptrsv family's GPU kernels
 * (plain C, compiled into the main binary and the plugin; see backends/rt_cuda_catalog.h). */
#ifndef SPTRSV_CUDA_CATALOG_H
#define SPTRSV_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_SPTRSV_CUDA_CUSPARSE    "sptrsv.cuda.cusparse"
#define RT_SPTRSV_CUDA_LEVELSET    "sptrsv.cuda.levelset"
#define RT_SPTRSV_CUDA_SYNCFREE    "sptrsv.cuda.syncfree"
#define RT_SPTRSV_CUDA_SUPERNODAL  "sptrsv.cuda.supernodal"
#define RT_SPTRSV_CUDA_DISTRIBUTED "sptrsv.cuda.distributed"
#define RT_SPTRSV_CUDA_PERSISTENT  "sptrsv.cuda.persistent"

/* Order of the catalog's entries. */
enum {
    RT_SPTRSV_CUDA_KIND_CUSPARSE = 0,
    RT_SPTRSV_CUDA_KIND_LEVELSET = 1,
    RT_SPTRSV_CUDA_KIND_SYNCFREE = 2,
    RT_SPTRSV_CUDA_KIND_SUPERNODAL = 3,
    RT_SPTRSV_CUDA_KIND_DISTRIBUTED = 4,
    RT_SPTRSV_CUDA_KIND_PERSISTENT = 5
};

const rt_cuda_catalog_entry *rt_sptrsv_cuda_catalog(int *n);

#endif
