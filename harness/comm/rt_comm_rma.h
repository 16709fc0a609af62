/* rt_comm_rma: the one-sided layer of rooftune over MPI-3 RMA, for the distributed kernels that
 * read and update remote memory without the owner taking part (stationary A/B/C tiles fetched with
 * gets, remote accumulation queues, fetch-and-add work grids).
 *
 * A window is memory that every rank of one level's communicator exposes (MPI_Win_allocate, so
 * the MPI library may place it where the network can reach it directly). It lives in one passive
 * target epoch from creation to destruction (MPI_Win_lock_all with MPI_MODE_NOCHECK): any rank may
 * access any other rank's memory at any time, with no matching call on the target. Consequences
 * the callers must respect (MPI-3 section 11.5 and 11.7):
 *   - gets complete at rt_rma_wait/rt_rma_test (or on return of the blocking rt_rma_get);
 *   - puts and accumulates complete at the target at the next rt_rma_flush(target) (or
 *     rt_rma_flush_all); an atomic (fetch-and-add, atomic load/store) is complete on return;
 *   - a rank reading its own window memory with loads after remote puts, or writing it with stores
 *     before remote gets, calls rt_rma_sync between the two, plus whatever synchronisation
 *     (barrier, flag) orders the two ranks;
 *   - concurrent updates of one location are only defined between atomics of the same type: every
 *     counter or flag that several ranks touch is read and written with the 64-bit atomics below.
 *
 * Targets are ranks of the window's group at the level it was created on (its rank in that level's
 * communicator); world ranks are found with rt_rma_world_rank. Every operation checks its target
 * and its byte range against the target's window size (sizes are exchanged at creation) and fails
 * with a message naming the window, the target and the range, instead of corrupting memory or
 * aborting in MPI.
 *
 * Traffic. Every byte an operation moves between two ranks is added to the rt_comm per-tier
 * counters of the origin rank (rt_comm_count_to, tier between the two world ranks), one message
 * per MPI operation: a get counts the bytes fetched, a put or accumulate the bytes sent, a
 * fetching atomic 16 bytes (operand out, value back), a non-fetching one 8. Operations whose
 * target is the origin itself move nothing over any link: they are not added to the tiers (so
 * polling one's own counters does not inflate the socket tier) but are counted in the window's
 * own statistics as self traffic. Each window also keeps its own per-tier statistics, so a kernel
 * can tell its windows' traffic apart.
 *
 * GPU memory is not exposed directly: GPU tiles are to be staged through host buffers (not yet).
 * Not thread-safe: one thread per rank drives a window. */
#ifndef RT_COMM_RMA_H
#define RT_COMM_RMA_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_error.h"

typedef struct rt_rma_win rt_rma_win;

/* Pieces of one request: MPI counts are int, so larger transfers are split in pieces of at most
 * RT_RMA_PIECE_BYTES; a request holds at most RT_RMA_REQ_PIECES of them (16 GiB per request). */
#define RT_RMA_PIECE_BYTES ((size_t)1 << 30)
#define RT_RMA_REQ_PIECES  16

/* A non-blocking get in flight. Zero-initialise it (or let rt_rma_rget fill it); a request with
 * no pieces is complete. */
typedef struct rt_rma_req {
    int n;
    MPI_Request req[RT_RMA_REQ_PIECES];
} rt_rma_req;

/* Element types of accumulate. */
typedef enum rt_rma_type { RT_RMA_I64 = 0, RT_RMA_F32 = 1, RT_RMA_F64 = 2 } rt_rma_type;

/* What the operations of one window moved, as counted by this rank (the origin). */
typedef struct rt_rma_stats {
    int64_t bytes[RT_TIER_COUNT]; /* to and from other ranks, per tier */
    int64_t ops[RT_TIER_COUNT];
    int64_t self_bytes; /* operations on this rank's own memory */
    int64_t self_ops;
} rt_rma_stats;

