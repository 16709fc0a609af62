/* rt_cuda_ctx: the CUDA plugin's state and the services every GPU kernel file uses.
 *
 * One context per rank: the selected device and its facts (rt_device_info), one stream, a pair of
 * events that time launches, a 2 x L2 buffer whose rewrite evicts the L2 for cold-mode runs,
 * device allocation that turns "out of memory" into an infeasible point, and the run-time
 * compilation service (NVRTC + disk cache + modules loaded once per process).
 *
 * Every call checks its CUDA/driver/NVRTC return code and reports failures naming the call and
 * `what` (kernel and point parameters), so a failure on a GPU node reads like
 * "spmm.cuda.tiled (block_size=1024 ...): cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: ...".
 * Functions return 0, -1 (err filled) or, where stated, RT_INFEASIBLE (err holds the reason).
 *
 * The roofline engineer's probe and CUPTI counters (roofline/cuda/) build on the accessors below
 * (ordinal, stream, context). */
#ifndef RT_CUDA_CTX_H
#define RT_CUDA_CTX_H

#include <stddef.h>

#include "rt_cuda_ahead.h"
#include "rt_device.h"
#include "rt_error.h"

typedef struct rt_cuda_ctx rt_cuda_ctx;

/* One compiled kernel variant, loaded in the context. */
typedef struct rt_cuda_variant {
    void *function;  /* CUfunction */
    int registers;   /* per thread */
    int local_bytes; /* spill/stack per thread; > 0 means local memory is used */
    int static_shared_bytes;
    int max_threads_per_block; /* for this variant given its registers */
    int from_cache;            /* 1: no NVRTC run this time (disk cache or already loaded) */
    double compile_s;          /* NVRTC time when compiled now, else 0 */
    /* The compile-ahead pool (rt_cuda_ctx_set_compile_ahead) compiled it before this point asked:
     * compiled_ahead 1, ahead_s its NVRTC time on a pool thread (off the measuring thread), and
     * ahead_wait_s how long this point waited for that compile to end (0 when it was done). */
    int compiled_ahead;
    double ahead_s, ahead_wait_s;
} rt_cuda_variant;

/* Selects device `ordinal`, retains its primary context, creates the stream, the timing events and
 * the L2 flush buffer, and fills the device facts. cache_dir NULL or "" disables the disk cache. */
int rt_cuda_ctx_create(int ordinal, const char *cache_dir, rt_cuda_ctx **out, rt_err *err);
/* Releases everything the context owns (memos first, then modules, buffers, stream, context). */
void rt_cuda_ctx_destroy(rt_cuda_ctx *ctx);

const rt_device_info *rt_cuda_ctx_device(const rt_cuda_ctx *ctx);
int rt_cuda_ctx_ordinal(const rt_cuda_ctx *ctx);
void *rt_cuda_ctx_stream(const rt_cuda_ctx *ctx);     /* cudaStream_t (same object as CUstream) */
void *rt_cuda_ctx_cu_context(const rt_cuda_ctx *ctx); /* CUcontext: the device's primary context */
const char *rt_cuda_ctx_cache_dir(const rt_cuda_ctx *ctx); /* "" when the cache is off */
/* Makes the context current on the calling thread (the runner may call hooks from any thread). */
int rt_cuda_ctx_make_current(rt_cuda_ctx *ctx, rt_err *err);
/* A compile longer than this is abandoned (rt_cuda_compile's time limit) and rt_cuda_get_variant
 * returns RT_TIMED_OUT; 0 (the default) = no limit. */
void rt_cuda_ctx_set_compile_limit(rt_cuda_ctx *ctx, double seconds);
/* The device's energy counter in joules (NVML, rt_cuda_nvml.h, opened on the first call):
 * 0, or -1 with why (no NVML on the host, a GPU without the counter). */
int rt_cuda_ctx_energy(rt_cuda_ctx *ctx, double *joules, char *why, size_t whylen);
/* A kernel hung or left a sticky error (illegal address, ...): nothing that waits for the device
 * can run again in this process. Every later call that makes the context current fails with why,
 * rt_cuda_free frees nothing, and destroy releases only host memory: the process's exit ends the
 * context, and a hung kernel with it. */
void rt_cuda_ctx_abandon(rt_cuda_ctx *ctx, const char *why);
int rt_cuda_ctx_abandoned(const rt_cuda_ctx *ctx);
/* NVRTC compiles and cache hits (disk or already loaded) since creation. */
void rt_cuda_ctx_stats(const rt_cuda_ctx *ctx, int *compiles, int *cache_hits);

/* The compile-ahead pool (rt_cuda_ahead.h, measure.compile_ahead): threads > 0 starts a pool of
 * that many CPU threads that compile variants into the disk cache while the GPU measures; 0 ends
 * it (a pool already there is replaced). Needs the variant cache: without one it fails (-1, err
 * says why) and leaves no pool. */
int rt_cuda_ctx_set_compile_ahead(rt_cuda_ctx *ctx, int threads, rt_err *err);
/* Queues the compile of a variant (as rt_cuda_get_variant would compile it: the same request, so
 * the same cache key) on the pool; rt_cuda_get_variant of it later claims it. 0 when queued or
 * when there is nothing to do (no pool; the variant is loaded in this process already, or its
 * file is in the variant cache), -1 with why otherwise (nothing queued). */
