/* rt_workers: parallel tuning (search.parallel). A coordinator owns the store and the search of
 * every sweep and hands whole points to workers, each measuring on its own device with a job of
 * one rank; results come back over a wire (rt_wire.h) and are recorded by the coordinator, one
 * transaction per point as in a serial run, so the store has one writer, a point is never
 * recorded twice, and resume works as it does serially.
 *
 *   ranks  every MPI rank is a worker on its own GPU (one rank per GPU, as always); rank 0 is the
 *          coordinator and measures too. Across nodes as on one.
 *   gpus   one rooftune process starts a worker process per GPU (rt_worker_procs.h: the same
 *          command with --worker-fd/--worker-index/--worker-gpu added, its MPI environment left
 *          out so each is a job of its own, one GPU visible to it) and coordinates them over
 *          sockets; it measures nothing itself.
 *
 * Every worker walks the config as the coordinator does (the same matrices, problem points and
 * sweeps in the same order), so a point travels as its index in the sweep's space. Each worker
 * has up to two points in flight (three under a coordinator that measures too, which answers only
 * between its own points), so it starts its next point while the coordinator records the last,
 * but one only once the sweep has fewer points left than there are workers (a second point
 * queued behind a running one would wait while another worker idles: the sweep's tail); NVRTC
 * compiles of different workers overlap on the host's cores. A worker learns the sweep's best
 * time (and its abort group's, kernels[].abort_group) with each point (early abort, pruning), as
 * known when the point was handed out. A worker builds the inputs of a sweep as it enters it,
 * before its first point arrives.
 *
 * Worker processes (gpus) are jobs of their own: one whose last point of a sweep is back while
 * others still measure theirs is told the sweep is over at once (when the sweep has nothing more
 * to hand out), so it builds the next matrix and inputs during the others' tail, and the
 * coordinator keeps that sweep open and hands the next sweep's points out to the workers that
 * left it (two sweeps open at most: rt_workers_coordinate). MPI ranks keep the sweep's end
 * together: their walks meet in collectives.
 *
 * In gpus mode the coordinator builds every matrix, ahead, into shared memory (rt_prefetch.h) and
 * hands it to every worker as MATRIX (its index, shape and build time, the memory file's
 * descriptor beside it, or why it could not be built) as soon as it is built, in the middle of
 * a sweep if so: a worker keeps one that comes early until its walk reaches that matrix.
 *
 * The protocol per sweep: ASSIGN (index, best time, its bound) -> RESULT (the measured point) or
 * FAILED (a run error on the worker: the run fails) or DROPPED (a signal stopped the point before
 * it was measured); END (the sweep is over; whether the run stops) ends it on every worker. At the
 * end of the run BYE -> STATS (the worker's compiles, cache hits and phase record). */
#ifndef RT_WORKERS_H
#define RT_WORKERS_H

#include "rt_measure.h"
#include "rt_sweep.h"
#include "rt_walk.h"
#include "rt_wire.h"

struct rt_phases;

typedef struct rt_workers rt_workers;

/* The coordinator's side: workers are peers first_peer .. first_peer + n - 1 of the wire; local
 * says whether the coordinator measures points too; early_end whether a worker may leave a sweep
 * before the others (worker processes, which share no collective with the coordinator). */
int rt_workers_coordinator(rt_wire *wire, int first_peer, int n, int local, int early_end,
                           rt_workers **out, rt_err *err);
/* A worker's side: the coordinator is peer `coordinator` of the wire. */
int rt_workers_worker(rt_wire *wire, int coordinator, rt_workers **out, rt_err *err);

/* A matrix of the walk as the coordinator hands it to worker processes (gpus mode). */
typedef struct rt_workers_matrix {
    int index;                   /* the config's matrix */
    int fd;                      /* its shared memory file (rt_shared_matrix.h); -1: not built */
    int64_t rows, cols, nnz;     /* the whole matrix's */
    double load_s;               /* how long its build took */
    char failed[RT_ERR_MSG_MAX]; /* why it could not be built ("" when it was) */
    int bye;                     /* worker: the run ended before it came (no matrix) */
} rt_workers_matrix;

