/* sp2_queue: remote accumulation queues on MPI atomics (Brock, Buluc, Yelick, sections 3.1.2
 * and 5.3: a process that computed a partial result for a tile it does not own pushes it to the
 * owner's queue; the owner pops and accumulates whenever it looks).
 *
 * Every rank owns one queue: a ring of `slots` fixed-size slots in an RMA window, with four 64-bit
 * counters (reservations, consumed, announced, finished) and one sequence flag per slot.
 *
 *   push (writer W to owner O):
 *     s = fetch_and_add(O.reservations, 1)        -- reserves slot s (mod slots)
 *     wait until s < O.consumed + slots           -- the slot is free (W drains its own queue
 *                                                    meanwhile, so no cycle of full queues stalls)
 *     put the message into slot s; flush          -- the payload is at O
 *     atomic store O.flag[s mod slots] = s + 1    -- publishes it (a sequence number, never reused
 *                                                    within a run, so a stale flag cannot match)
 *   pop (owner, in slot order): when flag[c mod slots] == c + 1 for the next c, sync the window,
 *     hand the message to the accumulation callback, then store consumed = c + 1 (which frees the
 *     slot for a writer waiting on it).
 *   end of a run: every writer adds the number of messages it pushed to each owner to that owner's
 *     `announced` counter, then increments its `finished` counter; an owner is done when every
 *     other rank has finished and it consumed as many messages as were announced.
 *
 * The slot at `consumed` always has room, so its writer never waits: the ring cannot deadlock.
 * Every counter and flag is touched only with 64-bit MPI atomics; payloads travel with MPI_Put.
 * Pushing to oneself calls the callback directly (nothing moves). Between runs, sp2_queue_reset
 * clears the local queue; the caller separates reset and the first push with a barrier. */
#ifndef SP2_QUEUE_H
#define SP2_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_comm.h"
#include "rt_comm_rma.h"
#include "rt_error.h"

/* Accumulates one message (its payload bytes). */
typedef int (*sp2_queue_fn)(void *ctx, const void *msg, size_t bytes, rt_err *err);

typedef struct sp2_queue sp2_queue;

typedef struct sp2_queue_stats {
    int64_t pushed;     /* messages sent to other ranks */
    int64_t popped;     /* messages received and accumulated */
    int64_t self;       /* messages accumulated in place (to this rank) */
    int64_t full_waits; /* pushes that found the owner's queue full */
    double handler_s;   /* time inside the accumulation callback */
} sp2_queue_stats;

/* Collective over world. payload_bytes: the largest message; slots >= 1. fn/ctx: the callback
 * that accumulates popped messages. */
int sp2_queue_create(rt_comm *comm, size_t payload_bytes, int64_t slots, sp2_queue_fn fn, void *ctx,
                     sp2_queue **out, rt_err *err);
void sp2_queue_free(sp2_queue *q); /* collective */

/* Clears this rank's queue and counters for a new run (local; barrier before the first push). */
int sp2_queue_reset(sp2_queue *q, rt_err *err);

/* A buffer of payload_bytes where the caller builds the next message (no extra copy). */
void *sp2_queue_buffer(sp2_queue *q);
size_t sp2_queue_capacity(const sp2_queue *q);
/* Sends the first `bytes` of sp2_queue_buffer to owner's queue (or accumulates it here when owner
 * is this rank). */
int sp2_queue_push(sp2_queue *q, int owner, size_t bytes, rt_err *err);
/* Accumulates every message that has arrived; *handled (may be NULL) counts them. */
int sp2_queue_poll(sp2_queue *q, int64_t *handled, rt_err *err);
/* Announces to every owner what this rank pushed in this run, then that it has finished. */
int sp2_queue_finish(sp2_queue *q, rt_err *err);
/* Accumulates until every rank has finished and every announced message was popped. *idle_s
 * (may be NULL) receives the time spent waiting with nothing to accumulate. */
int sp2_queue_drain_all(sp2_queue *q, double *idle_s, rt_err *err);

void sp2_queue_stats_read(const sp2_queue *q, sp2_queue_stats *out);
rt_rma_win *sp2_queue_window(sp2_queue *q);

#endif
