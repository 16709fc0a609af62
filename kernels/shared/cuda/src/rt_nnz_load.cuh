// rt_nnz_load: where a thread's nonzeros of a stage lie (rt_nnz_list), and the nonzeros of a stage
// of A that a thread of a Tiled kernel (spmm_tiled.cu, spmm_tiled_pipe.cu, spdnn_fused.cu)
// multiplies next, UNROLL of them loaded before the first is used so that that many loads are in
// flight: the values and staged-column slots at positions at .. at + UNROLL - 1 of the thread's
// list, stride apart (WARP_SIZE in a warp's ELL slice, 1 in a CSR row), and zeros (slot 0) past
// count. Embedded like rt_async_copy.cuh.
#ifndef RT_NNZ_LOAD_CUH
#define RT_NNZ_LOAD_CUH

// The thread's list in a stage: entry `list` of the stage offsets displ holds it, width entries
// per list position (WARP_SIZE for a warp's ELL slice, read from the thread's lane; 1 for a CSR
// row, lane 0). Points vp and ip at its first value and slot; returns its length.
template <typename T, typename I>
__device__ __forceinline__ int rt_nnz_list(const long long *displ, const T *value, const I *index,
                                           const long long list, const int width, const int lane,
                                           const T *&vp, const I *&ip)
{
    const long long first = displ[list];
    const int count = (int)(displ[list + 1] - first);
    vp = value + first * width + lane;
    ip = index + first * width + lane;
    return count;
}

template <int UNROLL, typename T, typename I>
__device__ __forceinline__ void rt_nnz_load(const T *__restrict__ vp, const I *__restrict__ ip,
                                            const int at, const int count, const int stride,
                                            T (&a)[UNROLL], int (&slot)[UNROLL])
{
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
        const bool in = at + u < count;
        a[u] = in ? vp[(at + u) * stride] : (T)0;
        slot[u] = in ? (int)ip[(at + u) * stride] : 0;
    }
}

#endif
