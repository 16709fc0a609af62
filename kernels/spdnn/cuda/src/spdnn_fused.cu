// spdnn.cuda.fused: one sparse DNN layer, Y_out = min(max(Y_in W + bias, 0), 32), as the Tiled
// SpMM of Hidayetoglu's thesis proposal (section 2.3, Listing 1; the same staging and register
// tiling as spmm_tiled.cu) fused with the bias, the clamped ReLU and each feature's liveness flag
// -- the SpDNN layer kernel of the thesis's Fig. 2(b), which cuSPARSE cannot fuse.
//
// Roles: A = W^T (neurons x neurons, the plan of kernels/spmm/spmm_tiled.h), B = the live input
// features, feature-major (feature k's neurons contiguous: B is column-major with ld = neurons),
// C = the layer's output, feature-major too. Each block owns BLOCK_SIZE consecutive neurons and
// walks its stages; each thread computes one neuron for REGISTER features in registers.
//
// Compaction by indirection: the kernel reads the q-th live feature from row list[q] of Y_in (the
// previous layer's output in that layer's numbering) and writes it to row q of Y_out, so features
// that died are never read again and no row is copied. active[q] is set to 1 when any neuron of
// live feature q is positive after the ReLU (the buffer is zeroed before the launch; all writers
// store the same value). The next layer's list is the ordered positions of the flags
// (spdnn_ops.cu).
//   BLOCK_SIZE    threads = neurons per block, a multiple of 32 (warp votes)
//   REGISTER      features per thread (1..64)          MIN_BLOCKS  NUMBLOCKS of __launch_bounds__
//   STAGING_ELL   1: ELL per (stage, warp), 0: CSR      INDEX_BYTES 2 (unsigned short) or 4 (int)
//   NNZ_UNROLL    nonzeros of W^T loaded ahead per thread (1 = Listing 1's loop), as in
//                 spmm_tiled.cu: independent loads in flight before the first multiply-add
//   SLOT_MAJOR    0: stages as shared[k * buffsize + slot] (the paper's layout: feature k of the
//                 tile, staged slot); 1: as shared[slot * REGISTER + k], a slot's REGISTER
//                 features adjacent, so a thread reads them with REGISTER / 4 16-byte loads
//                 per nonzero instead of REGISTER 4-byte loads of REGISTER different banks
//                 rows (REGISTER a multiple of 4); 2: slot rows whose 16-byte chunks are
//                 XOR-swizzled (slot_xor): chunk q of a slot sits at chunk q ^ swizzle(slot) of
//                 its row, which puts it in bank group slot mod 8 for every q. Without it a
//                 quarter-warp's 16-byte reads (8 lanes, one pass of 128 bytes) can reach only
//                 8 / CHUNKS of the 8 bank groups (CHUNKS = REGISTER / 4: 4 of them at 8
//                 features, 1 at 32, an 8-way conflict whatever the slots), and consecutive
//                 slots' staging stores conflict the same way; with it, 8 slots of distinct
//                 slot mod 8 are one pass (the plan's nnz_order banks with 8-lane passes orders
//                 every step so; REGISTER 4, 8, 16, 32 or 64)
//   N_BUFFERS     1: stage, barrier, compute, barrier (Listing 1's order, plain loads and
//                 stores); 2 or 3: N_BUFFERS buffers of buffsize slots, the next N_BUFFERS - 1
//                 stages' gathers issued with cp.async (sm_80+) before the current stage is
//                 consumed, so the gathers' latency overlaps the multiply-adds
// Dynamic shared memory: REGISTER ints (the tile's source rows), then N_BUFFERS * buffsize *
// REGISTER floats, each buffer in the layout SLOT_MAJOR picks.
// fp32 only: the Graph Challenge's precision.

#include "rt_tiled_params.cuh"
#include "rt_kernel_types.cuh"
#include "rt_nnz_load.cuh"
#include "rt_async_copy.cuh"
#include "rt_chunk_swizzle.cuh"

#ifndef NNZ_UNROLL
#define NNZ_UNROLL 1
#endif
#ifndef SLOT_MAJOR
#define SLOT_MAJOR 0
#endif
#ifndef N_BUFFERS
#define N_BUFFERS 1
#endif
#define YMAX 32.0f

#if (BLOCK_SIZE % WARP_SIZE) != 0
#error "spdnn_fused needs BLOCK_SIZE to be a multiple of the warp size (warp votes)"
#endif
#if REGISTER < 1 || REGISTER > 64
#error "REGISTER must be 1..64"
#endif
#if SLOT_MAJOR && (REGISTER % 4) != 0
#error "SLOT_MAJOR reads a slot's features as float4: REGISTER must be a multiple of 4"
#endif
#if SLOT_MAJOR < 0 || SLOT_MAJOR > 2
#error "SLOT_MAJOR must be 0, 1 or 2"
#endif
#if N_BUFFERS < 1 || N_BUFFERS > 3
#error "N_BUFFERS must be 1, 2 or 3"
#endif

