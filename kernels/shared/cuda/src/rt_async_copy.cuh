// rt_async_copy: cp.async copies from global to shared memory (sm_80+), shared by the NVRTC
// kernels that stage B in a ring of buffers (spmm_tiled_pipe.cu, spdnn_fused.cu). The copies do
// not pass through registers, so the next stage's gathers stay in flight while the current stage
// is consumed. Device code only; the embed step (backends/cuda/embed_sources.cmake) puts this text
// in place of the #include line, so a kernel's embedded source, and its cache key, carry it.
#ifndef RT_ASYNC_COPY_CUH
#define RT_ASYNC_COPY_CUH

// The shared-state-space address of a generic pointer into shared memory (cp.async's
// destination operand).
__device__ __forceinline__ unsigned rt_shared_address(const void *p)
{
    unsigned address;
    asm("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(address) : "l"(p));
    return address;
}

// Copies BYTES (4, 8 or 16) from global src to shared dst; with valid false nothing is read and
// dst is zero-filled (src-size 0), which stages the columns past K of a last register tile as
// zeros. 16-byte copies bypass L1 (.cg): a staged row is reused from shared memory, never from L1.
template <int BYTES>
__device__ __forceinline__ void rt_copy_async(void *dst, const void *src, bool valid)
{
    const unsigned d = rt_shared_address(dst);
    const int src_bytes = valid ? BYTES : 0;
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src),
                     "r"(src_bytes)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(d), "l"(src),
                     "n"(BYTES), "r"(src_bytes)
                     : "memory");
}

// Closes this thread's group of copies issued since the last commit.
__device__ __forceinline__ void rt_copy_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

// Waits until at most PENDING of this thread's most recent copy groups are still in flight.
template <int PENDING> __device__ __forceinline__ void rt_copy_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
}

#endif
