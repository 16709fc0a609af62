/* dspmm_cuda_catalog: name, summary and parameter schema of the distributed SpMM's GPU kernel
 * (plain C; see backends/rt_cuda_catalog.h). */
#ifndef DSPMM_CUDA_CATALOG_H
#define DSPMM_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

#define RT_DSPMM_CUDA_SENDER "dspmm.cuda.sender"

const rt_cuda_catalog_entry *rt_dspmm_cuda_catalog(int *n);

#endif