// 16-byte chunks of a staged slot row.
#define CHUNKS (REGISTER / 4)
#if SLOT_MAJOR == 2 && (CHUNKS & (CHUNKS - 1)) != 0
#error "slot_xor swizzles 16-byte chunks by XOR: REGISTER must be 4, 8, 16, 32 or 64"
#endif

// The chunk of its row where chunk q of slot is kept: q, or with SLOT_MAJOR 2 the XOR swizzle of
// rt_chunk_swizzle.cuh.
__device__ __forceinline__ int chunk_of(int slot, int q)
{
#if SLOT_MAJOR == 2
    return rt_swizzled_chunk<CHUNKS>(slot, q);
#else
    (void)slot;
    return q;
#endif
}

// Element (feature k, slot) of a staged buffer, in the layout SLOT_MAJOR picks.
#if SLOT_MAJOR
#define STAGED(k, slot) ((slot)*REGISTER + 4 * chunk_of((slot), (k) / 4) + (k) % 4)
#else
#define STAGED(k, slot) ((k)*buffsize + (slot))
#endif

// acc[k] += staged(k, slot) * a for the tile's REGISTER features.
__device__ __forceinline__ void accumulate(float (&acc)[REGISTER], const float *shared,
                                           int buffsize, int slot, float a)
{
#if SLOT_MAJOR
    (void)buffsize;
    const float4 *row = reinterpret_cast<const float4 *>(shared + slot * REGISTER);
#pragma unroll
    for (int q = 0; q < CHUNKS; ++q) {
        const float4 b = row[chunk_of(slot, q)];
        acc[4 * q] += b.x * a;
        acc[4 * q + 1] += b.y * a;
        acc[4 * q + 2] += b.z * a;
        acc[4 * q + 3] += b.w * a;
    }
#else
#pragma unroll
    for (int k = 0; k < REGISTER; ++k)
        acc[k] += shared[STAGED(k, slot)] * a;
#endif
}

// Stages a stage's map entries (input neurons col) of the tile's kcount live features (rows
// src[k] of Y_in) into buf; features past kcount are zeros. N_BUFFERS 1: plain loads and stores;
// above 1: cp.async copies, one of 4 bytes per staged value (the tile's features of a neuron lie
// in different rows of Y_in), left in flight for the caller to commit and wait on.
__device__ __forceinline__ void stage_copy(float *buf, const float *__restrict__ Y_in,
                                           const int *src, const int *__restrict__ map,
                                           long long map_begin, int mapnz, long long neurons,
                                           int kcount, int buffsize)
{
    (void)buffsize;
    for (int slot = threadIdx.x; slot < mapnz; slot += BLOCK_SIZE) {
        const long long col = map[map_begin + slot];
#if N_BUFFERS > 1
#pragma unroll
        for (int k = 0; k < REGISTER; ++k) {
            const bool valid = k < kcount;
            rt_copy_async<4>(buf + STAGED(k, slot),
                             valid ? Y_in + (long long)src[k] * neurons + col : Y_in, valid);
        }
#elif SLOT_MAJOR
        // 16-byte stores: the slot's features are adjacent (a warp's scalar stores would fall
        // on 2 banks, 16-way conflicts).
        float4 *row = reinterpret_cast<float4 *>(buf + slot * REGISTER);
#pragma unroll
        for (int q = 0; q < CHUNKS; ++q) {
            float v[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int k = 4 * q + i;
                v[i] = (k < kcount) ? Y_in[(long long)src[k] * neurons + col] : 0.0f;
            }
            row[chunk_of(slot, q)] = make_float4(v[0], v[1], v[2], v[3]);
        }
#else
#pragma unroll
        for (int k = 0; k < REGISTER; ++k)
            buf[STAGED(k, slot)] = (k < kcount) ? Y_in[(long long)src[k] * neurons + col] : 0.0f;
#endif
    }
}

