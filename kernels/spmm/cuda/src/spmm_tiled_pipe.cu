// spmm.cuda.tiled_pipe: the Tiled SpMM of spmm_tiled.cu (Listing 1's plan, staging and register
// tiling, same arguments) reworked for Hopper, where the best Listing 1 variant runs one block per
// SM and alternates staging and compute:
//   - N_BUFFERS shared-memory buffers of `buffsize` staged rows each. Stages are copied with
//     cp.async (sm_80+), N_BUFFERS - 1 stages ahead of the one being consumed, so the copy of the
//     next stages overlaps the multiply-adds of the current one. N_BUFFERS 1 is Listing 1's order
//     (stage, barrier, compute, barrier) with asynchronous copies.
//   - STAGE_SPLIT blocks share one block row: block x works on block row x / STAGE_SPLIT and on
//     part x % STAGE_SPLIT of its stages (consecutive stages, split evenly). Above 1 the host
//     zeroes C before the launch (inside the timed interval) and the parts add their partial
//     sums with atomicAdd; at 1 every row of C is stored exactly once, as in Listing 1.
//   - VECTOR 1 (row-major only): B copied in 16-byte cp.async chunks; VECTOR 2 also stores C as
//     float4/double2 (a separate value: the vector stores tie the accumulators to aligned register
//     quads, and at REGISTER 32 under 64 registers that alone made NVRTC spill 8-16 bytes).
//     The host guarantees REGISTER and K multiples of the vector width (spmm_tiled_pipe_rules.h),
//     so a chunk is either wholly inside K or wholly past it (zero-filled).
//   - MIN_BLOCKS (blocks_per_sm) is the launch-bounds residency target.
//   - WARP_ROWS 0 is Listing 1's mapping: a thread per row of C, REGISTER columns each. The lanes
//     of a warp then read 32 different staged rows at the same column, which a row-major stage
//     puts in one shared-memory bank (a 32-way conflict at REGISTER 32). WARP_ROWS > 0 is the
//     warp mapping: each warp owns WARP_ROWS consecutive rows of C (a block PLAN_ROWS =
//     BLOCK_SIZE / 32 * WARP_ROWS), taken one at a time; LANE_GROUP = REGISTER / LANE_VALUES
//     lanes share a nonzero and read LANE_VALUES consecutive values each of its staged row (one
//     conflict-free vector load), so a warp takes GROUPS = 32 / LANE_GROUP nonzeros of the row
//     at a time. At the end of a row's share of a stage the groups' partial sums meet by
//     recursive halving over warp shuffles, which leaves ROW_VALUES = REGISTER / 32 columns of
//     the row to each lane: the accumulators are WARP_ROWS * ROW_VALUES per lane, across stages.
//     It reads A per row (CSR staging) and always lays stages out row-major in shared memory.
//   - SKEW 1 (a thread per row, row-major): each lane walks its register tile starting from a
//     chunk rotated by its lane index (chunks of SKEW_WIDTH values: 16-byte vectors where REGISTER
//     allows), so at every step the eight lanes of a quarter-warp read eight different chunks of
//     their staged rows: different banks whatever the rows, where without it they all read the
//     same chunk (a 4-way conflict per quarter-warp on average at REGISTER 16 and 32). acc[i]
//     then holds column rt_tile_column(i, skew) of the tile. Conflict-free when REGISTER / 4 is a
//     multiple of 8 (fp32: 32, 64); at 16 a staged row is half a bank line and half the pairs of
//     lanes sharing a chunk still meet.
//   - SWIZZLE 1 (a thread per row, row-major, VECTOR >= 1, SKEW 0): the 16-byte chunks of a staged
//     row are XOR-swizzled, as spdnn_fused.cu's slot_xor: chunk q of a slot is kept at chunk
//     rt_chunk_of(slot, q) of its row (q XOR a function of slot), which lies in bank group
//     slot mod 8 for every q. Without it the eight lanes of a quarter-warp (one pass of 128 bytes
//     of 16-byte reads), each reading chunk q of its own slot, reach only 8 / CHUNKS of the 8 bank
//     groups (CHUNKS = REGISTER / RT_VEC_WIDTH chunks per row: 4 groups at fp32 REGISTER 8, 1 at
//     32, an 8-way conflict whatever the slots); with it eight slots of distinct slot mod 8 are
//     one pass, and the plan's nnz_order banks with 8-lane passes (bank_lanes 8) orders every ELL
//     step so. rt_tile_fma reads the swizzled chunks into acc in tile order (acc[i] holds column
//     i), so the stores of C are unchanged. CHUNKS must be a power of two.
//   - TILE_INTERLEAVE 1: grid.x = row blocks x STAGE_SPLIT x NTILES with the register tiles
//     innermost (grid.y 1), one tile per block, NTILES = ceil(K / REGISTER) compiled in. With 0
//     (Listing 1) grid.y walks the tiles and the scheduler issues every block of tile 0 before
//     tile 1, so A (ELL values and indices, larger than L2 on the bar's matrices) streams from
//     DRAM once per tile; interleaved, the tiles of a block row run side by side and share A's
//     reads in L2.
//   - CLUSTER 2, 4 or 8 (sm_90, compiled in with __cluster_dims__): CLUSTER consecutive row
//     blocks form a thread-block cluster and share one plan block of CLUSTER * PLAN_ROWS rows
//     (spmm_tiled_cluster.h): a stage holds the union of their footprints, up to CLUSTER *
//     buffsize staged rows, so a B row that several of them need is staged once per stage instead
//     of once per block, and the cluster needs fewer stages. Cluster slot i is staged by block
//     i % CLUSTER of the cluster at slot i / CLUSTER of its own buffer; every block reads a
//     staged row from its owner's shared memory through distributed shared memory (mapa: a
//     generic address into the owner's window, so the loads below need no change), and the two
//     block barriers of a stage become cluster barriers: the first makes every block's copies
//     visible to the whole cluster, the second keeps a block from refilling a buffer another
//     block still reads. All blocks of a cluster walk the same stages in lockstep (blockIdx.x =
//     (row part [x tile]) x CLUSTER + rank, so the rank is innermost). CLUSTER 1 (no define) is
//     the kernel without clusters, token for token.
// The defines of spmm_tiled.cu keep their meaning (RT_FP64, RT_ROW_MAJOR, BLOCK_SIZE, REGISTER,
// MIN_BLOCKS, STAGING_ELL, INDEX_BYTES, NNZ_UNROLL). Shared memory: N_BUFFERS * buffsize *
// REGISTER values; buffer b starts at b * buffsize * REGISTER, laid out as in spmm_tiled.cu.

