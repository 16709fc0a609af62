// spmm.cuda.tiled_tma: the Tiled SpMM (Listing 1's plan, arguments and a thread per row of C)
// with B staged by Hopper's bulk copies (cp.async.bulk, the 1D Tensor Memory Accelerator) in a
// ring of N_BUFFERS shared-memory buffers guarded by mbarriers, for row-major B and C (sm_90).
//   - A staged row of B (REGISTER values of one column of A's footprint: B[col][k0 .. k0 +
//     REGISTER)) is contiguous in row-major B, so one bulk copy moves it: no thread loads or
//     stores it, and a stage's copies complete on the buffer's "full" barrier, which expects the
//     stage's bytes (mapnz x kcount x sizeof(value)). Consumers wait for the full barrier's phase,
//     multiply, and each warp arrives once on the buffer's "empty" barrier; the producer waits for
//     that before it refills the buffer. No __syncthreads in the loop: warps drift apart by up to
//     N_BUFFERS - 1 stages.
//   - PRODUCER 1: one extra warp (threads BLOCK_SIZE .. BLOCK_SIZE + 31) only issues copies,
//     N_BUFFERS stages ahead. PRODUCER 0: warp 0 of the consumers issues them, N_BUFFERS - 1
//     stages ahead of the one it consumes (no extra warp, but warp 0 waits for the slowest warp
//     to free a buffer).
//   - MERGE_RUNS 1 (whole rows: REGISTER == K, checked by the host): consecutive staged columns
//     are adjacent rows of B and adjacent slots of the stage, so a run of them (within a window of
//     32 slots, found with one ballot) is one bulk copy. Banded and stencil matrices stage long
//     runs: fewer, larger copies.
//   - SKEW 1: each lane walks its register tile from 16-byte chunk lane mod CHUNKS, so the eight
//     lanes of a quarter-warp read different bank groups of their staged rows (a bulk copy lands
//     a row unswizzled, so the skew is the way around the conflicts here); acc[i] then holds a
//     rotated column, which the stores undo chunk by chunk.
//   - C_BULK 0: each thread stores its row's register tile with 16-byte vector stores. C_BULK 1:
//     each warp writes its 32 rows' tiles into its own area of shared memory and bulk-copies them
//     to C: one copy of the warp's consecutive rows when the register tile is the whole row
//     (REGISTER == K: the warp's rows of C are one contiguous run), else one per row. C is
//     written once either way and never read.
//   - TILE_INTERLEAVE / NTILES as spmm_tiled_pipe.cu (a block row's register tiles adjacent along
//     grid.x). The stages of all of a block's tiles form one stream through the ring, so the
//     copies of the next tile's first stages overlap the last stages of this one.
// The host guarantees what the copies need (kernels/spmm/spmm_tiled_tma_rules.h): row-major data,
// REGISTER and K multiples of the 16-byte vector width (so every copied row, row start and C row
// is a multiple of 16 bytes), compute capability 9.0. Columns of a last tile past K are not
// copied: those slots hold stale values, whose products land only in accumulators past K, which
// are never stored.
// Shared memory (dynamic): N_BUFFERS buffers of buffsize * REGISTER values, then (C_BULK)
// BLOCK_SIZE * REGISTER values of C, then the N_BUFFERS full and N_BUFFERS empty barriers.

#include "rt_tiled_params.cuh"
#include "rt_kernel_types.cuh"
#include "rt_nnz_load.cuh"
#include "rt_async_copy.cuh"
#include "rt_bulk_copy.cuh"

#ifndef NNZ_UNROLL
#define NNZ_UNROLL 4
#endif
#ifndef N_BUFFERS
#define N_BUFFERS 3
#endif
#ifndef PRODUCER
#define PRODUCER 1
#endif
#ifndef MERGE_RUNS
#define MERGE_RUNS 0
#endif
#ifndef SKEW
#define SKEW 0
#endif
#ifndef C_BULK
#define C_BULK 0
#endif
#ifndef TILE_INTERLEAVE
#define TILE_INTERLEAVE 0
#endif
#ifndef NTILES
#define NTILES 1
#endif

#if RT_FP64
#define RT_VEC_WIDTH 2
#else
#define RT_VEC_WIDTH 4
#endif
#define CHUNKS         (REGISTER / RT_VEC_WIDTH)
#define CONSUMER_WARPS (BLOCK_SIZE / WARP_SIZE)
#define THREADS        (BLOCK_SIZE + PRODUCER * WARP_SIZE)
#define FULL_MASK      0xffffffffu

