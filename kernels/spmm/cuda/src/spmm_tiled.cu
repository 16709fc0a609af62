// spmm.cuda.tiled: the Tiled SpMM of Hidayetoglu's thesis proposal (section 2.3, Listing 1),
// consuming the plan of kernels/spmm/spmm_tiled.h. Each block owns BLOCK_SIZE consecutive rows of
// A and walks its stages: the block first copies the columns of B that the stage's nonzeros touch
// (map) into shared memory, synchronises, then every thread accumulates its row from shared memory
// through the plan's 2- or 4-byte shared indices, REGISTER columns of C at a time in registers.
//   RT_FP64       0: float, 1: double            RT_ROW_MAJOR  1: B and C row-major, 0:
//   column-major BLOCK_SIZE    threads = rows per block        REGISTER      columns of C per
//   thread (1..64) MIN_BLOCKS    NUMBLOCKS of __launch_bounds__  STAGING_ELL   1: ELL per (stage,
//   warp), 0: CSR INDEX_BYTES   2 (unsigned short) or 4 (int) shared-memory indices NNZ_UNROLL
//   nonzeros loaded ahead per thread (1 = Listing 1's loop)
// Shared memory holds buffsize * REGISTER values: column-major B is staged as
// shared[k * buffsize + slot] (the paper's layout), row-major B as shared[slot * REGISTER + k] so
// that consecutive threads copy consecutive elements of a row of B (coalesced along k).
// Differences from Listing 1: K tiles beyond 65535 are looped over inside the block; the last tile
// of K may be partial (staged as zeros, stores guarded); threads past the last row still take part
// in staging and barriers; 64-bit offsets wherever an index times a width can pass 2^31.
//
// Registers and spills (ELL staging, 2-byte indices, BLOCK_SIZE 1024, MIN_BLOCKS 1, so
// __launch_bounds__(1024, 1) caps a thread at 64 registers), CUDA 13.0, sm_90:
//   nvcc -Xptxas -v (the build's syntax check), row-major:
//     fp32 REGISTER  8 / 16 / 32: 60 / 60 / 64 registers, no spills
//     fp64 REGISTER  8 / 16 / 32: 62 / 64 / 64 registers, 0 / 0 / 152 bytes spill stores
//   NVRTC (what the plugin runs; its code differs slightly from nvcc's):
//     fp32 row-major REGISTER 8 / 16 / 32 / 64: 62 / 62 / 64 / 64 registers, spills only at 64
//     fp32 col-major REGISTER 8 / 16 / 32 / 64: 60 / 64 / 64 / 64 registers, spills only at 64
//     fp64 row-major REGISTER 8 / 16 / 32: 62 / 64 / 64 registers, 0 / 0 / 152 bytes spill stores
//     fp64 col-major REGISTER 8 / 16 / 32: 64 / 64 / 64 registers, 0 / 0 / 176 bytes spill stores
//     fp32 row-major REGISTER 32 with BLOCK_SIZE 256: 88 registers, no spills
// With the nonzero loop unrolled (the compiler's choice), fp64 row-major spilled 8 bytes already at
// REGISTER 8 under NVRTC; see the comment at that loop. The plugin reads the facts of the loaded
// variant (CU_FUNC_ATTRIBUTE_NUM_REGS, LOCAL_SIZE_BYTES) and records spilling variants as
// infeasible unless allow_spills = 1 (the paper attributes its sharp drop past a register tile of
// about 29 to this register pressure).

#include "rt_tiled_params.cuh"
#include "rt_kernel_types.cuh"
#include "rt_nnz_load.cuh"
#include "rt_row_tile.cuh"

#ifndef NNZ_UNROLL
#define NNZ_UNROLL 1
#endif

#if STAGING_ELL && (BLOCK_SIZE % WARP_SIZE) != 0
#error "ELL staging needs BLOCK_SIZE to be a multiple of the warp size"
#endif

#if RT_ROW_MAJOR
#define RT_SHARED_AT(slot, k) shared[(slot)*REGISTER + (k)]
#else
#define RT_SHARED_AT(slot, k) shared[(k)*buffsize + (slot)]
#endif