#include "rt_tiled_params.cuh"
#include "rt_kernel_types.cuh"
#include "rt_nnz_load.cuh"
#include "rt_async_copy.cuh"
#include "rt_chunk_swizzle.cuh"

#ifndef NNZ_UNROLL
#define NNZ_UNROLL 4
#endif
#ifndef N_BUFFERS
#define N_BUFFERS 2
#endif
#ifndef STAGE_SPLIT
#define STAGE_SPLIT 1
#endif
#ifndef VECTOR
#define VECTOR 0
#endif
#ifndef WARP_ROWS
#define WARP_ROWS 0
#endif
#ifndef LANE_VALUES
#define LANE_VALUES 1
#endif
#ifndef SKEW
#define SKEW 0
#endif
#ifndef SWIZZLE
#define SWIZZLE 0
#endif
#ifndef TILE_INTERLEAVE
#define TILE_INTERLEAVE 0
#endif
#ifndef NTILES
#define NTILES 1
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#if CLUSTER != 1 && CLUSTER != 2 && CLUSTER != 4 && CLUSTER != 8
#error "CLUSTER must be 1, 2, 4 or 8"
#endif

#if WARP_ROWS > 0
#define PLAN_ROWS  (BLOCK_SIZE / WARP_SIZE * WARP_ROWS)
#define LANE_GROUP (REGISTER / LANE_VALUES)
#define GROUPS     (WARP_SIZE / LANE_GROUP)
#define ROW_VALUES (REGISTER / WARP_SIZE)
#if STAGING_ELL
#error "WARP_ROWS > 0 reads A per row: it needs CSR staging"
#endif
#if (BLOCK_SIZE % WARP_SIZE) != 0 || (REGISTER % WARP_SIZE) != 0
#error "WARP_ROWS > 0 needs BLOCK_SIZE and REGISTER to be multiples of the warp size"
#endif
#if (REGISTER % LANE_VALUES) != 0 || (WARP_SIZE % LANE_GROUP) != 0 ||                              \
    GROUPS * ROW_VALUES != LANE_VALUES
#error "LANE_VALUES must be 1, 2 or 4 times REGISTER / 32"
#endif
#else
#define PLAN_ROWS BLOCK_SIZE
#endif

