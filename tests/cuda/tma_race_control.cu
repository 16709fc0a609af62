// tma_race_control: issue 34's control experiment for compute-sanitizer's racecheck. The Hopper
// SpMM kernel spmm.cuda.tiled_tma (kernels/spmm/cuda/src/spmm_tiled_tma.cu) drew 264 racecheck
// hazards, each between a bulk copy writing a stage buffer (rt_bulk_load) and consumers reading
// it after waiting on the buffer's "full" mbarrier, while memcheck was clean and every point
// verified. This kernel is the same protocol in miniature, built from the same primitives
// (rt_async_copy.cuh then rt_bulk_copy.cuh, inlined by the same embed step), so racecheck's
// verdict on it says whether it models the ordering mbarrier complete_tx / try_wait gives to
// bulk-copy (async-proxy) writes:
//   - one producer warp (the last warp) and CONSUMER_WARPS consumer warps; a ring of N_BUFFERS
//     stage buffers in shared memory, each with a "full" and an "empty" mbarrier;
//   - stage j of a block (STAGE_ROWS rows of ROW_WORDS words, rows contiguous in global memory)
//     goes to buffer j mod N_BUFFERS: the producer waits on the buffer's empty barrier (from its
//     second use on), lane 0 arrives on full with expect_tx of the stage's bytes, and each lane
//     bulk-copies one row; consumers wait on full, read the stage, and each warp arrives once on
//     empty (after __syncwarp, lane 0), exactly as spmm_tiled_tma.cu's producer and consumers;
//   - each consumer thread sums the words it read (uint32, wrapping: exact on the host) over all
//     stages and writes the sum to out[block * CONSUMER_THREADS + thread].
// RT_TMA_RACE_MODE picks the variant (tests/cuda/rt_tma_race.h names them):
//   0 correct       the protocol above (what spmm_tiled_tma.cu does);
//   1 broken        consumers read a stage BEFORE waiting on its full barrier (they wait after
//                   reading, so the ring still turns and no copy is in flight when the block
//                   exits): a genuine read-before-write race that racecheck ought to report;
//   2 generic_mbar  the same mbarrier ring, but the producer lanes copy their rows with ordinary
//                   loads and shared-memory stores (generic proxy) and each lane arrives on full
//                   (release) after its own stores: mbarrier ordering without the async proxy;
//   3 generic_sync  no mbarriers: every thread of the block copies part of the stage with
//                   ordinary loads and stores, __syncthreads before and after the consumers read
//                   (the classic pattern racecheck must pass cleanly).
// The result is checked exactly on the host in every mode; in mode 1 a mismatch is expected (and
// a match is luck), in the others it is a failure.
// Shared memory (static): N_BUFFERS x STAGE_WORDS words, then the full and empty barriers.

#include "rt_async_copy.cuh"
#include "rt_bulk_copy.cuh"

#ifndef RT_TMA_RACE_MODE
#define RT_TMA_RACE_MODE 0
#endif
#ifndef N_BUFFERS
#define N_BUFFERS 3
#endif
#ifndef CONSUMER_WARPS
#define CONSUMER_WARPS 4
#endif
#ifndef STAGE_ROWS
#define STAGE_ROWS 32
#endif
#ifndef ROW_WORDS
#define ROW_WORDS 16
#endif

#define RACE_WARP        32
#define CONSUMER_THREADS (CONSUMER_WARPS * RACE_WARP)
#define THREADS          (CONSUMER_THREADS + RACE_WARP)
#define STAGE_WORDS      (STAGE_ROWS * ROW_WORDS)
#define ROW_BYTES        (ROW_WORDS * 4)
#define STAGE_BYTES      (STAGE_WORDS * 4)
#define PRODUCER_WARP    CONSUMER_WARPS

#if RT_TMA_RACE_MODE < 0 || RT_TMA_RACE_MODE > 3
#error "RT_TMA_RACE_MODE is 0 (correct), 1 (broken), 2 (generic_mbar) or 3 (generic_sync)"
#endif
#if (ROW_BYTES % 16) != 0
#error "a bulk copy moves a multiple of 16 bytes: ROW_WORDS must be a multiple of 4"
#endif
#if STAGE_ROWS != RACE_WARP
#error "each producer lane copies one row of a stage: STAGE_ROWS must be 32"
#endif
#if (STAGE_WORDS % CONSUMER_THREADS) != 0
#error "a stage must split evenly over the consumer threads"
#endif
#if N_BUFFERS < 1 || N_BUFFERS > 4
#error "N_BUFFERS must be 1 to 4"
#endif

