// rt_probe_gpu: the GPU half of `rooftune probe` (rt_cuda_probe in rt_cuda_roofline.h).
//
// Every ceiling is the best of a small sweep, in the spirit of the Empirical Roofline Toolkit:
// one kernel reads an element, applies a chain of FMAs (the flops per element), and writes it back,
// over a working set sized for the level under test and repeated `trials` times. Few flops per
// element and a working set far beyond the L2 give the DRAM ceiling; the same with a working set
// well inside the L2 and L1-bypassing loads/stores (ld.cg/st.cg) gives the L2 ceiling; many flops
// per element give the compute ceilings. Dedicated kernels add what the sweep cannot reach: a
// 16-byte-vector copy for DRAM, independent FMA chains for the peaks, and a shared-memory reader.
// Bytes are counted as read plus written, like STREAM.
#include <cuda_runtime.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cuda_roofline.h"

namespace
{

const int kReps = 5; // best of

int cuda_fail(rt_err *err, cudaError_t rc, const char *call)
{
    (void)cudaGetLastError(); // clear a sticky launch error so later calls can report their own
    return rt_err_set(err, "GPU probe: %s failed: %s (%s)", call, cudaGetErrorName(rc),
                      cudaGetErrorString(rc));
}

#define PROBE_CHECK(call)                                                                          \
    do {                                                                                           \
        cudaError_t probe_rc_ = (call);                                                            \
        if (probe_rc_ != cudaSuccess) {                                                            \
            cuda_fail(err, probe_rc_, #call);                                                      \
            goto fail;                                                                             \
        }                                                                                          \
    } while (0)

// ---- kernels ------------------------------------------------------------------------------------

template <typename T, int FMA_PER_ELEMENT, bool L2_ONLY>
__global__ void ert_kernel(T *buf, size_t n, int trials, T alpha)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (int t = 0; t < trials; ++t) {
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
            T b = L2_ONLY ? __ldcg(buf + i) : buf[i];
#pragma unroll
            for (int k = 0; k < FMA_PER_ELEMENT; ++k)
                b = fma(b, alpha, alpha);
            if (L2_ONLY)
                __stcg(buf + i, b);
            else
                buf[i] = b;
        }
    }
}

__global__ void copy_vec4(float4 *__restrict__ dst, const float4 *__restrict__ src, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

// Eight independent chains per thread cover the FMA latency even at low occupancy.
template <typename T> __global__ void fma_chains(T *out, int iters, T x, T y)
{
    T a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5,
      a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < 16; ++u) {
            a0 = fma(a0, x, y);
            a1 = fma(a1, x, y);
            a2 = fma(a2, x, y);
            a3 = fma(a3, x, y);
            a4 = fma(a4, x, y);
            a5 = fma(a5, x, y);
            a6 = fma(a6, x, y);
            a7 = fma(a7, x, y);
        }
    }
    const T sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    if (sum == (T)-12345.678) // never true for these inputs; keeps the chains alive
        out[threadIdx.x] = sum;
}

// Each thread reads float4 values from shared memory, a warp 32 consecutive ones per step (no bank
// conflicts), and folds them into an accumulator.
__global__ void shared_read(float *out, int iters)
{
    extern __shared__ float4 smem[];
    const int n = blockDim.x * 4;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        smem[i] = make_float4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    float4 acc = make_float4(0, 0, 0, 0);
    const int mask = n - 1; // n is a power of two (block sizes are)
    int idx = threadIdx.x;
    for (int it = 0; it < iters; ++it) {
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            const float4 v = smem[(idx + u * 32) & mask];
            acc.x += v.x;
            acc.y += v.y;
            acc.z += v.z;
            acc.w += v.w;
        }
        idx = (idx + 256) & mask;
    }
    if (acc.x + acc.y + acc.z + acc.w == -1.0f)
        out[threadIdx.x] = acc.x;
}

// ---- timing -------------------------------------------------------------------------------------

struct timer {
    cudaStream_t stream;
    cudaEvent_t start, stop;
};

int timer_elapsed(const timer *t, double *seconds, const char *what, rt_err *err)
{
    float ms = 0;
    cudaError_t rc = cudaEventSynchronize(t->stop);
    if (rc == cudaSuccess)
        rc = cudaGetLastError();
    if (rc == cudaSuccess)
        rc = cudaEventElapsedTime(&ms, t->start, t->stop);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, what);
    *seconds = ms * 1e-3;
    return 0;
}

