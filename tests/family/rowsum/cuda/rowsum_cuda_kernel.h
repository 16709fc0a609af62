/* rowsum_cuda_kernel: the device code of rowsum.cuda.simple (whole-program CUDA, nvcc). */
#ifndef ROWSUM_CUDA_KERNEL_H
#define ROWSUM_CUDA_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues y[r] = sum of row r on `stream` (a cudaStream_t); returns the launch's cudaError_t. */
int rowsum_cuda_launch(void *stream, int block, int64_t rows, const int64_t *rowptr,
                       const double *val, double *y);

#ifdef __cplusplus
}
#endif

#endif