#if !RT_ROW_MAJOR
#error "spmm_tiled_tma.cu stages rows of row-major B: column-major is refused by the host"
#endif
#if (BLOCK_SIZE % WARP_SIZE) != 0
#error "BLOCK_SIZE (consumer threads) must be a multiple of the warp size"
#endif
#if (REGISTER % RT_VEC_WIDTH) != 0
#error "REGISTER must be a multiple of the 16-byte vector width"
#endif
#if N_BUFFERS < 1 || N_BUFFERS > 4
#error "N_BUFFERS must be 1 to 4"
#endif
#if PRODUCER < 0 || PRODUCER > 1 || MERGE_RUNS < 0 || MERGE_RUNS > 1 || SKEW < 0 || SKEW > 1 ||    \
    C_BULK < 0 || C_BULK > 1 || TILE_INTERLEAVE < 0 || TILE_INTERLEAVE > 1 || NTILES < 1
#error "PRODUCER, MERGE_RUNS, SKEW, C_BULK and TILE_INTERLEAVE are 0 or 1, NTILES at least 1"
#endif
#if MERGE_RUNS && TILE_INTERLEAVE && NTILES != 1
#error "MERGE_RUNS copies whole rows: one register tile"
#endif

#if MIN_BLOCKS > 0
#define RT_TMA_BOUNDS __launch_bounds__(THREADS, MIN_BLOCKS)
#else
#define RT_TMA_BOUNDS __launch_bounds__(THREADS)
#endif

// One 16-byte chunk of shared memory into v.
__device__ __forceinline__ void rt_tma_load_chunk(const value_t *p, value_t (&v)[RT_VEC_WIDTH])
{
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
}

// Chunk c of acc (values c * RT_VEC_WIDTH ..) stored at p (16-byte aligned, global or shared).
__device__ __forceinline__ void rt_tma_store_chunk(value_t *p, const value_t (&acc)[REGISTER],
                                                   int c)
{
#if RT_FP64
    *reinterpret_cast<double2 *>(p) = make_double2(acc[c * 2], acc[c * 2 + 1]);
#else
    *reinterpret_cast<float4 *>(p) =
        make_float4(acc[c * 4], acc[c * 4 + 1], acc[c * 4 + 2], acc[c * 4 + 3]);
#endif
}

// The same into shared memory, as one 16-byte store (st.shared.v4 / v2: NVRTC split the plain
// vector store into four).
__device__ __forceinline__ void rt_tma_share_chunk(value_t *p, const value_t (&acc)[REGISTER],
                                                   int c)
{
#if RT_FP64
    asm volatile("st.shared.v2.f64 [%0], {%1, %2};\n" ::"r"(rt_shared_address(p)), "d"(acc[c * 2]),
                 "d"(acc[c * 2 + 1])
                 : "memory");
#else
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(rt_shared_address(p)),
                 "f"(acc[c * 4]), "f"(acc[c * 4 + 1]), "f"(acc[c * 4 + 2]), "f"(acc[c * 4 + 3])
                 : "memory");
#endif
}

// The column (within the register tile) of acc's chunk c: c, or with SKEW rotated by skew.
__device__ __forceinline__ int rt_tma_chunk_column(int c, int skew)
{
#if SKEW
    int chunk = c + skew;
    if (chunk >= CHUNKS)
        chunk -= CHUNKS;
    return chunk * RT_VEC_WIDTH;
#else
    (void)skew;
    return c * RT_VEC_WIDTH;
#endif
}

// acc += a * the staged row at row (REGISTER values), chunk by chunk from chunk `skew`.
__device__ __forceinline__ void rt_tma_fma(value_t (&acc)[REGISTER], const value_t *row, value_t a,
                                           int skew)
{
#if SKEW
    // A running pointer that wraps at the end of the row: one register for the rotation.
    const value_t *p = row + skew * RT_VEC_WIDTH;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        value_t b[RT_VEC_WIDTH];
        rt_tma_load_chunk(p, b);
#pragma unroll
        for (int j = 0; j < RT_VEC_WIDTH; ++j)
            acc[c * RT_VEC_WIDTH + j] += b[j] * a;
        p += RT_VEC_WIDTH;
        if (p == row + REGISTER)
            p = row;
    }
#else
    (void)skew;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        value_t b[RT_VEC_WIDTH];
        rt_tma_load_chunk(row + c * RT_VEC_WIDTH, b);
#pragma unroll
        for (int j = 0; j < RT_VEC_WIDTH; ++j)
            acc[c * RT_VEC_WIDTH + j] += b[j] * a;
    }
#endif
}