/* Coordinator: MATRIX to every worker (fd, when built, stays the caller's). */
int rt_workers_send_matrix(rt_workers *w, const rt_workers_matrix *mx, rt_err *err);
/* Worker: matrix `index`, kept from an earlier message or waited for; *out's fd is the
 * caller's. out->bye: the coordinator ended the run instead. */
int rt_workers_await_matrix(rt_workers *w, int index, rt_workers_matrix *out, rt_err *err);
/* Coordinator: fn(ctx) is called each time the coordination loop turns, before it waits for a
 * worker (the runner hands out a matrix built ahead as soon as it is ready). A failure fails the
 * sweep. */
void rt_workers_on_idle(rt_workers *w, int (*fn)(void *ctx, rt_err *err), void *ctx);
/* Worker: fn(ctx, mx) is called as each matrix built ahead comes, before the walk reaches it
 * (mx->fd stays the message's: fn may map it, not close it), so the runner can map the next
 * matrix and build its first sweep's inputs during the current sweep. A failure fails the sweep
 * or the wait in which it came. */
void rt_workers_on_matrix(rt_workers *w,
                          int (*fn)(void *ctx, const rt_workers_matrix *mx, rt_err *err),
                          void *ctx);

/* Coordinator: hands the sweep's points out until it has none left, records every result, and
 * ends the sweep on every worker (telling them whether the run stops). A worker's failure fails
 * the sweep with its message once the points in flight are back (the open sweep's too). sw was
 * made by rt_sweep_begin_kept and is the workers' from here: they free it when it is over.
 *
 * Worker processes (early_end): a sweep that will hand out nothing more returns while its last
 * points are still in flight, once the sweep before it has closed: it stays open, records those
 * points as they come (during the next call, rt_workers_drain or the end), and each of its
 * workers, as its last point is back, leaves it for the next sweep and takes that sweep's points
 * at once. So two sweeps are open at most, and the next sweep's first points start during this
 * one's tail. Each keeps its own records, best time, pruning and early abort state; a point
 * budget counts both sweeps' points in flight. MPI ranks keep the sweep's end together (their
 * walks meet in collectives, and the coordinator measures points itself): the call returns once
 * every point is back. */
int rt_workers_coordinate(rt_workers *w, rt_sweep_run *sw, rt_err *err);
/* Coordinator: the sweep left open, if any: its last points are recorded as they come and it
 * ends on its workers (0 when none is open; a worker's failure fails it as above). The runner
 * calls it before the run ends and before a matrix goes to workers whose walk is two matrices
 * behind. */
int rt_workers_drain(rt_workers *w, rt_err *err);
/* Coordinator: the matrix of the sweep left open (-1: none), which its workers' walks are at: a
 * worker keeps one matrix ahead of its walk (rt_workers_send_matrix), no more. */
int rt_workers_tail_matrix(const rt_workers *w);
/* Coordinator: the walk leaves a problem point: the sweep left open keeps its abort group's best
 * time as its own (rt_sweep_own_group), before the group's slot starts again. */
void rt_workers_own_groups(rt_workers *w);
/* Worker: measures the points the coordinator hands out in this sweep (space: the sweep's;
 * base: its target) until END; m's sink sends each result. Sets m->stop when the run stops. */
int rt_workers_serve(rt_workers *w, rt_measure_ctx *m, const rt_sweep *s,
                     const rt_measure_target *base, rt_run_summary *sum, rt_err *err);
/* End of the run. Coordinator: BYE to every worker and their STATS summed into compiles and
 * cache_hits (failed: the run failed), each worker's phase record merged into phases (NULL:
 * none kept). Worker: waits for BYE (unless a sweep saw it) and answers with its own counts and
 * phases. */
int rt_workers_finish(rt_workers *w, int failed, int *compiles, int *cache_hits,
                      struct rt_phases *phases, rt_err *err);
void rt_workers_free(rt_workers *w);

#endif
