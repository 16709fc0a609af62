/* rt_store_phases: where a run's time went, process by process: the `phases` table (created when
 * first written; docs/reference/store.md). One row per phase of one process of the run (the
 * process the user started, each worker process or MPI rank of parallel tuning): its name, the
 * GPU that process measured on, the point it belongs to (a point's steps) and when it began and
 * ended, in seconds since the run's main process started. The runner gathers the rows
 * (app/runner/rt_phases.h) and writes them once, before the run's row is closed. */
#ifndef RT_STORE_PHASES_H
#define RT_STORE_PHASES_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_store.h"

typedef struct rt_store_phase_row {
    const char *process;   /* "main", "worker 2", "rank 1" */
    const char *gpu;       /* the physical GPU the process was given; NULL or "": none */
    const char *phase;     /* "backend", "matrix banded-1m", "sweep 2", "setup", ... */
    const char *point_key; /* the point a step belongs to; NULL or "": none */
    double begin_s;        /* seconds since the main process started */
    double end_s;          /* NAN: an instant */
} rt_store_phase_row;

/* Writes the rows of run_id in one transaction (the table and its index are created first when
 * the store has none). A row whose times are not finite, or that ends before it begins, is
 * refused naming it, and nothing is written. */
int rt_store_add_phases(rt_store *st, int64_t run_id, const rt_store_phase_row *rows, int n,
                        rt_err *err);

#endif