// The consumer's part of a stage: words t, t + CONSUMER_THREADS, ... (so every row is read by
// several warps, none of them the one that issued its copy), summed.
__device__ __forceinline__ unsigned rt_race_consume(const unsigned *buf, int t)
{
    unsigned sum = 0;
#pragma unroll
    for (int w = t; w < STAGE_WORDS; w += CONSUMER_THREADS)
        sum += buf[w];
    return sum;
}

// src: nblocks x nstages stages of STAGE_WORDS words (block b's stage j at (b * nstages + j) *
// STAGE_WORDS), 16-byte aligned. out: nblocks x CONSUMER_THREADS sums. Block: THREADS.
extern "C" __global__ void __launch_bounds__(THREADS)
    rt_tma_race_control(const unsigned *__restrict__ src, unsigned *__restrict__ out, int nstages)
{
    __shared__ __align__(128) unsigned stage[N_BUFFERS][STAGE_WORDS];
    const unsigned *const block_src = src + (long long)blockIdx.x * nstages * STAGE_WORDS;
    const int t = (int)threadIdx.x;
    unsigned sum = 0;

#if RT_TMA_RACE_MODE == 3
    // Generic baseline: the whole block fills buffer j mod N_BUFFERS, then the consumers read it.
    for (int j = 0; j < nstages; ++j) {
        unsigned *const buf = stage[j % N_BUFFERS];
        const unsigned *const from = block_src + (long long)j * STAGE_WORDS;
        for (int w = t; w < STAGE_WORDS; w += THREADS)
            buf[w] = from[w];
        __syncthreads(); // the stage is in
        if (t < CONSUMER_THREADS)
            sum += rt_race_consume(buf, t);
        __syncthreads(); // every read is done before the buffer is filled again
    }
#else
    __shared__ __align__(8) unsigned long long full[N_BUFFERS], empty[N_BUFFERS];
    const int warp = t / RACE_WARP;
    const int lane = t % RACE_WARP;
    if (t == 0) {
        for (int b = 0; b < N_BUFFERS; ++b) {
#if RT_TMA_RACE_MODE == 2
            // Each producer lane arrives after its own stores.
            rt_mbar_init(&full[b], RACE_WARP);
#else
            // The producer's lane 0 arrives, with the stage's bytes.
            rt_mbar_init(&full[b], 1);
#endif
            rt_mbar_init(&empty[b], CONSUMER_WARPS); // one arrival per consumer warp
        }
        rt_mbar_init_fence();
    }
    __syncthreads(); // the only block barrier, as in spmm_tiled_tma.cu

    if (warp == PRODUCER_WARP) {
        for (int j = 0; j < nstages; ++j) {
            const int b = j % N_BUFFERS;
            const int use = j / N_BUFFERS;
            if (use > 0)
                rt_mbar_wait(&empty[b], (unsigned)(use - 1) & 1u);
            unsigned *const row = stage[b] + lane * ROW_WORDS;
            const unsigned *const from = block_src + (long long)j * STAGE_WORDS + lane * ROW_WORDS;
#if RT_TMA_RACE_MODE == 2
            for (int k = 0; k < ROW_WORDS; ++k)
                row[k] = from[k];
            rt_mbar_arrive(&full[b]); // release: this lane's stores are in
#else
            if (lane == 0)
                rt_mbar_arrive_expect_tx(&full[b], STAGE_BYTES);
            __syncwarp();
            rt_bulk_load(row, from, ROW_BYTES, &full[b]);
#endif
        }
        return; // the consumers wait for every stage it filled before they leave
    }

    for (int j = 0; j < nstages; ++j) {
        const int b = j % N_BUFFERS;
        const unsigned parity = (unsigned)(j / N_BUFFERS) & 1u;
#if RT_TMA_RACE_MODE == 1
        // The race on purpose: the stage is read before its copies are known to have landed.
        sum += rt_race_consume(stage[b], t);
        rt_mbar_wait(&full[b], parity);
#else
        rt_mbar_wait(&full[b], parity);
        sum += rt_race_consume(stage[b], t);
#endif
        // Every lane's reads of the buffer are done: the warp releases it.
        __syncwarp();
        if (lane == 0)
            rt_mbar_arrive(&empty[b]);
    }
#endif
    if (t < CONSUMER_THREADS)
        out[(long long)blockIdx.x * CONSUMER_THREADS + t] = sum;
}