/* Creates a window shared by the ranks of this rank's group at `level` (world: every rank; node:
 * the ranks of my node; ...), addressed by their rank in that group. Collective over WORLD: every
 * rank calls it at the same time with the same level (each group gets its own window), with its own
 * local_bytes, which may differ between ranks and may be 0.
 * Why world even for a narrower level: Open MPI names the shared-memory segment behind a window
 * after its communicator's context id, and disjoint groups of one level on one host (emulated
 * nodes, the sockets of a node) share that id, so windows created over the level's own
 * communicator collide. The MPI window therefore spans world; range checks keep every rank inside
 * its own group's memory.
 * The memory is zeroed, and the zeroes are visible to every rank on return. `name` (copied) names
 * the window in messages, e.g. "spmm2d A tiles". Fails on every rank when one rank fails (memory,
 * MPI): the failing rank is named in the message. */
int rt_rma_win_create(rt_comm *comm, rt_comm_level level, size_t local_bytes, const char *name,
                      rt_rma_win **out, rt_err *err);
/* Ends the epoch and frees the window. Collective over world; NULL is fine. */
void rt_rma_win_free(rt_rma_win *w);

void *rt_rma_local(rt_rma_win *w); /* this rank's memory (NULL when 0 bytes) */
size_t rt_rma_local_bytes(const rt_rma_win *w);
size_t rt_rma_bytes_of(const rt_rma_win *w, int target); /* 0 for a target out of range */
int rt_rma_rank(const rt_rma_win *w);                    /* rank in the window's communicator */
int rt_rma_size(const rt_rma_win *w);
int rt_rma_world_rank(const rt_rma_win *w, int target); /* -1 for a target out of range */
const char *rt_rma_name(const rt_rma_win *w);
rt_comm *rt_rma_comm(const rt_rma_win *w);

/* Non-blocking get of `bytes` from target's memory at `offset` into dst. Complete at
 * rt_rma_wait / rt_rma_test; dst must not be touched before. A zero-byte get is complete at once.
 */
int rt_rma_rget(rt_rma_win *w, void *dst, size_t bytes, int target, size_t offset, rt_rma_req *req,
                rt_err *err);
/* Blocking get (rt_rma_rget + rt_rma_wait). */
int rt_rma_get(rt_rma_win *w, void *dst, size_t bytes, int target, size_t offset, rt_err *err);
int rt_rma_wait(rt_rma_req *req, rt_err *err);
/* *done = 1 when every piece has completed (the request is then empty). */
int rt_rma_test(rt_rma_req *req, int *done, rt_err *err);

/* Put `bytes` from src into target's memory at `offset`. src may be reused on return (the data
 * is copied out, MPI_Put plus a local flush); the data is at the target after rt_rma_flush. */
int rt_rma_put(rt_rma_win *w, const void *src, size_t bytes, int target, size_t offset,
               rt_err *err);
/* Element-wise atomic sum of `count` values of `type` from src into target's memory at `offset`
 * (MPI_Accumulate with MPI_SUM). Complete at the target after rt_rma_flush. */
int rt_rma_accumulate(rt_rma_win *w, const void *src, size_t count, rt_rma_type type, int target,
                      size_t offset, rt_err *err);
/* Completes, at the target, every put and accumulate this rank issued to it (MPI_Win_flush). */
int rt_rma_flush(rt_rma_win *w, int target, rt_err *err);
int rt_rma_flush_all(rt_rma_win *w, rt_err *err);

/* 64-bit atomics on an 8-byte-aligned location; complete on return.
 * fetch_add: *old receives the value before adding `add` (MPI_Fetch_and_op, MPI_SUM).
 * load: the current value (MPI_NO_OP). store: replaces the value (MPI_REPLACE). */
int rt_rma_fetch_add(rt_rma_win *w, int target, size_t offset, int64_t add, int64_t *old,
                     rt_err *err);
int rt_rma_atomic_load(rt_rma_win *w, int target, size_t offset, int64_t *value, rt_err *err);
int rt_rma_atomic_store(rt_rma_win *w, int target, size_t offset, int64_t value, rt_err *err);

/* Synchronises this rank's view of its own window memory with the public copy (MPI_Win_sync):
 * after remote puts have completed, before reading them with loads; after local stores, before
 * other ranks read them. */
int rt_rma_sync(rt_rma_win *w, rt_err *err);

/* The window's own traffic statistics (this rank's operations) since creation or the last reset. */
void rt_rma_stats_read(const rt_rma_win *w, rt_rma_stats *out);
void rt_rma_stats_reset(rt_rma_win *w);

#endif
