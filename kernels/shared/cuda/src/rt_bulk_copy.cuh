// rt_bulk_copy: Hopper's bulk asynchronous copies (the 1D form of the Tensor Memory Accelerator,
// cp.async.bulk, sm_90) and the shared-memory barriers (mbarrier) that count their bytes, for the
// NVRTC kernels that stage B with them (spmm_tiled_tma.cu). A bulk copy moves a contiguous run of
// bytes between global and shared memory without passing through registers or the issuing
// thread's load queue; its source, destination and size must all be multiples of 16 bytes (the
// host's rules refuse every point that would break that, kernels/spmm/spmm_tiled_tma_rules.h).
// A copy into shared memory completes on an mbarrier: the barrier's phase ends when its arrivals
// are in and the bytes announced with expect_tx have all landed, and a thread that waits for that
// phase then sees the data. Embedded like rt_async_copy.cuh; include that header first (shared
// headers include nothing themselves): this one uses its rt_shared_address.
#ifndef RT_BULK_COPY_CUH
#define RT_BULK_COPY_CUH

#ifndef RT_ASYNC_COPY_CUH
#error "include rt_async_copy.cuh before rt_bulk_copy.cuh"
#endif

// Initialises the barrier at bar for `count` arrivals per phase (one thread, before any use).
__device__ __forceinline__ void rt_mbar_init(unsigned long long *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(rt_shared_address(bar)),
                 "r"(count)
                 : "memory");
}

// Makes initialised barriers visible to the other threads and to the copy engine (the async
// proxy); a block barrier must follow before anyone uses them.
__device__ __forceinline__ void rt_mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` more bytes that copies will complete on this phase.
__device__ __forceinline__ void rt_mbar_arrive_expect_tx(unsigned long long *bar, unsigned bytes)
{
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(rt_shared_address(bar)),
        "r"(bytes)
        : "memory");
}

// One plain arrival (release: this thread's earlier shared-memory reads are done).
__device__ __forceinline__ void rt_mbar_arrive(unsigned long long *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(rt_shared_address(bar))
                 : "memory");
}

// Waits until the phase of parity `parity` (0 or 1) of the barrier has completed.
__device__ __forceinline__ void rt_mbar_wait(unsigned long long *bar, unsigned parity)
{
    const unsigned address = rt_shared_address(bar);
    unsigned done = 0;
    do {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(address), "r"(parity)
                     : "memory");
    } while (!done);
}

// Copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global src to shared
// dst; the bytes complete on barrier bar (which must expect them).
__device__ __forceinline__ void rt_bulk_load(void *dst, const void *src, unsigned bytes,
                                             unsigned long long *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];\n" ::"r"(rt_shared_address(dst)),
                 "l"(src), "r"(bytes), "r"(rt_shared_address(bar))
                 : "memory");
}

// Orders this thread's earlier generic writes of shared memory before later bulk copies that read
// it (the copy engine is another proxy).
__device__ __forceinline__ void rt_bulk_fence_shared()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Copies `bytes` (a multiple of 16, 16-byte aligned) from shared src to global dst, in this
// thread's current bulk group.
__device__ __forceinline__ void rt_bulk_store(void *dst, const void *src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst),
                 "r"(rt_shared_address(src)), "r"(bytes)
                 : "memory");
}

// Closes this thread's bulk group of stores.
__device__ __forceinline__ void rt_bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until this thread's bulk groups have read their shared sources (the area may be written
// again) ...
__device__ __forceinline__ void rt_bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

// ... or have completed their writes to global memory.
__device__ __forceinline__ void rt_bulk_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

#endif
