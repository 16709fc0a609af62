/* rt_workers: parallel tuning (search.parallel). A coordinator owns the store and the search of
 * every sweep and hands whole points to workers, each measuring on its own device with a job of
 * one rank; results come back over a wire (rt_wire.h) and are recorded by the coordinator, one
 * transaction per point as in a serial run, so the store has one writer, a point is never
 * recorded twice, and resume works as it does serially.
 *
 *   ranks  every MPI rank is a worker on its own GPU (one rank per GPU, as always); rank 0 is the
 *          coordinator and measures too. Across nodes as on one.
 *   gpus   one rooftune process starts a worker process per GPU (rt_workers_spawn: the same
 *          command with --worker-fd/--worker-index added, its MPI environment left out so each
 *          is a job of its own) and coordinates them over sockets; it measures nothing itself.
 *
 * Every worker walks the config as the coordinator does (the same matrices, problem points and
 * sweeps in the same order), so a point travels as its index in the sweep's space. Each worker
 * has up to two points in flight, so it starts its next point while the coordinator records the
 * last; NVRTC compiles of different workers overlap on the host's cores. A worker learns the
 * sweep's best time with each point (early abort, pruning), as known when the point was handed
 * out.
 *
 * The protocol per sweep: ASSIGN (index, best time, its bound) -> RESULT (the measured point) or
 * FAILED (a run error on the worker: the run fails) or DROPPED (a signal stopped the point before
 * it was measured); END (the sweep is over; whether the run stops) ends it on every worker. At the
 * end of the run BYE -> STATS (the worker's compiles and cache hits). */
#ifndef RT_WORKERS_H
#define RT_WORKERS_H

#include <sys/types.h>

#include "rt_measure.h"
#include "rt_sweep.h"
#include "rt_walk.h"
#include "rt_wire.h"

typedef struct rt_workers rt_workers;

/* The coordinator's side: workers are peers first_peer .. first_peer + n - 1 of the wire; local
 * says whether the coordinator measures points too. */
int rt_workers_coordinator(rt_wire *wire, int first_peer, int n, int local, rt_workers **out,
                           rt_err *err);
/* A worker's side: the coordinator is peer `coordinator` of the wire. */
int rt_workers_worker(rt_wire *wire, int coordinator, rt_workers **out, rt_err *err);

/* Coordinator: hands the sweep's points out until it has none left, records every result, and
 * ends the sweep on every worker (telling them whether the run stops). A worker's failure fails
 * the sweep with its message once the points in flight are back. */
int rt_workers_coordinate(rt_workers *w, rt_sweep_run *sw, rt_err *err);
/* Worker: measures the points the coordinator hands out in this sweep (space: the sweep's;
 * base: its target) until END; m's sink sends each result. Sets m->stop when the run stops. */
int rt_workers_serve(rt_workers *w, rt_measure_ctx *m, const rt_sweep *s,
                     const rt_measure_target *base, rt_run_summary *sum, rt_err *err);
/* End of the run. Coordinator: BYE to every worker and their STATS summed into compiles and
 * cache_hits (failed: the run failed). Worker: waits for BYE (unless a sweep saw it) and answers
 * with its own counts. */
int rt_workers_finish(rt_workers *w, int failed, int *compiles, int *cache_hits, rt_err *err);
void rt_workers_free(rt_workers *w);

/* gpus: starts n worker processes: /proc/self/exe run with argv's options (argv[0], the command
 * that was given, `run` or `tune`, is left out: a worker only runs) and --worker-fd FD
 * --worker-index I added, each connected to this process by a socket
 * (fds[i], this end), with the MPI launcher's variables left out of its environment. pids[i] gets
 * each process id. On failure the ones started are ended. */
int rt_workers_spawn(int argc, const char *const *argv, int n, int *fds, pid_t *pids, rt_err *err);

/* OpenMP threads for each of n worker processes: 0 when OMP_NUM_THREADS is set (the user's
 * choice reaches every worker), else this process's usable cores over n (at least 1), which
 * rt_workers_spawn puts in the workers' environment: n workers of all the cores each would run
 * n x cores threads in their host phases (inputs, references, plans) at once. */
int rt_workers_omp_threads(int n);
/* Waits for the worker processes; fails naming the first that did not exit with status 0 (or
 * what ended it). */
int rt_workers_reap(int n, const pid_t *pids, rt_err *err);

#endif
