/* sptrsv_cuda_super: the device side of sptrsv.cuda.supernodal, the synchronisation-free
 * supernodal solve (a thread block per supernode, column-oriented, in the style of the
 * message-driven solvers), called from C through these launchers.
 *
 * The supernodal factor is kept as in sptrsv_factor.h (0-based): supernode s owns the columns
 * [first[s], first[s+1]), its rows are rows[rowstart[s] .. rowstart[s+1]) (its own columns first)
 * and its values the column-major block at val + valstart[s], leading dimension ld[s]. B, X and the
 * partial sums lsum are row-major n x nrhs.
 *
 * A block takes the next supernode of `order` (a topological order of the supernodal DAG) from
 * *ticket, waits until pending[s] (the number of supernodes whose updates to s's rows are still
 * missing) reaches zero, solves its dense diagonal triangle against B - lsum (in shared memory when
 * it fits), adds L(rows below, columns of s) X_s into lsum with atomics, and decrements pending of
 * every successor. Only the partial sums travel between blocks: no block reads another's X.
 * Tickets go only to running blocks and every predecessor of s has an earlier ticket, so no
 * schedule deadlocks. */
#ifndef SPTRSV_CUDA_SUPER_H
#define SPTRSV_CUDA_SUPER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The factor's supernodal arrays on the device (see above); succ/succ_ptr the successors of every
 * supernode (sptrsv_dag.h), as 32-bit indices. */
typedef struct sptrsv_super_dev {
    int32_t nsuper;
    const int32_t *first;    /* nsuper + 1 */
    const int64_t *rowstart; /* nsuper + 1 */
    const int32_t *rows;
    const int64_t *valstart; /* nsuper */
    const int32_t *ld;       /* nsuper */
    const double *val;
    const int32_t *succ_ptr; /* nsuper + 1 */
    const int32_t *succ;
    const int32_t *order; /* nsuper: topological order */
} sptrsv_super_dev;

/* Solves L X = B in one launch of nsuper blocks of threads_per_block threads. lsum (n x nrhs) and
 * *ticket must be zero and pending a copy of the predecessor counts (sptrsv_cuda_super_reset).
 * shared_doubles: doubles of dynamic shared memory per block for the diagonal solve (a supernode
 * with ncols x nrhs above it works in X in global memory instead). backoff_ns: the longest sleep
 * (__nanosleep) between two polls of a pending counter (0: spin). */
int sptrsv_cuda_super_launch(void *stream, int threads_per_block, int shared_doubles,
                             int backoff_ns, const sptrsv_super_dev *f, const double *b, double *x,
                             double *lsum, int32_t nrhs, int32_t *pending, uint32_t *ticket);

/* The distributed solve's two steps, each one block of threads_per_block threads on the stream:
 * the diagonal solve of supernode s, X_s = L_ss^-1 (B_s - lsum_s) (shared_doubles as above); and
 * one DAG edge's update, lsum[row] += L(row, columns of s) X_s for the rows at positions
 * [p0, p1) of s's row list (p0 >= ncols(s)), X_s read from X. */
int sptrsv_cuda_super_diag_launch(void *stream, int threads_per_block, int shared_doubles,
                                  const sptrsv_super_dev *f, int32_t s, const double *b, double *x,
                                  const double *lsum, int32_t nrhs);
int sptrsv_cuda_super_update_launch(void *stream, int threads_per_block, const sptrsv_super_dev *f,
                                    int32_t s, int32_t p0, int32_t p1, const double *x,
                                    double *lsum, int32_t nrhs);

/* Zeroes lsum (n x nrhs) and *ticket and copies pending_init into pending (asynchronous). */
int sptrsv_cuda_super_reset(void *stream, double *lsum, int64_t n_times_nrhs, int32_t *pending,
                            const int32_t *pending_init, int32_t nsuper, uint32_t *ticket);

#ifdef __cplusplus
}
#endif

#endif
