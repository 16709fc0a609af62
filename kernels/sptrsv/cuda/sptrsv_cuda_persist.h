/* sptrsv_cuda_persist: the device side of sptrsv.cuda.persistent, one persistent kernel per GPU
 * that runs this GPU's part of a plan (sptrsv_pplan.h), called from C through these launchers.
 *
 * Every block loops: take the next ticket of this part, wait (thread 0 polls the part's own
 * memory) until the task's x flags and counters say its inputs are here, run its steps, signal.
 * Other GPUs write into this GPU's memory through CUDA IPC mappings (x, reduction slots) and
 * raise its flags and counters with system-scope atomics after a __threadfence_system(); no
 * host takes part between the launch and the end. Flags and counters only grow: execution e
 * waits for e (flags) and e x target (counters). A wait longer than timeout_ns records the task,
 * the wait and the value seen in err[0..2] and ends every block of this GPU.
 *
 * Layouts (0-based, row-major n x nrhs vectors): the factor as in sptrsv_cuda_super.h; the plan
 * arrays as in sptrsv_pplan.h, 32-bit where they fit; inv holds, per owned supernode s, the
 * ncols x ncols matrix M (column-major) with x_s = M r_s: inv(L_ss) forward, inv(L_ss)^T
 * backward (so both directions read it the same way). */
#ifndef SPTRSV_CUDA_PERSIST_H
#define SPTRSV_CUDA_PERSIST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPTRSV_PERSIST_MAX_PARTS 16

/* err[0]: what failed (0 none; 1 a wait timed out; 2 a step found bad plan data); err[1]: the
 * task; err[2]: the wait code (x of s: s; counter of s: -1 - s); err[3]: the value seen. */
enum { SPTRSV_PERSIST_ERR_WORDS = 4 };

typedef struct sptrsv_persist_dev {
    /* the factor */
    const int32_t *first;    /* nsuper + 1 */
    const int64_t *rowstart; /* nsuper + 1 */
    const int32_t *rows;
    const int64_t *valstart;
    const int32_t *ld;
    const double *val;
    /* the plan */
    int32_t ntickets;
    const int32_t *ticket;        /* this part's tasks, in order */
    const int32_t *task_step_ptr; /* ntasks + 1 */
    const int32_t *task_step;     /* codes */
    const int32_t *task_wait_ptr; /* ntasks + 1 */
    const int32_t *task_wait;     /* codes */
    const int32_t *ch_super, *ch_p0, *ch_p1;
    const int32_t *ch_out_ptr, *ch_out;
    const int32_t *home;     /* nsuper */
    const int64_t *target;   /* nsuper: this part's row */
    const int32_t *xdst_ptr; /* nsuper + 1 */
    const int32_t *xdst;     /* parts */
    const int32_t *recv_ptr; /* nsuper + 1 */
    const int64_t *recv_off; /* doubles into recv */
    const int64_t *red_off;  /* nsuper: this part's slot at the owner, -1 none */
    const int64_t *inv_off;  /* nsuper: -1 for supernodes owned elsewhere */
    const double *inv;
    /* this part's state */
    const double *b;
    double *x, *lsum, *recv;
    unsigned long long *xflag, *count; /* nsuper each */
    unsigned int *ticket_ctr;
    long long *err;   /* SPTRSV_PERSIST_ERR_WORDS */
    long long *trace; /* NULL, or 4 per ticket: taken, inputs in, done (globaltimer ns), block */
    /* every part's state through this process's mappings (mine included) */
    double *peer_x[SPTRSV_PERSIST_MAX_PARTS], *peer_recv[SPTRSV_PERSIST_MAX_PARTS];
    unsigned long long *peer_xflag[SPTRSV_PERSIST_MAX_PARTS];
    unsigned long long *peer_count[SPTRSV_PERSIST_MAX_PARTS];
    int32_t part, nrhs, backward;
    int32_t nowait; /* calibration: run every step at once, no waits, no signals */
    unsigned long long epoch;
    long long timeout_ns;
} sptrsv_persist_dev;

/* One execution: the persistent kernel on `blocks` blocks of threads_per_block threads (every
 * block loops over tickets, so any count is correct; at most the resident count is useful).
 * shared_doubles: dynamic shared memory for a supernode's right-hand side and x (ncols x nrhs).
 * *ticket_ctr and err must be zero before it (sptrsv_cuda_persist_reset). */
int sptrsv_cuda_persist_launch(void *stream, int blocks, int threads_per_block, int shared_doubles,
                               const sptrsv_persist_dev *p);

/* Clears the ticket counter and the error words on the stream. */
int sptrsv_cuda_persist_reset(void *stream, unsigned int *ticket_ctr, long long *err);

/* Resident blocks per SM of the kernel at this block size and shared memory (occupancy API). */
int sptrsv_cuda_persist_occupancy(int threads_per_block, int shared_doubles, int *blocks_per_sm);

/* The link probe with the solve's own signalling: `rounds` ping-pongs of `doubles` values
 * between this GPU and a peer: the initiator stores into the peer's buffer, fences at system
 * scope and raises the peer's flag; the responder waits for it and answers the same way. mine
 * and peer: this GPU's flag and buffer, and the peer's through its mapping. One block of 256
 * threads; the caller times it. */
int sptrsv_cuda_persist_pingpong(void *stream, int initiator, int rounds, int doubles,
                                 unsigned long long base, double *peer_buf,
                                 unsigned long long *peer_flag, const double *my_buf,
                                 unsigned long long *my_flag, long long timeout_ns, long long *err);

#ifdef __cplusplus
}
#endif

#endif
