#include "sptrsv_cuda_ipc_send.h"

#include <cuda_runtime.h>

#define SEND_THREADS 256

__global__ static void sptrsv_ipc_send_kernel(const double *src, double *peer_dst, int64_t n,
                                              unsigned long long *peer_counter)
{
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        peer_dst[i] = src[i];
    /* Each thread's stores to the peer reach it before anything this thread does after the fence;
     * the barrier then orders them before thread 0's increment. */
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd_system(peer_counter, 1ull);
}

extern "C" int sptrsv_cuda_ipc_send_launch(void *stream, const double *src, double *peer_dst,
                                           int64_t n, unsigned long long *peer_counter)
{
    sptrsv_ipc_send_kernel<<<1, SEND_THREADS, 0, (cudaStream_t)stream>>>(src, peer_dst, n,
                                                                         peer_counter);
    return (int)cudaGetLastError();
}
