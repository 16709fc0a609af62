/* The activity timeline of the CUDA plugin (roofline/cuda/rt_cupti_timeline.c) on a real device:
 * a traced stream of host-to-device copy, kernel (cuBLAS's dscal) and device-to-host copy comes
 * back as one record of each, with the bytes each copy moved, start before end, and in the
 * stream's order; a peer copy between two GPUs (where there are two with peer access) comes back
 * as a p2p record of its bytes; nothing done after stop is recorded; a second start and a stop
 * without a start are refused. Started through rt_gpu_launch, which exits 77 (skipped) where there
 * is no driver or no device (this program links CUPTI, which needs the driver to start). */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdio.h>
#include <string.h>

#include "rt_cupti_timeline.h"
#include "rt_test.h"
#include "rt_timeline.h"

#define N ((size_t)1 << 20) /* doubles: 8 MiB a copy, long enough to time */

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        const cudaError_t rc_ = (call);                                                            \
        if (rc_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                          \
                    cudaGetErrorString(rc_));                                                      \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* The one record of kind k in l, or NULL when there is none or more than one (counted in *n). */
static const rt_timeline_record *only(const rt_timeline_list *l, rt_timeline_kind k, int *n)
{
    const rt_timeline_record *found = NULL;
    *n = 0;
    for (int64_t i = 0; i < l->n; ++i)
        if (l->v[i].kind == k) {
            found = &l->v[i];
            ++*n;
        }
    return *n == 1 ? found : NULL;
}