int rt_cuda_ctx_compile_ahead(rt_cuda_ctx *ctx, const char *source_name, const char *source,
                              const char *const *defines, int n_defines, const char *entry,
                              rt_err *err);
/* The pool's counts (all 0 without a pool). */
void rt_cuda_ctx_ahead_stats(const rt_cuda_ctx *ctx, rt_cuda_ahead_stats *out);

/* Compiles (or finds in the disk cache, or in this process) the variant of `source` with the given
 * "NAME=VALUE" defines and returns its function and resource facts. source_name names the source
 * in errors and keys; defines may come in any order. Returns 0, -1, or RT_TIMED_OUT when the
 * compile ran past the context's compile limit (err says so). */
int rt_cuda_get_variant(rt_cuda_ctx *ctx, const char *source_name, const char *source,
                        const char *const *defines, int n_defines, const char *entry,
                        rt_cuda_variant *out, rt_err *err);

/* The text of an embedded kernel source (kernels/spmm/cuda/src/<name>), or NULL. */
const char *rt_cuda_source(const char *name);

typedef struct rt_cuda_launch_cfg {
    unsigned grid[3];
    unsigned block[3];
    size_t dynamic_shared_bytes;
    /* Optional: zero_bytes bytes at zero_first are set to 0 on the stream right before the
     * kernel, inside the timed interval (a kernel that accumulates into its output). */
    void *zero_first;
    size_t zero_bytes;
} rt_cuda_launch_cfg;

/* Launches v on the context's stream and waits for it. With seconds non-NULL the launch is timed
 * with events (kernel time only: the shared-memory attribute is set before the first event). When
 * the dynamic shared memory exceeds 48 KiB the function's opt-in limit is raised first. A grid with
 * a zero dimension launches nothing (empty problem) and times 0 work. cfg->zero_bytes > 0 clears
 * cfg->zero_first just before the kernel, and the time includes it. */
int rt_cuda_launch(rt_cuda_ctx *ctx, const rt_cuda_variant *v, const rt_cuda_launch_cfg *cfg,
                   void **args, double *seconds, const char *what, rt_err *err);

/* Theoretical occupancy: resident warps per SM over the SM's maximum, for this block size and
 * dynamic shared memory (cuOccupancyMaxActiveBlocksPerMultiprocessor). */
int rt_cuda_occupancy(rt_cuda_ctx *ctx, const rt_cuda_variant *v, int block_threads,
                      size_t dynamic_shared_bytes, double *occupancy, rt_err *err);

/* Events around work the caller enqueues itself on the context's stream (library calls). */
int rt_cuda_timer_start(rt_cuda_ctx *ctx, const char *what, rt_err *err);
int rt_cuda_timer_stop(rt_cuda_ctx *ctx, double *seconds, const char *what, rt_err *err);

/* Device memory. rt_cuda_alloc returns RT_INFEASIBLE with "GPU out of memory allocating N bytes
 * for <what>" when the device is full (a property of the point, not a failure); -1 otherwise.
 * A zero-byte request still returns a valid (small) allocation, so kernels never see NULL. */
int rt_cuda_alloc(rt_cuda_ctx *ctx, void **ptr, size_t bytes, const char *what, rt_err *err);
void rt_cuda_free(rt_cuda_ctx *ctx, void *ptr); /* NULL is fine */
int rt_cuda_upload(rt_cuda_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what,
                   rt_err *err);
int rt_cuda_download(rt_cuda_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what,
                     rt_err *err);
/* Sets every byte to `byte` (0xFF makes float and double NaN) and waits. */
int rt_cuda_fill(rt_cuda_ctx *ctx, void *ptr, int byte, size_t bytes, const char *what,
                 rt_err *err);
/* Rewrites a buffer twice the L2 size and waits, so the next run starts with a cold L2. */
int rt_cuda_flush_l2(rt_cuda_ctx *ctx, rt_err *err);
int rt_cuda_sync(rt_cuda_ctx *ctx, const char *what, rt_err *err);

/* Per-context memos for kernel files (a library handle, a plan summary), found by a key the
 * family owns ("spmm.cusparse"; the context knows no family): data lives until replaced under the
 * same key or until the context is destroyed, then `release` frees it. rt_cuda_ctx_memo returns
 * NULL for a key never set. rt_cuda_ctx_set_memo fails (-1, err filled, data NOT taken: the
 * caller still owns it) when the key is empty or longer than RT_CUDA_MEMO_KEY_MAX - 1 bytes or
 * when all RT_CUDA_MEMO_SLOTS keys are taken by others. */
#define RT_CUDA_MEMO_SLOTS   16
#define RT_CUDA_MEMO_KEY_MAX 48
void *rt_cuda_ctx_memo(const rt_cuda_ctx *ctx, const char *key);
int rt_cuda_ctx_set_memo(rt_cuda_ctx *ctx, const char *key, void *data, void (*release)(void *),
                         rt_err *err);

#endif