// Destroys the timer's events and stream, those created (a member still 0 was not).
void timer_release(timer *t)
{
    if (t->start)
        cudaEventDestroy(t->start);
    if (t->stop)
        cudaEventDestroy(t->stop);
    if (t->stream)
        cudaStreamDestroy(t->stream);
}

// The best (shortest) of kReps timed runs of launch() on the timer's stream; launch returns 0 or
// fills err and returns -1.
template <typename F>
int best_of(const timer *t, F launch, const char *what, double *best, rt_err *err)
{
    *best = INFINITY;
    for (int r = 0; r < kReps; ++r) {
        cudaEventRecord(t->start, t->stream);
        if (launch() != 0)
            return -1;
        cudaEventRecord(t->stop, t->stream);
        double s;
        if (timer_elapsed(t, &s, what, err) != 0)
            return -1;
        if (s < *best)
            *best = s;
    }
    return 0;
}

template <typename T, int FPE, bool L2>
int time_ert(const timer *t, T *buf, size_t n, int trials, int blocks, int threads, double *best,
             rt_err *err)
{
    const auto launch = [&] {
        ert_kernel<T, FPE, L2><<<blocks, threads, 0, t->stream>>>(buf, n, trials, (T)0.999);
        return 0;
    };
    return best_of(t, launch, "ERT sweep kernel", best, err);
}

struct ceilings {
    double fp32, fp64, dram, l2, shared, h2d, d2h, h2d_pageable, d2h_pageable;
};

// One ERT point: updates the bandwidth ceiling of its level and the compute ceiling of its type.
template <typename T, int FPE, bool L2>
int ert_point(const timer *t, void *buf, size_t ws_bytes, int blocks, int threads, ceilings *c,
              rt_err *err)
{
    const size_t n = ws_bytes / sizeof(T);
    // Enough trials that a launch moves at least ~2 GB, so launch overhead does not count.
    const int trials = (int)(ws_bytes >= ((size_t)2 << 30) ? 1 : (((size_t)2 << 30) / ws_bytes));
    double s;
    if (time_ert<T, FPE, L2>(t, (T *)buf, n, trials, blocks, threads, &s, err) != 0)
        return -1;
    const double bytes = 2.0 * sizeof(T) * (double)n * trials;
    const double flops = 2.0 * FPE * (double)n * trials;
    double *bw = L2 ? &c->l2 : &c->dram;
    if (bytes / s / 1e9 > *bw)
        *bw = bytes / s / 1e9;
    double *peak = sizeof(T) == 8 ? &c->fp64 : &c->fp32;
    if (flops / s / 1e9 > *peak)
        *peak = flops / s / 1e9;
    return 0;
}

template <typename T>
int ert_sweep_type(const timer *t, void *buf, size_t l2_bytes, size_t big_bytes, int sms,
                   ceilings *c, rt_err *err)
{
    const int blocks = sms * 8, threads = 256;
    // L2: working sets of 1/8 and 1/4 of the L2 (both partitions of a split L2 hold it).
    const size_t l2_sets[2] = {l2_bytes / 8, l2_bytes / 4};
    for (int w = 0; w < 2; ++w) {
        if (ert_point<T, 1, true>(t, buf, l2_sets[w], blocks, threads, c, err) ||
            ert_point<T, 2, true>(t, buf, l2_sets[w], blocks, threads, c, err) ||
            ert_point<T, 8, true>(t, buf, l2_sets[w], blocks, threads, c, err) ||
            ert_point<T, 64, true>(t, buf, l2_sets[w], blocks, threads, c, err) ||
            ert_point<T, 256, true>(t, buf, l2_sets[w], blocks, threads, c, err))
            return -1;
    }
    // DRAM: working sets far beyond the L2.
    const size_t dram_sets[2] = {big_bytes / 2, big_bytes};
    for (int w = 0; w < 2; ++w) {
        if (ert_point<T, 1, false>(t, buf, dram_sets[w], blocks, threads, c, err) ||
            ert_point<T, 2, false>(t, buf, dram_sets[w], blocks, threads, c, err) ||
            ert_point<T, 8, false>(t, buf, dram_sets[w], blocks, threads, c, err))
            return -1;
    }
    return 0;
}