static int stream_trace(void)
{
    double *host = NULL, *dev = NULL;
    cudaStream_t s;
    cublasHandle_t blas;
    CUDA_OK(cudaSetDevice(0));
    CUDA_OK(cudaMallocHost((void **)&host, N * sizeof *host));
    CUDA_OK(cudaMalloc((void **)&dev, N * sizeof *dev));
    CUDA_OK(cudaStreamCreate(&s));
    for (size_t i = 0; i < N; ++i)
        host[i] = (double)i;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cublasSetStream(blas, s) != 0) {
        fprintf(stderr, "FAIL: cuBLAS does not start\n");
        return 1;
    }
    const double two = 2.0;
    /* Once untraced: cuBLAS and the module load before the timeline starts. */
    RT_CHECK(cublasDscal(blas, (int)N, &two, dev, 1) == CUBLAS_STATUS_SUCCESS);
    CUDA_OK(cudaStreamSynchronize(s));

    rt_timeline_list l = {0};
    rt_err err;
    RT_CHECK_MSG(rt_cupti_timeline_start(NULL, &l, &err) == 0, "%s", err.msg);
    rt_timeline_list other = {0};
    RT_CHECK(rt_cupti_timeline_start(NULL, &other, &err) != 0 &&
             rt_test_contains(err.msg, "already"));
    CUDA_OK(cudaMemcpyAsync(dev, host, N * sizeof *host, cudaMemcpyHostToDevice, s));
    RT_CHECK(cublasDscal(blas, (int)N, &two, dev, 1) == CUBLAS_STATUS_SUCCESS);
    CUDA_OK(cudaMemcpyAsync(host, dev, N * sizeof *host, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    RT_CHECK_MSG(rt_cupti_timeline_stop(NULL, &err) == 0, "%s", err.msg);
    RT_CHECK(host[N - 1] == 2.0 * (double)(N - 1));
    const int64_t kept = l.n;
    /* Not traced any more. */
    CUDA_OK(cudaMemcpyAsync(dev, host, N * sizeof *host, cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaStreamSynchronize(s));
    RT_CHECK(l.n == kept);
    RT_CHECK(rt_cupti_timeline_stop(NULL, &err) != 0 && rt_test_contains(err.msg, "without"));

    int nh = 0, nk = 0, nd = 0;
    const rt_timeline_record *h2d = only(&l, RT_TIMELINE_H2D, &nh);
    const rt_timeline_record *k = only(&l, RT_TIMELINE_KERNEL, &nk);
    const rt_timeline_record *d2h = only(&l, RT_TIMELINE_D2H, &nd);
    RT_CHECK_MSG(h2d && k && d2h, "%d h2d, %d kernel, %d d2h record(s) of %lld", nh, nk, nd,
                 (long long)l.n);
    if (h2d && k && d2h) {
        printf("h2d %llu B %.1f us, kernel %s %.1f us, d2h %llu B %.1f us\n",
               (unsigned long long)h2d->bytes, (h2d->end_ns - h2d->start_ns) * 1e-3, k->name,
               (k->end_ns - k->start_ns) * 1e-3, (unsigned long long)d2h->bytes,
               (d2h->end_ns - d2h->start_ns) * 1e-3);
        RT_CHECK(h2d->bytes == N * sizeof(double) && d2h->bytes == N * sizeof(double));
        RT_CHECK(k->bytes == 0 && k->name[0] != '\0');
        RT_CHECK(h2d->start_ns < h2d->end_ns && k->start_ns < k->end_ns &&
                 d2h->start_ns < d2h->end_ns);
        /* One stream: each starts after the one before it ended. */
        RT_CHECK(h2d->end_ns <= k->start_ns && k->end_ns <= d2h->start_ns);
        RT_CHECK(h2d->device == 0 && k->device == 0 && d2h->device == 0);
        RT_CHECK(h2d->stream == k->stream && k->stream == d2h->stream);
    }
    rt_timeline_free(&l);
    cublasDestroy(blas);
    cudaStreamDestroy(s);
    cudaFree(dev);
    cudaFreeHost(host);
    return 0;
}

/* A peer copy from GPU 1 to GPU 0 where two GPUs can reach each other. */
static int peer_trace(void)
{
    int count = 0, can = 0;
    CUDA_OK(cudaGetDeviceCount(&count));
    if (count >= 2)
        CUDA_OK(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (!can) {
        printf("p2p: skipped (%d GPU(s), peer access %s)\n", count, count >= 2 ? "off" : "n/a");
        return 0;
    }
    const size_t bytes = (size_t)32 << 20;
    void *a = NULL, *b = NULL;
    CUDA_OK(cudaSetDevice(1));
    CUDA_OK(cudaMalloc(&b, bytes));
    CUDA_OK(cudaSetDevice(0));
    CUDA_OK(cudaMalloc(&a, bytes));
    const cudaError_t peer = cudaDeviceEnablePeerAccess(1, 0);
    if (peer != cudaSuccess && peer != cudaErrorPeerAccessAlreadyEnabled)
        CUDA_OK(peer);
    (void)cudaGetLastError();
    rt_timeline_list l = {0};
    rt_err err;
    RT_CHECK_MSG(rt_cupti_timeline_start(NULL, &l, &err) == 0, "%s", err.msg);
    CUDA_OK(cudaMemcpyPeerAsync(a, 0, b, 1, bytes, 0));
    CUDA_OK(cudaDeviceSynchronize());
    RT_CHECK_MSG(rt_cupti_timeline_stop(NULL, &err) == 0, "%s", err.msg);
    int np = 0;
    const rt_timeline_record *p = only(&l, RT_TIMELINE_P2P, &np);
    RT_CHECK_MSG(p != NULL, "%d p2p record(s) of %lld", np, (long long)l.n);
    if (p) {
        printf("p2p %llu B on GPU %d, %.1f us\n", (unsigned long long)p->bytes, p->device,
               (p->end_ns - p->start_ns) * 1e-3);
        RT_CHECK(p->bytes == bytes && p->start_ns < p->end_ns);
        RT_CHECK(p->device == 0 || p->device == 1);
    }
    rt_timeline_free(&l);
    cudaFree(a);
    CUDA_OK(cudaSetDevice(1));
    cudaFree(b);
    return 0;
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    if (stream_trace() != 0 || peer_trace() != 0)
        return 1;
    if (rt_test_failures == 0)
        printf("timeline on the GPU: records as traced\n");
    return RT_TEST_RESULT();
}