// Issues the bulk copies of one stage (its map entries' rows of B, columns k0 .. k0 + kcount)
// into buf, completing on full. Called by a whole warp (converged).
__device__ __forceinline__ void rt_tma_stage(value_t *buf, unsigned long long *full,
                                             const value_t *__restrict__ B,
                                             const int *__restrict__ map, long long map_begin,
                                             int mapnz, int K, int k0, int kcount, int lane)
{
    const unsigned row_bytes = (unsigned)kcount * (unsigned)sizeof(value_t);
    if (lane == 0)
        rt_mbar_arrive_expect_tx(full, (unsigned)mapnz * row_bytes);
    __syncwarp();
#if MERGE_RUNS
    // Whole rows (k0 0, kcount K = REGISTER): slot s + 1 follows slot s in shared memory, and
    // column c + 1 follows column c in B. A lane whose column does not follow its left
    // neighbour's starts a run, which ends where the next run of the window starts.
    (void)k0;
    for (int base = 0; base < mapnz; base += WARP_SIZE) {
        const int slot = base + lane;
        const bool in = slot < mapnz;
        const int col = in ? map[map_begin + slot] : 0;
        const int left = __shfl_up_sync(FULL_MASK, col, 1);
        const bool start = in && (lane == 0 || left + 1 != col);
        const unsigned starts = __ballot_sync(FULL_MASK, start);
        if (start) {
            const unsigned above = starts & ~((2u << lane) - 1u);
            int end = above ? __ffs((int)above) - 1 : WARP_SIZE;
            if (base + end > mapnz)
                end = mapnz - base;
            rt_bulk_load(buf + (long long)slot * REGISTER, B + (long long)col * K,
                         (unsigned)(end - lane) * row_bytes, full);
        }
    }
#else
    for (int slot = lane; slot < mapnz; slot += WARP_SIZE) {
        const long long col = map[map_begin + slot];
        rt_bulk_load(buf + (long long)slot * REGISTER, B + col * K + k0, row_bytes, full);
    }
#endif
}