template <typename T>
int peak_sweep(const timer *t, float *scratch, int sms, double *peak, rt_err *err)
{
    const int threads_options[2] = {256, 1024};
    const int iters = 2048;
    for (int a = 0; a < 2; ++a) {
        for (int per_sm = 2; per_sm <= 8; per_sm *= 2) {
            const int threads = threads_options[a];
            const int blocks = sms * per_sm * 256 / threads;
            const auto launch = [&] {
                fma_chains<T>
                    <<<blocks, threads, 0, t->stream>>>((T *)scratch, iters, (T)0.9999, (T)1e-4);
                return 0;
            };
            double best;
            if (best_of(t, launch, "FMA-chain kernel", &best, err) != 0)
                return -1;
            const double flops = 2.0 * 8 * 16 * (double)iters * blocks * threads;
            if (flops / best / 1e9 > *peak)
                *peak = flops / best / 1e9;
        }
    }
    return 0;
}

int shared_sweep(const timer *t, float *scratch, int sms, double *gbs, rt_err *err)
{
    const int threads_options[3] = {256, 512, 1024};
    const int iters = 4096;
    // 1024 threads stage 64 KiB: above the 48 KiB default, so opt in to the larger limit.
    const cudaError_t rc = cudaFuncSetAttribute(
        shared_read, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024 * 4 * (int)sizeof(float4));
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cudaFuncSetAttribute(shared-memory kernel)");
    for (int a = 0; a < 3; ++a) {
        const int threads = threads_options[a];
        const size_t smem = (size_t)threads * 4 * sizeof(float4);
        for (int per_sm = 1; per_sm <= 4; per_sm *= 2) {
            const int blocks = sms * per_sm;
            const auto launch = [&] {
                shared_read<<<blocks, threads, smem, t->stream>>>(scratch, iters);
                return 0;
            };
            double best;
            if (best_of(t, launch, "shared-memory kernel", &best, err) != 0)
                return -1;
            const double bytes = 8.0 * sizeof(float4) * (double)iters * blocks * threads;
            if (bytes / best / 1e9 > *gbs)
                *gbs = bytes / best / 1e9;
        }
    }
    return 0;
}

int copy_sweep(const timer *t, void *a, void *b, size_t bytes, int sms, double *gbs, rt_err *err)
{
    const size_t n = bytes / sizeof(float4);
    const int threads_options[2] = {256, 1024};
    for (int o = 0; o < 2; ++o) {
        for (int per_sm = 1; per_sm <= 8; per_sm *= 2) {
            const int threads = threads_options[o];
            const int blocks = sms * per_sm * 1024 / threads;
            const auto launch = [&] {
                copy_vec4<<<blocks, threads, 0, t->stream>>>((float4 *)b, (const float4 *)a, n);
                return 0;
            };
            double best;
            if (best_of(t, launch, "vector copy kernel", &best, err) != 0)
                return -1;
            const double moved = 2.0 * (double)n * sizeof(float4);
            if (moved / best / 1e9 > *gbs)
                *gbs = moved / best / 1e9;
        }
    }
    return 0;
}

// Host<->device: cudaMemcpyAsync of `bytes`, best of kReps.
int memcpy_best(const timer *t, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                double *gbs, rt_err *err)
{
    const auto copy = [&] {
        const cudaError_t rc = cudaMemcpyAsync(dst, src, bytes, kind, t->stream);
        return rc == cudaSuccess ? 0 : cuda_fail(err, rc, "cudaMemcpyAsync");
    };
    double best;
    if (best_of(t, copy, "host<->device copy", &best, err) != 0)
        return -1;
    *gbs = (double)bytes / best / 1e9;
    return 0;
}

