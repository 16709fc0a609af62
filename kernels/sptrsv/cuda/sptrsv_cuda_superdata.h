/* sptrsv_cuda_superdata: the supernodal factor on the device for the kernels that work by
 * supernodes (sptrsv.cuda.supernodal, sptrsv.cuda.distributed): the arrays of sptrsv_super_dev
 * (32-bit where they fit), the supernodes in level order (a topological order of the supernodal
 * DAG) and every supernode's predecessor count, uploaded once in setup. */
#ifndef SPTRSV_CUDA_SUPERDATA_H
#define SPTRSV_CUDA_SUPERDATA_H

#include <stdint.h>

#include "rt_cuda_ctx.h"
#include "rt_error.h"
#include "sptrsv_cuda_super.h"
#include "sptrsv_family.h"

typedef struct sptrsv_cuda_superdata {
    rt_cuda_ctx *ctx;
    sptrsv_super_dev f; /* device pointers of the factor */
    void *dev[9];       /* the same buffers, for the release */
    int32_t *pending0;  /* device, nsuper: the predecessor counts */
} sptrsv_cuda_superdata;

/* Uploads the factor of `in`. Returns 0, RT_INFEASIBLE (device full) or -1; name prefixes errors.
 */
int sptrsv_cuda_superdata_create(const char *name, rt_cuda_ctx *ctx, const rt_sptrsv_inputs *in,
                                 sptrsv_cuda_superdata *out, rt_err *err);
void sptrsv_cuda_superdata_free(sptrsv_cuda_superdata *d);

#endif