#if STAGING_ELL && (BLOCK_SIZE % WARP_SIZE) != 0
#error "ELL staging needs BLOCK_SIZE to be a multiple of the warp size"
#endif
#if N_BUFFERS < 1 || N_BUFFERS > 3
#error "N_BUFFERS must be 1, 2 or 3"
#endif
#if STAGE_SPLIT < 1
#error "STAGE_SPLIT must be at least 1"
#endif

#if RT_FP64
#define RT_VEC_WIDTH 2
#else
#define RT_VEC_WIDTH 4
#endif

#if VECTOR && !RT_ROW_MAJOR
#error "VECTOR needs row-major B and C"
#endif
#if SKEW && (!RT_ROW_MAJOR || WARP_ROWS > 0)
#error "SKEW applies to row-major stages read a thread per row"
#endif
// The rotation's unit: 16-byte vectors where the register tile is made of them, else values.
#define SKEW_WIDTH  ((REGISTER % RT_VEC_WIDTH) == 0 ? RT_VEC_WIDTH : 1)
#define SKEW_CHUNKS (REGISTER / SKEW_WIDTH)
#if VECTOR && (REGISTER % RT_VEC_WIDTH) != 0
#error "VECTOR needs REGISTER to be a multiple of the vector width"
#endif
// 16-byte chunks of a staged row (VECTOR's copies; SWIZZLE permutes them within the row).
#define CHUNKS (REGISTER / RT_VEC_WIDTH)
#if TILE_INTERLEAVE < 0 || TILE_INTERLEAVE > 1 || NTILES < 1
#error "TILE_INTERLEAVE must be 0 or 1 and NTILES at least 1"
#endif
#if SWIZZLE < 0 || SWIZZLE > 1
#error "SWIZZLE must be 0 or 1"
#endif
#if SWIZZLE && (!RT_ROW_MAJOR || WARP_ROWS > 0 || SKEW || !VECTOR)
#error "SWIZZLE needs RT_ROW_MAJOR, VECTOR >= 1, WARP_ROWS 0 and SKEW 0"
#endif
#if SWIZZLE && (CHUNKS & (CHUNKS - 1)) != 0
#error "SWIZZLE permutes 16-byte chunks by XOR: REGISTER / RT_VEC_WIDTH must be a power of two"
#endif

#if CLUSTER > 1
// The block's rank in its cluster (%cluster_ctarank for a cluster of CLUSTER x 1 x 1 blocks).
#define RT_RANK ((int)(blockIdx.x % CLUSTER))
// The cluster's part of blockIdx.x (the rank is the innermost digit).
#define RT_BLOCK_X (blockIdx.x / CLUSTER)
// A cluster stage's slot that this block stages: stage slot `slot` of this block's buffer holds
// cluster slot slot * CLUSTER + rank, so the block copies map entry map_begin + that.
#define RT_MAP_AT(map, map_begin, slot) (map)[(map_begin) + (long long)(slot)*CLUSTER + RT_RANK]
// Of a stage's mapnz cluster slots, those this block stages (the ones congruent to its rank).
#define RT_SHARE(mapnz) (((mapnz)-RT_RANK + CLUSTER - 1) / CLUSTER)
#define RT_CLUSTER_DIMS __cluster_dims__(CLUSTER, 1, 1)
// Both barriers of a stage span the cluster: its blocks read each other's buffers.
#define RT_STAGE_SYNC() rt_cluster_sync()

// The generic address of the same shared-memory location in block `rank` of the cluster
// (distributed shared memory): ordinary loads through it read that block's buffer.
__device__ __forceinline__ const value_t *rt_cluster_map(const value_t *p, unsigned rank)
{
    unsigned long long out;
    asm("mapa.u64 %0, %1, %2;" : "=l"(out) : "l"(p), "r"(rank));
    return reinterpret_cast<const value_t *>(out);
}

// barrier.cluster with its default semantics: arrive releases this thread's writes (its
// completed cp.async copies included) to the cluster, wait acquires every other block's.
__device__ __forceinline__ void rt_cluster_sync()
{
    asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
}

// The owner's buffer of cluster slot `slot` (block slot % CLUSTER, as RT_MAP_AT stages it), and
// slot becomes its slot there.
__device__ __forceinline__ const value_t *rt_slot_owner(const value_t *buf, int &slot)
{
    const unsigned s = (unsigned)slot;
    slot = (int)(s / CLUSTER);
    return rt_cluster_map(buf, s % CLUSTER);
}
#else
#define RT_RANK                         0
#define RT_BLOCK_X                      blockIdx.x
#define RT_MAP_AT(map, map_begin, slot) (map)[(map_begin) + (slot)]
#define RT_SHARE(mapnz)                 (mapnz)
#define RT_CLUSTER_DIMS
#define RT_STAGE_SYNC() __syncthreads()
#endif