int host_links(const timer *t, void *dev, size_t bytes, ceilings *c, rt_err *err)
{
    void *pinned = NULL, *pageable = NULL;
    cudaError_t rc = cudaMallocHost(&pinned, bytes);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cudaMallocHost");
    pageable = malloc(bytes);
    int ok = pageable != NULL;
    if (!ok)
        rt_err_set(err, "GPU probe: cannot allocate %zu bytes of pageable host memory", bytes);
    if (ok) {
        memset(pinned, 1, bytes);
        memset(pageable, 1, bytes); // touched, so the pageable copy does not time page faults
        ok = memcpy_best(t, dev, pinned, bytes, cudaMemcpyHostToDevice, &c->h2d, err) == 0 &&
             memcpy_best(t, pinned, dev, bytes, cudaMemcpyDeviceToHost, &c->d2h, err) == 0 &&
             memcpy_best(t, dev, pageable, bytes, cudaMemcpyHostToDevice, &c->h2d_pageable, err) ==
                 0 &&
             memcpy_best(t, pageable, dev, bytes, cudaMemcpyDeviceToHost, &c->d2h_pageable, err) ==
                 0;
    }
    free(pageable);
    cudaFreeHost(pinned);
    return ok ? 0 : -1;
}

// One entry per ordered pair of GPUs with peer access: a cudaMemcpyPeerAsync of `bytes` from src
// to dst, timed on src's stream, best of kReps.
int peer_sweep(FILE *out, size_t bytes, rt_err *err)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess)
        return cuda_fail(err, rc, "cudaGetDeviceCount");
    if (count < 2)
        return 0;
    int current = 0;
    cudaGetDevice(&current);
    int printed_header = 0;
    for (int s = 0; s < count; ++s) {
        for (int d = 0; d < count; ++d) {
            if (s == d)
                continue;
            int can = 0;
            if (cudaDeviceCanAccessPeer(&can, s, d) != cudaSuccess || !can)
                continue;
            void *src = NULL, *dst = NULL;
            timer t = {0, 0, 0};
            double best = INFINITY;
            int ok = 1;
            rc = cudaSetDevice(d);
            if (rc == cudaSuccess)
                rc = cudaMalloc(&dst, bytes);
            if (rc == cudaSuccess)
                rc = cudaSetDevice(s);
            if (rc == cudaSuccess) {
                rc = cudaDeviceEnablePeerAccess(d, 0);
                if (rc == cudaErrorPeerAccessAlreadyEnabled) {
                    (void)cudaGetLastError();
                    rc = cudaSuccess;
                }
            }
            if (rc == cudaSuccess)
                rc = cudaMalloc(&src, bytes);
            if (rc == cudaSuccess)
                rc = cudaMemset(src, 1, bytes);
            if (rc == cudaSuccess)
                rc = cudaStreamCreate(&t.stream);
            if (rc == cudaSuccess)
                rc = cudaEventCreate(&t.start);
            if (rc == cudaSuccess)
                rc = cudaEventCreate(&t.stop);
            if (rc != cudaSuccess) {
                ok = 0;
                cuda_fail(err, rc, "peer copy setup");
            }
            for (int r = 0; ok && r < kReps; ++r) {
                cudaEventRecord(t.start, t.stream);
                rc = cudaMemcpyPeerAsync(dst, d, src, s, bytes, t.stream);
                if (rc != cudaSuccess) {
                    ok = 0;
                    cuda_fail(err, rc, "cudaMemcpyPeerAsync");
                    break;
                }
                cudaEventRecord(t.stop, t.stream);
                double sec;
                if (timer_elapsed(&t, &sec, "peer copy", err) != 0)
                    ok = 0;
                else if (sec < best)
                    best = sec;
            }
            timer_release(&t);
            cudaFree(src);
            cudaSetDevice(d);
            cudaFree(dst);
            cudaSetDevice(current);
            if (!ok)
                return -1;
            if (!printed_header) {
                fprintf(out,
                        "  peers:                    # cudaMemcpyPeerAsync, %zu bytes, one "
                        "direction, best of %d\n",
                        bytes, kReps);
                printed_header = 1;
            }
            fprintf(out, "    - {src: %d, dst: %d, bandwidth_gbs: %.5g}\n", s, d,
                    (double)bytes / best / 1e9);
        }
    }
    return 0;
}

} // namespace

