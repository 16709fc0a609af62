/* eigen_dev_cuda: the eigen family's device (eigen_dev.h) on a GPU: the pool is one cudaMalloc
 * of the budget, SpMM of a packed block is cusparseSpMM (CSR, int32 indices, row-major dense),
 * X*Y and X'*Y are cublasDgemm, the update is cublasDgeam, all on one stream in program order
 * (so an eviction's write-back and the next use of its pool space cannot race); the graph
 * schedule's segments are stream-captured and replayed with cudaGraphLaunch. Every copy is
 * timed with events and waited for, so the copy time per run is measured and a host buffer is
 * never changed under a copy in flight. Never managed memory. */
#ifndef EIGEN_DEV_CUDA_H
#define EIGEN_DEV_CUDA_H

#include "eigen_dev.h"
#include "rt_error.h"

typedef struct eg_cuda_dev eg_cuda_dev;

int eg_cuda_dev_create(eg_cuda_dev **out, rt_err *err);
void eg_cuda_dev_destroy(eg_cuda_dev *d);
eg_dev eg_cuda_dev_ops(eg_cuda_dev *d);

/* Page-locks [host, host + bytes) ranges for the copies (cudaHostRegister). Ranges are merged by
 * page first, so adjacent tiles of one allocation are registered once. */
int eg_cuda_dev_pin(eg_cuda_dev *d, void *const *host, const size_t *bytes, int n, rt_err *err);
/* Unregisters what eg_cuda_dev_pin registered (before the host memory is freed). */
void eg_cuda_dev_unpin(eg_cuda_dev *d);

/* Seconds the copies took since the last reset (event-timed), and a reset. */
double eg_cuda_dev_copy_seconds(const eg_cuda_dev *d);
void eg_cuda_dev_reset_copy_seconds(eg_cuda_dev *d);

#endif