#if RT_ROW_MAJOR || WARP_ROWS > 0
#define RT_SHARED_AT(buf, slot, k) (buf)[(slot)*REGISTER + (k)]
#else
#define RT_SHARED_AT(buf, slot, k) (buf)[(k)*buffsize + (slot)]
#endif

// The chunk of its staged row where chunk q of slot is kept: q, or with SWIZZLE the XOR swizzle of
// rt_chunk_swizzle.cuh (spdnn_fused.cu's slot_xor stages use the same one).
__device__ __forceinline__ int rt_chunk_of(int slot, int q)
{
#if SWIZZLE
    return rt_swizzled_chunk<CHUNKS>(slot, q);
#else
    (void)slot;
    return q;
#endif
}

// Issues the copies of stage s (its map entries' rows of B, columns k0 .. k0 + REGISTER) into buf.
// Every thread of the block calls it; the copies are spread over the threads as in spmm_tiled.cu
// (row-major: consecutive threads copy consecutive values of a row of B). mapnz is the block's
// share of the stage (RT_SHARE), slot its slot in the block's buffer (RT_MAP_AT).
__device__ __forceinline__ void rt_stage_async(value_t *buf, const value_t *__restrict__ B,
                                               const int *__restrict__ map, long long map_begin,
                                               int mapnz, long long ncols, int K, int k0,
                                               int kcount, int buffsize)
{
#if RT_ROW_MAJOR && VECTOR
    const int chunks = REGISTER / RT_VEC_WIDTH;
    for (int i = threadIdx.x; i < mapnz * chunks; i += BLOCK_SIZE) {
        const int slot = i / chunks;
        const int q = i - slot * chunks;
        const int k = q * RT_VEC_WIDTH;
        const long long col = RT_MAP_AT(map, map_begin, slot);
        const bool valid = k < kcount;
        rt_copy_async<16>(buf + slot * REGISTER + rt_chunk_of(slot, q) * RT_VEC_WIDTH,
                          valid ? B + col * K + k0 + k : B, valid);
    }
#elif RT_ROW_MAJOR
    for (int i = threadIdx.x; i < mapnz * REGISTER; i += BLOCK_SIZE) {
        const int slot = i / REGISTER;
        const int k = i - slot * REGISTER;
        const long long col = RT_MAP_AT(map, map_begin, slot);
        const bool valid = k < kcount;
        rt_copy_async<(int)sizeof(value_t)>(buf + i, valid ? B + col * K + k0 + k : B, valid);
    }
#elif WARP_ROWS > 0
    // Column-major B into a row-major stage: consecutive threads take consecutive slots of one
    // column of B (the map keeps neighbouring columns of A together, so their reads share
    // sectors); each value lands in its slot's row.
    for (int i = threadIdx.x; i < mapnz * REGISTER; i += BLOCK_SIZE) {
        const int k = i / mapnz;
        const int slot = i - k * mapnz;
        const long long col = RT_MAP_AT(map, map_begin, slot);
        const bool valid = k < kcount;
        rt_copy_async<(int)sizeof(value_t)>(
            buf + slot * REGISTER + k, valid ? B + (long long)(k0 + k) * ncols + col : B, valid);
    }
#else
    for (int slot = threadIdx.x; slot < mapnz; slot += BLOCK_SIZE) {
        const long long col = RT_MAP_AT(map, map_begin, slot);
#pragma unroll
        for (int k = 0; k < REGISTER; ++k) {
            const bool valid = k < kcount;
            rt_copy_async<(int)sizeof(value_t)>(buf + k * buffsize + slot,
                                                valid ? B + (long long)(k0 + k) * ncols + col : B,
                                                valid);
        }
    }
#endif
}

// N consecutive values of a staged row (N * sizeof(value_t) of 4, 8 or 16 bytes, at an address
// aligned to that size) as one shared-memory load.
template <int N> __device__ __forceinline__ void rt_load_values(const value_t *p, value_t *v)
{
    if (N * sizeof(value_t) == 16) {
#if RT_FP64
        const double2 t = *reinterpret_cast<const double2 *>(p);
        v[0] = t.x;
        v[1] = t.y;
#else
        const float4 t = *reinterpret_cast<const float4 *>(p);
        v[0] = t.x;
        v[1] = t.y;
        v[2] = t.z;
        v[3] = t.w;
#endif
    } else if (N == 2) {
        const float2 t = *reinterpret_cast<const float2 *>(p);
        v[0] = t.x;
        v[1] = t.y;
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            v[i] = p[i];
    }
}