// displ: ELL staging: per (stage, warp) ranges of ELL rows (nstages * BLOCK_SIZE / 32 + 1 entries);
//        CSR staging: per (stage, row of block) ranges of entries (nstages * BLOCK_SIZE + 1).
extern "C" __global__ void RT_LAUNCH_BOUNDS rt_spmm_tiled(
    value_t *__restrict__ C, const value_t *__restrict__ B, const long long *__restrict__ displ,
    const index_t *__restrict__ index, const value_t *__restrict__ value, long long nrows,
    long long ncols, int K, int ntiles, const long long *__restrict__ buffdispl,
    const long long *__restrict__ mapdispl, const int *__restrict__ map, int buffsize)
{
    extern __shared__ __align__(16) unsigned char rt_shared_bytes[];
    value_t *shared = reinterpret_cast<value_t *>(rt_shared_bytes);

    const long long block = blockIdx.x;
    const long long row = block * BLOCK_SIZE + threadIdx.x;
    const long long stage_begin = buffdispl[block];
    const long long stage_end = buffdispl[block + 1];
#if STAGING_ELL
    const int warp_in_block = threadIdx.x / WARP_SIZE;
    const int lane = threadIdx.x % WARP_SIZE;
#endif

    for (int tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
        const int k0 = tile * REGISTER;
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        value_t acc[REGISTER];
        rt_row_tile_zero(acc);

        for (long long s = stage_begin; s < stage_end; ++s) {
            const long long map_begin = mapdispl[s];
            const int mapnz = (int)(mapdispl[s + 1] - map_begin);
#if RT_ROW_MAJOR
            for (int i = threadIdx.x; i < mapnz * REGISTER; i += BLOCK_SIZE) {
                const int slot = i / REGISTER;
                const int k = i - slot * REGISTER;
                const long long col = map[map_begin + slot];
                shared[i] = (k < kcount) ? B[col * K + k0 + k] : (value_t)0;
            }
#else
            for (int slot = threadIdx.x; slot < mapnz; slot += BLOCK_SIZE) {
                const long long col = map[map_begin + slot];
#pragma unroll
                for (int k = 0; k < REGISTER; ++k)
                    shared[k * buffsize + slot] =
                        (k < kcount) ? B[(long long)(k0 + k) * ncols + col] : (value_t)0;
            }
#endif
            __syncthreads();
            // A (stage, warp) or (stage, row) holds at most buffsize entries per row (distinct
            // staged columns), so 32-bit counters suffice inside a stage. The nonzero loop keeps
            // NNZ_UNROLL loads in flight and is otherwise not unrolled: letting the compiler
            // unroll it freely made fp64 variants spill at the 64-register cap of 1024-thread
            // blocks; an explicit, tunable depth lets the search weigh latency against registers
            // (spilling variants are recorded as infeasible).
#if STAGING_ELL
            const value_t *vp;
            const index_t *ip;
            const int ell_rows =
                rt_nnz_list(displ, value, index, s * (BLOCK_SIZE / WARP_SIZE) + warp_in_block,
                            WARP_SIZE, lane, vp, ip);
#pragma unroll 1
            for (int m = 0; m < ell_rows; m += NNZ_UNROLL) {
                // NNZ_UNROLL independent loads of A in flight before the first use: with long rows
                // (XCT rays) and few resident warps, one load at a time leaves the thread waiting
                // on global-memory latency for every nonzero.
                value_t a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, m, ell_rows, WARP_SIZE, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
#pragma unroll
                    for (int k = 0; k < REGISTER; ++k)
                        acc[k] += RT_SHARED_AT(slot[u], k) * a[u];
            }
#else
            const value_t *vp;
            const index_t *ip;
            const int entries =
                rt_nnz_list(displ, value, index, s * BLOCK_SIZE + threadIdx.x, 1, 0, vp, ip);
#pragma unroll 1
            for (int e = 0; e < entries; e += NNZ_UNROLL) {
                value_t a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, e, entries, 1, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
#pragma unroll
                    for (int k = 0; k < REGISTER; ++k)
                        acc[k] += RT_SHARED_AT(slot[u], k) * a[u];
            }
#endif
            // The next stage overwrites shared memory that slower warps may still be reading.
            __syncthreads();
        }

        if (row < nrows)
            rt_row_tile_store(C, acc, row, K, k0, kcount, nrows);
    }
}
