/* eigen_mem: the device memory manager of the out-of-core solvers (DeepSparseGPU's, in spirit).
 *
 * One pool of `budget` bytes on the device; every tile (a sparse block, a row tile of a block
 * vector, a partial Gram buffer, a small coefficient matrix) is an object of the tile map: its host
 * copy, size, where it sits in the pool (or nowhere), whether the host copy is current, and how
 * many running operations pin it. Rules:
 *   - acquire(READ) copies a tile in when it is not resident; acquire(WRITE) only reserves space
 *     (the output is produced on the device, no copy in); RW does both. Acquired tiles are pinned.
 *   - when the pool has no hole large enough, unpinned tiles are evicted first-in first-out (by
 *     load time); a dirty tile (device copy newer) is written back first. A pinned tile (an operand
 *     of the running task) is never evicted; if the space still cannot be found the point is
 *     infeasible (RT_INFEASIBLE) with the reason.
 *   - host_read makes the host copy current (write-back of a dirty tile); host_wrote marks the
 *     device copy stale (it is dropped).
 * Every transfer is counted in bytes, exactly. Besides, the manager keeps the compulsory traffic:
 * what an unbounded device that never evicts would move (each tile in once when the device first
 * reads it, and again only after the host rewrote it; each device result out once when the host
 * reads it) — the lower bound of any schedule of the same tasks. */
#ifndef EIGEN_MEM_H
#define EIGEN_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "eigen_dev.h"
#include "eigen_pool.h"
#include "rt_error.h"

typedef enum eg_mode { EG_READ = 1, EG_WRITE = 2, EG_RW = 3 } eg_mode;

typedef struct eg_obj {
    void *host;
    size_t bytes;
    const char *what; /* kind of tile, for messages ("X tile", "A block") */
    int64_t tag;      /* tile index, for messages */
    int resident;
    size_t off;     /* in the pool, when resident */
    int host_valid; /* 0: the device copy is newer (dirty) */
    int pins;
    uint64_t loaded;                   /* FIFO key: when it became resident */
    int inf_dev_valid, inf_host_valid; /* the unbounded device of the compulsory count */
} eg_obj;

typedef struct eg_mem_stats {
    double h2d_bytes, d2h_bytes;
    int64_t h2d_copies, d2h_copies, evictions;
    int64_t syncs;      /* times the host waited for the device (eg_mem_sync) */
    double sync_wait_s; /* wall time of those waits */
    double
        host_task_s; /* wall time of the host tasks' functions (reductions' users, small solves) */
    double compulsory_h2d, compulsory_d2h;
    size_t resident_bytes, peak_resident_bytes; /* rounded pool bytes */
} eg_mem_stats;

typedef struct eg_mem {
    eg_dev dev;
    size_t budget;
    void *base;
    eg_pool pool;
    eg_obj *obj;
    int n_obj, cap_obj;
    uint64_t clock;
    eg_mem_stats st;
    /* Optional observer of evictions (tests check that no operand of the running task goes). */
    void (*on_evict)(void *user, int id);
    void *on_evict_user;
} eg_mem;

/* An empty tile map on dev; tiles are added, then eg_mem_open creates the pool. */
void eg_mem_init(eg_mem *m, eg_dev dev);
/* Creates the pool of `budget` bytes (0: room for every tile at once, an in-core device). */
int eg_mem_open(eg_mem *m, size_t budget, rt_err *err);
/* Pool bytes of every registered tile (the in-core footprint). */
size_t eg_mem_total_bytes(const eg_mem *m);
void eg_mem_destroy(eg_mem *m);
/* Registers a tile whose current copy is on the host; returns its id (>= 0) or -1. */
int eg_mem_add(eg_mem *m, void *host, size_t bytes, const char *what, int64_t tag, rt_err *err);
/* Makes tile id resident for an operation in `mode` and pins it; *dptr is its device address.
 * 0, RT_INFEASIBLE (err says which tile did not fit and why) or -1. */
int eg_mem_acquire(eg_mem *m, int id, eg_mode mode, void **dptr, rt_err *err);
void eg_mem_release(eg_mem *m, int id);
int eg_mem_host_read(eg_mem *m, int id, rt_err *err);
void eg_mem_host_wrote(eg_mem *m, int id);
/* Waits until the device has finished everything enqueued (copies included: a copy to the host
 * is only known complete after this), counted in st.syncs. */
int eg_mem_sync(eg_mem *m, rt_err *err);
/* Writes back every dirty tile; with drop, frees every unpinned tile too. */
int eg_mem_flush(eg_mem *m, int drop, rt_err *err);
/* Forgets every device copy without write-back (the host copies are taken as current) and clears
 * the statistics: the state at the start of a run. */
void eg_mem_reset(eg_mem *m);

#endif
