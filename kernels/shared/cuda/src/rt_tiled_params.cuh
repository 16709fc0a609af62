// rt_tiled_params: the compile-time parameters that the Tiled kernels compiled by NVRTC share
// (spmm_tiled.cu, spmm_tiled_pipe.cu, spdnn_fused.cu), their defaults where a variant leaves one
// out, and the index type they select; rt_kernel_types.cuh, included after it, adds value_t and
// the launch bounds. Each kernel defines its own parameters (NNZ_UNROLL, N_BUFFERS, ...) beside
// these. Embedded like rt_async_copy.cuh.
//   RT_FP64      1: double values (value_t), 0: float
//   RT_ROW_MAJOR 1: B and C row-major, 0: column-major
//   BLOCK_SIZE   threads per block;  MIN_BLOCKS  blocks per SM for __launch_bounds__ (0: none)
//   REGISTER     the register tile: columns of B and C per thread (or per warp row)
//   STAGING_ELL  1: stages in ELL (per warp), 0: CSR (per row)
//   INDEX_BYTES  2 or 4: the width of the staged column indices of A (index_t)
#ifndef RT_TILED_PARAMS_CUH
#define RT_TILED_PARAMS_CUH

#ifndef RT_FP64
#define RT_FP64 0
#endif
#ifndef RT_ROW_MAJOR
#define RT_ROW_MAJOR 1
#endif
#ifndef BLOCK_SIZE
#define BLOCK_SIZE 1024
#endif
#ifndef REGISTER
#define REGISTER 8
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1
#endif
#ifndef STAGING_ELL
#define STAGING_ELL 1
#endif
#ifndef INDEX_BYTES
#define INDEX_BYTES 2
#endif
#define WARP_SIZE 32

#if INDEX_BYTES == 2
typedef unsigned short index_t;
#elif INDEX_BYTES == 4
typedef int index_t;
#else
#error "INDEX_BYTES must be 2 or 4"
#endif

#endif
