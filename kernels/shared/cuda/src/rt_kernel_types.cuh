// rt_kernel_types: the value type and launch bounds that the SpMM-style NVRTC kernels derive from
// their defines (spmm_csr.cu, spmm_ell.cu, spmm_tiled.cu, spmm_tiled_pipe.cu, spdnn_fused.cu).
// Include it after the kernel's own defaults: it reads RT_FP64 (0 when absent), BLOCK_SIZE and
// MIN_BLOCKS (0: no minimum of blocks per SM). Embedded like rt_async_copy.cuh.
#ifndef RT_KERNEL_TYPES_CUH
#define RT_KERNEL_TYPES_CUH

#if !defined(BLOCK_SIZE) || !defined(MIN_BLOCKS)
#error "rt_kernel_types.cuh reads BLOCK_SIZE and MIN_BLOCKS: define them (or their defaults) first"
#endif
#ifndef RT_FP64
#define RT_FP64 0
#endif

#if RT_FP64
typedef double value_t;
#else
typedef float value_t;
#endif

#if MIN_BLOCKS > 0
#define RT_LAUNCH_BOUNDS __launch_bounds__(BLOCK_SIZE, MIN_BLOCKS)
#else
#define RT_LAUNCH_BOUNDS __launch_bounds__(BLOCK_SIZE)
#endif

#endif
