/* rt_prefetch: a config's matrix built ahead, in a thread of the coordinator of parallel tuning's
 * gpus mode, into shared memory (rt_shared_matrix.h) that its worker processes map.
 *
 * Why the coordinator, and why ahead: in gpus mode the coordinator measures nothing and waits for
 * results most of the time, while before this every worker built every matrix itself, all at
 * once with 1/G of the cores each, with the GPUs idle (on 2 x H200: 1.41 s per process for the
 * first matrix, 0.24 s for the second between the sweeps). Now the CLI starts the first matrix's
 * build as soon as the workers are spawned, so it overlaps their start (MPI, CUDA, checks), and
 * the runner starts each next matrix's when it takes the current one, so it overlaps the
 * current matrix's sweeps. The price: two matrices alive at once (the current one, mapped by
 * every process, and the next); a matrix that fails to build carries its message, which the
 * coordinator records for its sweeps as it does for a matrix it built itself. */
#ifndef RT_PREFETCH_H
#define RT_PREFETCH_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"

typedef struct rt_prefetch rt_prefetch;

/* What a build gave: the shared matrix's descriptor (-1 when it failed), its shape, when the
 * build began and ended (rt_clock_epoch) and, when it failed, why. */
typedef struct rt_prefetch_result {
    int fd;
    int64_t rows, cols, nnz;
    double begin, end;
    char failed[RT_ERR_MSG_MAX]; /* "" when built */
} rt_prefetch_result;

/* Starts building matrix `index` (mc, which must outlive the build) in a thread. Fails only when
 * no thread can be started. */
int rt_prefetch_start(const rt_matrix_cfg *mc, int index, rt_prefetch **out, rt_err *err);
/* The matrix's index in the config. */
int rt_prefetch_index(const rt_prefetch *p);
/* 1 once the build is over (built or failed): rt_prefetch_wait will not wait. */
int rt_prefetch_ready(rt_prefetch *p);
/* Waits for the build to end; the result stays the prefetch's (its fd is closed by
 * rt_prefetch_free unless the caller takes it, setting fd to -1). */
rt_prefetch_result *rt_prefetch_wait(rt_prefetch *p);
/* Waits for the build (a generator cannot be stopped halfway) and frees everything; NULL is
 * fine. */
void rt_prefetch_free(rt_prefetch *p);

#endif
