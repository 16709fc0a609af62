#include "rowsum_cuda_kernel.h"

#include <cuda_runtime.h>

static __global__ void rowsum_kernel(int64_t rows, const int64_t *rowptr, const double *val,
                                     double *y)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    double s = 0;
    for (int64_t e = rowptr[r]; e < rowptr[r + 1]; ++e)
        s += val[e];
    y[r] = s;
}

extern "C" int rowsum_cuda_launch(void *stream, int block, int64_t rows, const int64_t *rowptr,
                                  const double *val, double *y)
{
    const int64_t grid = (rows + block - 1) / block;
    if (grid > 0)
        rowsum_kernel<<<(unsigned)grid, block, 0, (cudaStream_t)stream>>>(rows, rowptr, val, y);
    return (int)cudaGetLastError();
}