// displ: ELL staging: per (stage, warp) ranges of ELL rows (nstages * BLOCK_SIZE / 32 + 1);
//        CSR staging: per (stage, row of block) ranges of entries (nstages * BLOCK_SIZE + 1).
// Grid: x = row blocks (times NTILES with TILE_INTERLEAVE), y = K tiles (looped past 65535).
// Block: BLOCK_SIZE consumer threads (+ 32 with PRODUCER).
extern "C" __global__ void RT_TMA_BOUNDS rt_spmm_tiled_tma(
    value_t *__restrict__ C, const value_t *__restrict__ B, const long long *__restrict__ displ,
    const index_t *__restrict__ index, const value_t *__restrict__ value, long long nrows,
    long long ncols, int K, int ntiles, const long long *__restrict__ buffdispl,
    const long long *__restrict__ mapdispl, const int *__restrict__ map, int buffsize)
{
    (void)ncols;
    extern __shared__ __align__(128) unsigned char rt_shared_bytes[];
    value_t *const stages = reinterpret_cast<value_t *>(rt_shared_bytes);
    const int buffer_values = buffsize * REGISTER;
    value_t *const c_area = stages + N_BUFFERS * buffer_values;
    unsigned long long *const full =
        reinterpret_cast<unsigned long long *>(c_area + (C_BULK ? BLOCK_SIZE * REGISTER : 0));
    unsigned long long *const empty = full + N_BUFFERS;

#if TILE_INTERLEAVE
    const long long block = blockIdx.x / NTILES;
    const int first_tile = (int)(blockIdx.x % NTILES);
    const int tile_end = first_tile + 1;
    const int tile_stride = 1;
#else
    const long long block = blockIdx.x;
    const int first_tile = (int)blockIdx.y;
    const int tile_end = ntiles;
    const int tile_stride = (int)gridDim.y;
#endif
    const long long stage_begin = buffdispl[block];
    const int nstages = (int)(buffdispl[block + 1] - stage_begin);
    const int my_tiles =
        first_tile < tile_end ? (tile_end - first_tile + tile_stride - 1) / tile_stride : 0;
    // The block's stages, all tiles, in the order they pass through the ring.
    const int total = my_tiles * nstages;
    const int warp = (int)(threadIdx.x / WARP_SIZE);
    const int lane = (int)(threadIdx.x % WARP_SIZE);

    if (threadIdx.x == 0) {
#pragma unroll
        for (int b = 0; b < N_BUFFERS; ++b) {
            rt_mbar_init(&full[b], 1);               // the producer's arrival with the bytes
            rt_mbar_init(&empty[b], CONSUMER_WARPS); // one arrival per consumer warp
        }
        rt_mbar_init_fence();
    }
    __syncthreads(); // the only block barrier: warps run apart from here on

    // Stage j of the stream into buffer j mod N_BUFFERS, once its previous use is released.
    auto issue = [&](int j) {
        const int t = j / nstages;
        const int i = j - t * nstages;
        const int k0 = (first_tile + t * tile_stride) * REGISTER;
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        const int b = j % N_BUFFERS;
        const int use = j / N_BUFFERS;
        if (use > 0)
            rt_mbar_wait(&empty[b], (unsigned)(use - 1) & 1u);
        const long long s = stage_begin + i;
        const long long map_begin = mapdispl[s];
        rt_tma_stage(stages + b * buffer_values, &full[b], B, map, map_begin,
                     (int)(mapdispl[s + 1] - map_begin), K, k0, kcount, lane);
    };

#if PRODUCER
    if (warp == CONSUMER_WARPS) {
        for (int j = 0; j < total; ++j)
            issue(j);
        return; // the consumers wait for every copy it issued before they leave
    }
#else
    if (warp == 0)
        for (int j = 0; j < N_BUFFERS - 1 && j < total; ++j)
            issue(j);
#endif

    const long long row = block * BLOCK_SIZE + threadIdx.x;
    const int skew = SKEW ? lane % CHUNKS : 0;
#if C_BULK
    value_t *const warp_area = c_area + warp * WARP_SIZE * REGISTER;
    value_t *const my_area = warp_area + lane * REGISTER;
    const long long warp_row = block * BLOCK_SIZE + warp * WARP_SIZE;
#endif
    int j = 0;
    for (int t = 0; t < my_tiles; ++t) {
        const int k0 = (first_tile + t * tile_stride) * REGISTER;
        const int kcount = (K - k0 < REGISTER) ? K - k0 : REGISTER;
        value_t acc[REGISTER];
#pragma unroll
        for (int k = 0; k < REGISTER; ++k)
            acc[k] = 0;
        for (int i = 0; i < nstages; ++i, ++j) {
#if !PRODUCER
            if (warp == 0 && j + N_BUFFERS - 1 < total)
                issue(j + N_BUFFERS - 1);
#endif
            const int b = j % N_BUFFERS;
            rt_mbar_wait(&full[b], (unsigned)(j / N_BUFFERS) & 1u);
            const value_t *const buf = stages + b * buffer_values;
            const long long s = stage_begin + i;
            const value_t *vp;
            const index_t *ip;
#if STAGING_ELL
            const int count = rt_nnz_list(displ, value, index, s * CONSUMER_WARPS + warp, WARP_SIZE,
                                          lane, vp, ip);
            const int stride = WARP_SIZE;
#else
            const int count =
                rt_nnz_list(displ, value, index, s * BLOCK_SIZE + threadIdx.x, 1, 0, vp, ip);
            const int stride = 1;
#endif
#pragma unroll 1
            for (int e = 0; e < count; e += NNZ_UNROLL) {
                value_t a[NNZ_UNROLL];
                int slot[NNZ_UNROLL];
                rt_nnz_load(vp, ip, e, count, stride, a, slot);
#pragma unroll
                for (int u = 0; u < NNZ_UNROLL; ++u)
                    rt_tma_fma(acc, buf + slot[u] * REGISTER, a[u], skew);
            }
            // Every lane's reads of the buffer are done: the warp releases it.
            __syncwarp();
            if (lane == 0)
                rt_mbar_arrive(&empty[b]);
        }

#if C_BULK
        // The warp's area may still be read by the bulk store of the previous tile.
        rt_bulk_wait_read();
        __syncwarp();
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c)
            rt_tma_share_chunk(my_area + rt_tma_chunk_column(c, skew), acc, c);
        rt_bulk_fence_shared();
        __syncwarp();
        if (K == REGISTER) {
            // One register tile is the whole row: the warp's rows are one run of C.
            if (lane == 0 && warp_row < nrows) {
                const long long rows = nrows - warp_row < WARP_SIZE ? nrows - warp_row : WARP_SIZE;
                rt_bulk_store(C + warp_row * K, warp_area,
                              (unsigned)rows * (unsigned)(K * (int)sizeof(value_t)));
                rt_bulk_commit();
            }
        } else if (row < nrows) {
            rt_bulk_store(C + row * K + k0, my_area, (unsigned)kcount * (unsigned)sizeof(value_t));
            rt_bulk_commit();
        }
#else
        if (row < nrows) {
#pragma unroll
            for (int c = 0; c < CHUNKS; ++c) {
                const int k = rt_tma_chunk_column(c, skew);
                if (k < kcount)
                    rt_tma_store_chunk(C + row * K + k0 + k, acc, c);
            }
        }
#endif
    }
#if C_BULK
    rt_bulk_wait_all();
#endif
}
