/* rt_cuda_ahead: compiles kernel variants ahead of their points, on CPU threads, into the
 * variant cache.
 *
 * NVRTC on the measuring thread stalls the GPU between points. A process that knows the variants
 * of the points it measures next submits their compile requests here; a small pool of threads
 * compiles them with rt_cuda_compile into the disk cache while the GPU measures, so that when a
 * point's turn comes its own rt_cuda_compile is a cache hit. The cache is content-addressed (the
 * key covers source, defines, entry, architecture and NVRTC version), so an image compiled ahead
 * is byte for byte the one the point would have compiled.
 *
 * Nothing here can fail a point: a compile that fails or times out ahead is only recorded (the
 * point then compiles on its own path and reports its error as it always did), and a request that
 * cannot be queued is refused at submission with a message the caller may log and ignore.
 *
 * Needs NVRTC only (no driver, no context): tested on machines without a GPU. */
#ifndef RT_CUDA_AHEAD_H
#define RT_CUDA_AHEAD_H

#include <stddef.h>

#include "rt_cuda_nvrtc.h"
#include "rt_error.h"

typedef struct rt_cuda_ahead rt_cuda_ahead;

typedef struct rt_cuda_ahead_stats {
    int submitted;    /* distinct variants queued (a variant submitted again counts once) */
    int compiled;     /* compiled by NVRTC on a pool thread and written to the cache */
    int cached;       /* already in the cache when their turn came */
    int failed;       /* compile failed or ran past its time limit: recorded, never fatal */
    int dropped;      /* taken back by the measuring thread before their turn, or at shutdown */
    int queued;       /* waiting for a thread */
    int running;      /* being compiled now */
    double compile_s; /* NVRTC wall time of the pool's compiles, summed */
} rt_cuda_ahead_stats;

/* Starts a pool of `threads` compile threads (1 to 64). */
int rt_cuda_ahead_create(int threads, rt_cuda_ahead **out, rt_err *err);

/* Queues a copy of req. It needs a cache directory (the cache is where the image goes) and is
 * compiled without skip_cache_read; its time limit, if any, applies. A variant already queued,
 * compiling or done is not queued again (0). Fails (-1, err says why, nothing queued) on a request
 * rt_cuda_compile would refuse, no cache directory, a closed pool or no memory. */
int rt_cuda_ahead_submit(rt_cuda_ahead *a, const rt_cuda_compile_request *req, rt_err *err);

/* Called by the measuring thread right before it compiles req itself. A queued compile of the
 * same variant is dropped (the caller compiles it now, exactly as without the pool); a running one
 * is waited for, so the caller's compile finds its image in the cache instead of compiling it a
 * second time. Returns 1 when the pool compiled (or found) this variant, *ahead_s then its NVRTC
 * time on the pool thread; 0 otherwise (unknown variant, dropped, failed ahead; *ahead_s = 0).
 * *waited_s: how long the caller waited here. a may be NULL (returns 0). */
int rt_cuda_ahead_claim(rt_cuda_ahead *a, const rt_cuda_compile_request *req, double *ahead_s,
                        double *waited_s);

/* Waits until nothing is queued or compiling. */
void rt_cuda_ahead_drain(rt_cuda_ahead *a);

void rt_cuda_ahead_get_stats(rt_cuda_ahead *a, rt_cuda_ahead_stats *out);

/* The message of the i-th recorded failure (0 <= i < stats.failed), in the order they happened.
 * 0, or -1 when there is no such failure (buf then ""). */
int rt_cuda_ahead_failure(rt_cuda_ahead *a, int i, char *buf, size_t len);

/* Drops what is still queued, waits for the compiles running (each ends, or stops waiting at its
 * time limit), joins the threads and frees everything. NULL is fine. */
void rt_cuda_ahead_destroy(rt_cuda_ahead *a);

#endif