// The column of the register tile that acc[i] holds: i, or with SKEW the chunk rotated by skew.
__device__ __forceinline__ int rt_tile_column(int i, int skew)
{
#if SKEW
    int chunk = i / SKEW_WIDTH + skew;
    if (chunk >= SKEW_CHUNKS)
        chunk -= SKEW_CHUNKS;
    return chunk * SKEW_WIDTH + i % SKEW_WIDTH;
#else
    (void)skew;
    return i;
#endif
}

// acc[i] += stage[slot][rt_tile_column(i, skew)] * a over the thread's register tile (with
// SWIZZLE, column i read from its swizzled chunk; with CLUSTER, slot is a cluster slot, read from
// its owner's buffer).
__device__ __forceinline__ void rt_tile_fma(value_t acc[REGISTER], const value_t *buf, int slot,
                                            value_t a, int buffsize, int skew)
{
#if CLUSTER > 1
    buf = rt_slot_owner(buf, slot);
#endif
#if SKEW
    (void)buffsize;
    // A running pointer that wraps at the end of the row: one register, where a table of the
    // rotated offsets would hold SKEW_CHUNKS of them for the whole loop.
    const value_t *const row = buf + slot * REGISTER;
    const value_t *p = row + skew * SKEW_WIDTH;
#pragma unroll
    for (int c = 0; c < SKEW_CHUNKS; ++c) {
        value_t b[SKEW_WIDTH];
        rt_load_values<SKEW_WIDTH>(p, b);
#pragma unroll
        for (int j = 0; j < SKEW_WIDTH; ++j)
            acc[c * SKEW_WIDTH + j] += b[j] * a;
        p += SKEW_WIDTH;
        if (p == row + REGISTER)
            p = row;
    }
#elif SWIZZLE
    (void)buffsize;
    (void)skew;
    const value_t *const row = buf + slot * REGISTER;
#pragma unroll
    for (int q = 0; q < CHUNKS; ++q) {
        value_t b[RT_VEC_WIDTH];
        rt_load_values<RT_VEC_WIDTH>(row + rt_chunk_of(slot, q) * RT_VEC_WIDTH, b);
#pragma unroll
        for (int j = 0; j < RT_VEC_WIDTH; ++j)
            acc[q * RT_VEC_WIDTH + j] += b[j] * a;
    }
#else
    (void)skew;
#pragma unroll
    for (int k = 0; k < REGISTER; ++k)
        acc[k] += RT_SHARED_AT(buf, slot, k) * a;
#endif
}

#if WARP_ROWS > 0
#if LANE_VALUES > RT_VEC_WIDTH
#error "LANE_VALUES passes 16 bytes"
#endif
// One step of recursive halving: this lane and the lane `mask` away hold N partial sums of the
// same N columns; the lane whose `mask` bit is clear keeps the first N / 2 columns, the other the
// last N / 2, each adding its partner's half. part[0 .. N / 2) holds the result.
template <int N> __device__ __forceinline__ void rt_halve(value_t *part, int lane, int mask)
{
    const bool upper = (lane & mask) != 0;
#pragma unroll
    for (int j = 0; j < N / 2; ++j) {
        const value_t send = upper ? part[j] : part[j + N / 2];
        const value_t keep = upper ? part[j + N / 2] : part[j];
        part[j] = keep + __shfl_xor_sync(0xffffffffu, send, mask);
    }
}

// Sums the GROUPS groups' partial sums of a row (part, LANE_VALUES columns from the lane's
// offset in its group): part[0 .. ROW_VALUES) then holds the row's columns
// rt_lane_first_column(lane) onwards, summed over the whole warp.
__device__ __forceinline__ void rt_reduce_groups(value_t part[LANE_VALUES], int lane)
{
#if GROUPS == 4
    rt_halve<LANE_VALUES>(part, lane, 2 * LANE_GROUP);
    rt_halve<LANE_VALUES / 2>(part, lane, LANE_GROUP);
#elif GROUPS == 2
    rt_halve<LANE_VALUES>(part, lane, LANE_GROUP);
#else
    (void)part;
    (void)lane;
#endif
}