// displ: ELL staging: per (stage, warp) ranges of ELL rows (nstages * BLOCK_SIZE / 32 + 1 entries);
//        CSR staging: per (stage, row of block) ranges of entries (nstages * BLOCK_SIZE + 1).
extern "C" __global__ void RT_LAUNCH_BOUNDS rt_spdnn_fused(
    float *__restrict__ Y_out, const float *__restrict__ Y_in, const int *__restrict__ list,
    int nlive, int ntiles, long long neurons, const long long *__restrict__ displ,
    const index_t *__restrict__ index, const float *__restrict__ value,
    const long long *__restrict__ buffdispl, const long long *__restrict__ mapdispl,
    const int *__restrict__ map, int buffsize, float bias, int *__restrict__ active)
{
    extern __shared__ __align__(16) unsigned char rt_shared_bytes[];
    int *src = reinterpret_cast<int *>(rt_shared_bytes);
    float *shared = reinterpret_cast<float *>(rt_shared_bytes + REGISTER * sizeof(int));

    const long long block = blockIdx.x;
    const long long row = block * BLOCK_SIZE + threadIdx.x;
    const long long stage_begin = buffdispl[block];
    const long long stage_end = buffdispl[block + 1];
    const int lane = threadIdx.x % WARP_SIZE;
#if STAGING_ELL
    const int warp_in_block = threadIdx.x / WARP_SIZE;
#endif

    for (int tile = blockIdx.y; tile < ntiles; tile += gridDim.y) {
        const int k0 = tile * REGISTER;
        const int kcount = (nlive - k0 < REGISTER) ? nlive - k0 : REGISTER;
        // src of the previous tile may still be read by a slower thread's staging loop when the
        // block has no stage (no barrier inside the stage loop then).
        __syncthreads();
        if (threadIdx.x < REGISTER)
            src[threadIdx.x] = (threadIdx.x < kcount) ? list[k0 + threadIdx.x] : 0;
        __syncthreads();

        float acc[REGISTER];
#pragma unroll
        for (int k = 0; k < REGISTER; ++k)
            acc[k] = 0.0f;

#if N_BUFFERS > 1
            // Prologue: stages 0 .. N_BUFFERS - 2 in flight, one commit group per stage (an empty
            // group past the last stage), so that group i always holds stage i.
#pragma unroll
        for (int i = 0; i < N_BUFFERS - 1; ++i) {
            const long long s = stage_begin + i;
            if (s < stage_end)
                stage_copy(shared + i * buffsize * REGISTER, Y_in, src, map, mapdispl[s],
                           (int)(mapdispl[s + 1] - mapdispl[s]), neurons, kcount, buffsize);
            rt_copy_commit();
        }
#endif
        for (long long s = stage_begin; s < stage_end; ++s) {
#if N_BUFFERS > 1
            // Issue stage s + N_BUFFERS - 1 into the buffer the previous iteration consumed (its
            // trailing barrier released it), then wait for stage s.
            const int i = (int)(s - stage_begin);
            {
                const long long ahead = s + N_BUFFERS - 1;
                if (ahead < stage_end)
                    stage_copy(shared + ((i + N_BUFFERS - 1) % N_BUFFERS) * buffsize * REGISTER,
                               Y_in, src, map, mapdispl[ahead],
                               (int)(mapdispl[ahead + 1] - mapdispl[ahead]), neurons, kcount,
                               buffsize);
                rt_copy_commit();
            }
            // At most N_BUFFERS - 1 groups left in flight: iteration i has committed
            // N_BUFFERS + i groups, group j holding stage j, so stage i has landed.
            rt_copy_wait<N_BUFFERS - 1>();
            const float *stage = shared + (i % N_BUFFERS) * buffsize * REGISTER;
#else
            stage_copy(shared, Y_in, src, map, mapdispl[s], (int)(mapdispl[s + 1] - mapdispl[s]),
                       neurons, kcount, buffsize);
            const float *stage = shared;
#endif
            __syncthreads();
            // As in spmm_tiled.cu: the nonzero loop keeps NNZ_UNROLL loads in flight and is
            // otherwise not unrolled, so the depth, not the compiler, sets how much it adds to the
            // REGISTER accumulators' register pressure (spilling variants are infeasible).
#if STAGING_ELL
            const float *vp;
            const index_t *ip;
            const int ell_rows =
                rt_nnz_list(displ, value, index, s * (BLOCK_SIZE / WARP_SIZE) + warp_in_block,
                            WARP_SIZE, lane, vp, ip);
#pragma unroll 1
            for (int m = 0; m < ell_rows; m += NNZ_UNROLL) {
                float a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, m, ell_rows, WARP_SIZE, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
                    accumulate(acc, stage, buffsize, slot[u], a[u]);
            }
#else
            const float *vp;
            const index_t *ip;
            const int entries =
                rt_nnz_list(displ, value, index, s * BLOCK_SIZE + threadIdx.x, 1, 0, vp, ip);
#pragma unroll 1
            for (int e = 0; e < entries; e += NNZ_UNROLL) {
                float a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, e, entries, 1, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
                    accumulate(acc, stage, buffsize, slot[u], a[u]);
            }
#endif
            // The next stage overwrites shared memory that slower warps may still be reading.
            __syncthreads();
        }

        // Bias, clamped ReLU (comparisons, so a NaN stays NaN and fails verification), store,
        // and one vote per warp for each feature's liveness instead of a store per thread.
#pragma unroll
        for (int k = 0; k < REGISTER; ++k) {
            const bool valid = row < neurons && k < kcount;
            float v = acc[k] + bias;
            v = v < 0.0f ? 0.0f : (v > YMAX ? YMAX : v);
            if (valid)
                Y_out[(long long)(k0 + k) * neurons + row] = v;
            const unsigned hot = __ballot_sync(0xffffffffu, valid && v > 0.0f);
            if (hot != 0u && lane == 0)
                active[k0 + k] = 1;
        }
    }
}