extern "C" int rt_cuda_probe(void *plugin_state, void *file, rt_err *err)
{
    (void)plugin_state;
    FILE *out = (FILE *)file;
    if (!out)
        return rt_err_set(err, "GPU probe: no output file");
    int dev = 0, runtime = 0, driver = 0;
    cudaDeviceProp prop;
    timer t = {0, 0, 0};
    void *a = NULL, *b = NULL;
    float *scratch = NULL;
    ceilings c;
    memset(&c, 0, sizeof c);
    size_t free_b = 0, total_b = 0, big = 0, l2 = 0;
    int sms = 0;

    PROBE_CHECK(cudaGetDevice(&dev));
    PROBE_CHECK(cudaGetDeviceProperties(&prop, dev));
    PROBE_CHECK(cudaRuntimeGetVersion(&runtime));
    PROBE_CHECK(cudaDriverGetVersion(&driver));
    PROBE_CHECK(cudaMemGetInfo(&free_b, &total_b));
    sms = prop.multiProcessorCount;
    l2 = prop.l2CacheSize > 0 ? (size_t)prop.l2CacheSize : (size_t)4 << 20;
    // Two buffers for the copy and the DRAM working sets: 32 x L2 each (1.6 GB on an H100),
    // at most a quarter of the free memory each.
    big = 32 * l2;
    if (big > free_b / 4)
        big = free_b / 4;
    big &= ~(size_t)4095;
    if (big < 8 * l2) {
        rt_err_set(err, "GPU probe: only %zu bytes free on device %d; the DRAM sweep needs %zu",
                   free_b, dev, 16 * l2);
        goto fail;
    }
    PROBE_CHECK(cudaStreamCreateWithFlags(&t.stream, cudaStreamNonBlocking));
    PROBE_CHECK(cudaEventCreate(&t.start));
    PROBE_CHECK(cudaEventCreate(&t.stop));
    PROBE_CHECK(cudaMalloc(&a, big));
    PROBE_CHECK(cudaMalloc(&b, big));
    PROBE_CHECK(cudaMalloc((void **)&scratch, 1 << 20));
    PROBE_CHECK(cudaMemset(a, 0, big));
    PROBE_CHECK(cudaMemset(b, 0, big));

    if (ert_sweep_type<float>(&t, a, l2, big, sms, &c, err) != 0 ||
        ert_sweep_type<double>(&t, a, l2, big, sms, &c, err) != 0 ||
        copy_sweep(&t, a, b, big, sms, &c.dram, err) != 0 ||
        peak_sweep<float>(&t, scratch, sms, &c.fp32, err) != 0 ||
        peak_sweep<double>(&t, scratch, sms, &c.fp64, err) != 0 ||
        shared_sweep(&t, scratch, sms, &c.shared, err) != 0 ||
        host_links(&t, a, (size_t)256 << 20 < big ? (size_t)256 << 20 : big, &c, err) != 0)
        goto fail;

    fprintf(out,
            "  # GPU probe: %s (device %d, %d SMs, L2 %zu bytes), CUDA runtime %d, driver %d\n",
            prop.name, dev, sms, l2, runtime, driver);
    fprintf(out, "  fp32_gflops: %.6g      # best of FMA-chain kernels and the ERT sweep\n",
            c.fp32);
    fprintf(out, "  fp64_gflops: %.6g\n", c.fp64);
    fprintf(out,
            "  dram_gbs: %.6g         # bytes read + written; best of vector copy and ERT sweep "
            "(working sets up to %zu bytes)\n",
            c.dram, big);
    fprintf(out,
            "  l2_gbs: %.6g           # ERT sweep with ld.cg/st.cg, working sets of L2/8 and "
            "L2/4\n",
            c.l2);
    fprintf(out, "  shared_gbs: %.6g       # conflict-free float4 shared-memory reads\n", c.shared);
    fprintf(out, "  h2d_gbs: %.6g          # pinned host memory, cudaMemcpyAsync\n", c.h2d);
    fprintf(out, "  d2h_gbs: %.6g\n", c.d2h);
    fprintf(out, "  h2d_pageable_gbs: %.6g\n", c.h2d_pageable);
    fprintf(out, "  d2h_pageable_gbs: %.6g\n", c.d2h_pageable);
    cudaFree(a);
    cudaFree(b);
    cudaFree(scratch);
    a = b = NULL;
    scratch = NULL;
    if (peer_sweep(out, (size_t)256 << 20, err) != 0)
        goto fail;
    cudaEventDestroy(t.start);
    cudaEventDestroy(t.stop);
    cudaStreamDestroy(t.stream);
    return 0;

fail:
    cudaFree(a);
    cudaFree(b);
    cudaFree(scratch);
    timer_release(&t);
    return -1;
}