// The first of the ROW_VALUES columns (within the register tile) rt_reduce_groups leaves to a lane.
__device__ __forceinline__ int rt_lane_first_column(int lane)
{
    int column = (lane % LANE_GROUP) * LANE_VALUES;
#if GROUPS == 4
    column += (lane & (2 * LANE_GROUP)) ? LANE_VALUES / 2 : 0;
    column += (lane & LANE_GROUP) ? LANE_VALUES / 4 : 0;
#elif GROUPS == 2
    column += (lane & LANE_GROUP) ? LANE_VALUES / 2 : 0;
#endif
    return column;
}
#endif

// displ: ELL staging: per (stage, warp) ranges of ELL rows (nstages * BLOCK_SIZE / 32 + 1 entries);
//        CSR staging: per (stage, row of block) ranges of entries (nstages * PLAN_ROWS + 1).
// Grid: x = row blocks * STAGE_SPLIT, y = K tiles (looped past 65535).
extern "C" __global__ void RT_LAUNCH_BOUNDS RT_CLUSTER_DIMS rt_spmm_tiled_pipe(
    value_t *__restrict__ C, const value_t *__restrict__ B, const long long *__restrict__ displ,
    const index_t *__restrict__ index, const value_t *__restrict__ value, long long nrows,
    long long ncols, int K, int ntiles, const long long *__restrict__ buffdispl,
    const long long *__restrict__ mapdispl, const int *__restrict__ map, int buffsize)
{
    extern __shared__ __align__(16) unsigned char rt_shared_bytes[];
    value_t *const shared = reinterpret_cast<value_t *>(rt_shared_bytes);

#if TILE_INTERLEAVE
    // The register tiles of a block row (part) are neighbours along grid.x, so the scheduler runs
    // them together and all but the first read the row's A from L2 instead of DRAM (with grid.y
    // walking the tiles, every block of tile 0 runs before tile 1 and A streams from DRAM once
    // per tile). One tile per block; NTILES (= ceil(K / REGISTER)) is compiled in, so splitting
    // blockIdx.x costs no registers.
#define RT_ROW_PART    (RT_BLOCK_X / NTILES)
#define RT_FIRST_TILE  ((int)(RT_BLOCK_X % NTILES))
#define RT_TILE_END    (RT_FIRST_TILE + 1)
#define RT_TILE_STRIDE 1
#else
#define RT_ROW_PART    RT_BLOCK_X
#define RT_FIRST_TILE  blockIdx.y
#define RT_TILE_END    ntiles
#define RT_TILE_STRIDE gridDim.y
#endif
    // The plan's block: this block's row block, or with CLUSTER the cluster's (its rows, stages
    // and ELL slices or CSR rows are the cluster's, this block's the rank-th BLOCK_SIZE of them).
    const long long block = RT_ROW_PART / STAGE_SPLIT;
#if CLUSTER > 1
#define RT_PLAN_THREADS (CLUSTER * BLOCK_SIZE)
#define RT_PLAN_THREAD  (RT_RANK * BLOCK_SIZE + (int)threadIdx.x)
#else
#define RT_PLAN_THREADS BLOCK_SIZE
#define RT_PLAN_THREAD  threadIdx.x
#endif
#if WARP_ROWS == 0
    const long long row = block * RT_PLAN_THREADS + RT_PLAN_THREAD;
#endif
    const long long row_first = buffdispl[block];
    const long long row_stages = buffdispl[block + 1] - row_first;
#if STAGE_SPLIT > 1
    const long long part = RT_ROW_PART % STAGE_SPLIT;
    const long long stage_begin = row_first + row_stages * part / STAGE_SPLIT;
    const long long stage_end = row_first + row_stages * (part + 1) / STAGE_SPLIT;
    // C was zeroed: a part without stages adds nothing. The whole block returns together, before
    // any barrier.
    if (stage_begin == stage_end)
        return;
#else
    const long long stage_begin = row_first;
    const long long stage_end = row_first + row_stages;
#endif
    // A block row's stages and a buffer's values fit 32 bits (the host checks the grid and the
    // shared memory); 32-bit counters keep the registers for the accumulators.
    const int nstages = (int)(stage_end - stage_begin);
    const int buffer_values = buffsize * REGISTER;
#if STAGING_ELL || WARP_ROWS > 0
    const int warp_in_block = threadIdx.x / WARP_SIZE;
    const int lane = threadIdx.x % WARP_SIZE;
#endif
#if STAGING_ELL
    // This warp's ELL slice of a stage, among the plan block's warps.
#if CLUSTER > 1
    const int plan_warp = RT_RANK * (BLOCK_SIZE / WARP_SIZE) + warp_in_block;
#else
    const int plan_warp = warp_in_block;
#endif
#endif
#if WARP_ROWS == 0
    const int skew = SKEW ? (int)(threadIdx.x % WARP_SIZE) % SKEW_CHUNKS : 0;
#endif
#if WARP_ROWS > 0
    const int group = lane / LANE_GROUP;
#if CLUSTER > 1
    const int plan_row0 = (RT_RANK * (BLOCK_SIZE / WARP_SIZE) + warp_in_block) * WARP_ROWS;
#else
    const int plan_row0 = warp_in_block * WARP_ROWS;
#endif
    const long long warp_row = block * (CLUSTER * PLAN_ROWS) + plan_row0;
#endif

    for (int tile = RT_FIRST_TILE; tile < RT_TILE_END; tile += RT_TILE_STRIDE) {
        const int k0 = tile * REGISTER;
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        // Prologue (below): stages 0 .. N_BUFFERS - 2 in flight, one commit group per stage (an
        // empty group past the last stage), so that group i always holds stage i.
#if WARP_ROWS > 0
        value_t acc[WARP_ROWS][ROW_VALUES];
#pragma unroll
        for (int r = 0; r < WARP_ROWS; ++r)
#pragma unroll
            for (int j = 0; j < ROW_VALUES; ++j)
                acc[r][j] = 0;
#else
        value_t acc[REGISTER];
#pragma unroll
        for (int k = 0; k < REGISTER; ++k)
            acc[k] = 0;
#endif
#pragma unroll
        for (int ahead = 0; ahead < N_BUFFERS - 1; ++ahead) {
            if (ahead < nstages) {
                const long long s = stage_begin + ahead;
                const long long map_begin = mapdispl[s];
                rt_stage_async(shared + ahead * buffer_values, B, map, map_begin,
                               RT_SHARE((int)(mapdispl[s + 1] - map_begin)), ncols, K, k0, kcount,
                               buffsize);
            }
            rt_copy_commit();
        }

        for (int i = 0; i < nstages; ++i) {
            // Stage i + N_BUFFERS - 1 goes into the buffer that stage i - 1 used; the barrier at
            // the end of the previous iteration made sure every warp is done reading it.
            const int ahead = i + N_BUFFERS - 1;
            if (ahead < nstages) {
                const long long s = stage_begin + ahead;
                const long long map_begin = mapdispl[s];
                rt_stage_async(shared + (ahead % N_BUFFERS) * buffer_values, B, map, map_begin,
                               RT_SHARE((int)(mapdispl[s + 1] - map_begin)), ncols, K, k0, kcount,
                               buffsize);
            }
            rt_copy_commit();
            // Groups committed so far: i + N_BUFFERS; leaving the newest N_BUFFERS - 1 in flight
            // completes group i (this thread's share of stage i); the barrier then makes every
            // thread's share visible to the whole block (with CLUSTER, to the whole cluster).
            rt_copy_wait<N_BUFFERS - 1>();
            RT_STAGE_SYNC();

            const value_t *const buf = shared + (i % N_BUFFERS) * buffer_values;
            const long long s = stage_begin + i;
#if STAGING_ELL
            const value_t *vp;
            const index_t *ip;
            const int ell_rows =
                rt_nnz_list(displ, value, index, s * (RT_PLAN_THREADS / WARP_SIZE) + plan_warp,
                            WARP_SIZE, lane, vp, ip);
#pragma unroll 1
            for (int m = 0; m < ell_rows; m += NNZ_UNROLL) {
                value_t a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, m, ell_rows, WARP_SIZE, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
                    rt_tile_fma(acc, buf, slot[u], a[u], buffsize, skew);
            }
#elif WARP_ROWS > 0
            // The warp's rows one after another, each by the whole warp (see the top).
            const value_t *const lane_buf = buf + (lane % LANE_GROUP) * LANE_VALUES;
            const long long stage_row = s * (CLUSTER * PLAN_ROWS) + plan_row0;
#pragma unroll
            for (int r = 0; r < WARP_ROWS; ++r) {
                const long long first = displ[stage_row + r];
                const int entries = (int)(displ[stage_row + r + 1] - first);
                if (entries == 0) // the same for the whole warp
                    continue;
                const value_t *vp = value + first;
                const index_t *ip = index + first;
                value_t part[LANE_VALUES];
#pragma unroll
                for (int j = 0; j < LANE_VALUES; ++j)
                    part[j] = 0;
#pragma unroll 1
                for (int e = group; e < entries; e += GROUPS * NNZ_UNROLL) {
                    value_t a[NNZ_UNROLL];
                    int slot[NNZ_UNROLL];
#pragma unroll
                    for (int u = 0; u < NNZ_UNROLL; ++u) {
                        const int at = e + u * GROUPS;
                        const bool in = at < entries;
                        a[u] = in ? vp[at] : (value_t)0;
                        slot[u] = in ? (int)ip[at] : 0;
                    }
#pragma unroll
                    for (int u = 0; u < NNZ_UNROLL; ++u) {
                        value_t b[LANE_VALUES];
#if CLUSTER > 1
                        int at = slot[u];
                        const value_t *const owner = rt_slot_owner(lane_buf, at);
                        rt_load_values<LANE_VALUES>(owner + at * REGISTER, b);
#else
                        rt_load_values<LANE_VALUES>(lane_buf + slot[u] * REGISTER, b);
#endif
#pragma unroll
                        for (int j = 0; j < LANE_VALUES; ++j)
                            part[j] += b[j] * a[u];
                    }
                }
                rt_reduce_groups(part, lane);
#pragma unroll
                for (int j = 0; j < ROW_VALUES; ++j)
                    acc[r][j] += part[j];
            }
#else
            const value_t *vp;
            const index_t *ip;
            const int entries = rt_nnz_list(displ, value, index,
                                            s * RT_PLAN_THREADS + RT_PLAN_THREAD, 1, 0, vp, ip);
#pragma unroll 1
            for (int e = 0; e < entries; e += NNZ_UNROLL) {
                value_t a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, e, entries, 1, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
                    rt_tile_fma(acc, buf, slot[u], a[u], buffsize, skew);
            }
#endif
            // The copies issued at the top of the next iteration overwrite this buffer (with one
            // buffer) or the one before it: no warp may still be reading it (with CLUSTER, no
            // warp of the cluster; after the last stage this also keeps every block's shared
            // memory alive until the cluster's last read of it).
            RT_STAGE_SYNC();
        }

#if WARP_ROWS > 0
        const int column = rt_lane_first_column(lane);
#pragma unroll
        for (int r = 0; r < WARP_ROWS; ++r) {
            const long long row = warp_row + r;
            if (row >= nrows)
                break;
#pragma unroll
            for (int j = 0; j < ROW_VALUES; ++j) {
                const int k = column + j;
                if (k < kcount) {
#if RT_ROW_MAJOR
                    value_t *const out = C + row * K + k0 + k;
#else
                    value_t *const out = C + (long long)(k0 + k) * nrows + row;
#endif
#if STAGE_SPLIT > 1
                    atomicAdd(out, acc[r][j]);
#else
                    *out = acc[r][j];
#endif
                }
            }
        }
#else
        if (row < nrows) {
#if STAGE_SPLIT > 1
#pragma unroll
            for (int i = 0; i < REGISTER; ++i) {
                const int k = rt_tile_column(i, skew);
                if (k < kcount) {
#if RT_ROW_MAJOR
                    atomicAdd(&C[row * K + k0 + k], acc[i]);
#else
                    atomicAdd(&C[(long long)(k0 + k) * nrows + row], acc[i]);
#endif
                }
            }
#elif VECTOR >= 2
#pragma unroll
            for (int i = 0; i < REGISTER; i += RT_VEC_WIDTH) {
                const int k = rt_tile_column(i, skew);
                if (k < kcount) {
#if RT_FP64
                    *reinterpret_cast<double2 *>(C + row * K + k0 + k) =
                        make_double2(acc[i], acc[i + 1]);
#else
                    *reinterpret_cast<float4 *>(C + row * K + k0 + k) =
                        make_float4(acc[i], acc[i + 1], acc[i + 2], acc[i + 3]);
#endif
                }
            }
#else
#pragma unroll
            for (int i = 0; i < REGISTER; ++i) {
                const int k = rt_tile_column(i, skew);
                if (k < kcount) {
#if RT_ROW_MAJOR
                    C[row * K + k0 + k] = acc[i];
#else
                    C[(long long)(k0 + k) * nrows + row] = acc[i];
#endif
                }
            }
#endif
        }
#endif
    }
}
