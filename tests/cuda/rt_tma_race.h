/* rt_tma_race: the host side of issue 34's racecheck control experiment (tests/cuda/
 * tma_race_control.cu): its modes, its compile through the harness's NVRTC wrapper (the source
 * embedded by backends/cuda/embed_sources.cmake with rt_async_copy.cuh and rt_bulk_copy.cuh
 * inlined, as spmm_tiled_tma.cu gets them), its input and the exact sums it must produce. Shared by
 * the compile-only test (test_cuda_tma_race_compile, no GPU) and the GPU driver
 * (test_cuda_tma_race), so both compile the very same variants. */
#ifndef RT_TMA_RACE_H
#define RT_TMA_RACE_H

#include <stddef.h>

#include "rt_cuda_nvrtc.h"
#include "rt_error.h"

/* The kernel's variants (RT_TMA_RACE_MODE); tma_race_control.cu says what each one does. */
typedef enum rt_tma_race_mode {
    RT_TMA_RACE_CORRECT = 0,      /* the spmm_tiled_tma protocol: bulk copies, full/empty ring */
    RT_TMA_RACE_BROKEN = 1,       /* consumers read before waiting on full: a genuine race */
    RT_TMA_RACE_GENERIC_MBAR = 2, /* the same ring, rows copied with ordinary stores */
    RT_TMA_RACE_GENERIC_SYNC = 3, /* ordinary stores and __syncthreads, no mbarriers */
    RT_TMA_RACE_NMODES = 4
} rt_tma_race_mode;

/* The geometry both sides agree on: the host passes these as defines. A stage is 32 rows (one
 * per producer lane, one bulk copy each) of RT_TMA_RACE_ROW_WORDS 32-bit words. */
#define RT_TMA_RACE_BUFFERS          3
#define RT_TMA_RACE_CONSUMER_WARPS   4
#define RT_TMA_RACE_ROW_WORDS        16
#define RT_TMA_RACE_STAGE_WORDS      (32 * RT_TMA_RACE_ROW_WORDS)
#define RT_TMA_RACE_CONSUMER_THREADS (RT_TMA_RACE_CONSUMER_WARPS * 32)
#define RT_TMA_RACE_THREADS          (RT_TMA_RACE_CONSUMER_THREADS + 32)
#define RT_TMA_RACE_ENTRY            "rt_tma_race_control"

/* "correct", "broken", "generic_mbar", "generic_sync"; NULL for a mode out of range. */
const char *rt_tma_race_mode_name(int mode);

/* The mode named name; fails naming the modes there are. */
int rt_tma_race_mode_parse(const char *name, rt_tma_race_mode *mode, rt_err *err);

/* Compiles the mode for compute capability cc_major.cc_minor (no disk cache: a control experiment
 * should compile what it runs). The caller frees img with rt_cuda_image_free. */
int rt_tma_race_compile(rt_tma_race_mode mode, int cc_major, int cc_minor, rt_cuda_image *img,
                        rt_err *err);

/* The words of nblocks x nstages stages (nblocks * nstages * RT_TMA_RACE_STAGE_WORDS of them): a
 * hash of each word's index, never 0, so a stale or unwritten word changes a sum. */
void rt_tma_race_fill(unsigned *src, size_t nwords);

/* The sum each consumer thread must write (nblocks * RT_TMA_RACE_CONSUMER_THREADS of them). */
void rt_tma_race_expect(const unsigned *src, int nblocks, int nstages, unsigned *sums);

#endif
