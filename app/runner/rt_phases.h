/* rt_phases: where a run's time goes, process by process (issue 35 item 3: a parallel run's
 * wall time against the sum of its points). Every process of a run keeps its own phases: when it
 * started (its main function), MPI, the config, the backend (CUDA ready), the checks, each matrix
 * it built, each sweep, each point it measured and that point's steps (inputs, setup,
 * verification, repetitions, the rest), and for the main process the store and the workers'
 * start and end. Stamps are the calendar clock (rt_clock_epoch), which every process on a host
 * (and NTP-synchronised nodes, to their offset) reads alike, so a worker's phases line up with
 * the main process's.
 *
 * A worker process or MPI rank of parallel tuning sends its phases to the coordinator at the end
 * of the run (rt_workers_finish); the coordinator merges them, adds what only it sees (a worker
 * process's exit) and writes every process's phases into the store's `phases` table
 * (rt_store_phases.h), in seconds since the main process started. */
#ifndef RT_PHASES_H
#define RT_PHASES_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_store_phases.h"

typedef struct rt_phase {
    int process;        /* index into rt_phases.procs */
    char name[96];      /* "backend", "matrix banded-1m", "sweep 2", "point", "setup", ... */
    char point_key[17]; /* the point a step belongs to, "" for none */
    double begin, end;  /* rt_clock_epoch seconds; end NAN: an instant */
} rt_phase;

typedef struct rt_phase_process {
    char name[32]; /* "main", "worker 2", "rank 1" */
    char gpu[64];  /* the physical GPU it was given (a CUDA_VISIBLE_DEVICES entry), "" for none */
    double origin; /* when its main function started */
} rt_phase_process;

typedef struct rt_phases {
    rt_phase_process *procs; /* procs[0]: this process */
    int n_procs, cap_procs;
    rt_phase *items;
    int n, cap;
    int lost; /* phases that could not be kept (out of memory): writing the record then fails */
} rt_phases;

/* This process's record, named `process`, which started at `origin` (rt_clock_epoch). */
int rt_phases_init(rt_phases *ph, const char *process, double origin, rt_err *err);
void rt_phases_free(rt_phases *ph);
/* This process's name, once known (an MPI rank's comes after MPI starts). */
void rt_phases_rename(rt_phases *ph, const char *process);
/* The physical GPU this process measures on ("" or NULL: none). */
void rt_phases_set_gpu(rt_phases *ph, const char *gpu);
/* A phase of this process (end NAN: an instant); ph NULL records nothing. -1 when it could not be
 * kept: it is counted in lost, which rt_phases_rows reports, so callers may go on. */
int rt_phases_add(rt_phases *ph, const char *name, const char *point_key, double begin, double end);
/* A phase of another process as this one saw it (a worker process's exit, seen by its
 * coordinator); the process is added when first named. */
int rt_phases_add_for(rt_phases *ph, const char *process, const char *name, double begin,
                      double end);

/* This process's own phases as bytes for the wire (malloc'd into *data); another process's bytes
 * merged in as a process of its own (its name must be new here). */
int rt_phases_pack(const rt_phases *ph, void **data, size_t *n, rt_err *err);
int rt_phases_merge(rt_phases *ph, const void *data, size_t n, rt_err *err);

/* Every phase as a store row (times relative to procs[0].origin), in *rows (malloc'd; its strings
 * point into ph). Fails when phases were lost. */
int rt_phases_rows(const rt_phases *ph, rt_store_phase_row **rows, int *n, rt_err *err);

/* What one process's phases say, the numbers a summary line shows (seconds since procs[0]
 * started; NAN where the process has no such phase). */
typedef struct rt_phase_summary {
    double start; /* its main function */
    double ready; /* backend and checks done (a worker: released by its coordinator) */
    double first_point, last_point; /* the first point's start, the last one's end */
    double exit; /* the last seen of it: a worker process reaped, a rank's bye, the main end */
    int points;  /* points it measured */
    double busy; /* the sum of its points' times */
} rt_phase_summary;
void rt_phases_summarize(const rt_phases *ph, int process, rt_phase_summary *out);
/* One line per process: "phases: worker 1 (GPU 1): start 0.31 s, ready 1.52 s, first point 2.71
 * s, last point 28.10 s, exit 28.90 s; 16 point(s), busy 24.30 s". */
void rt_phases_print(const rt_phases *ph, FILE *out);

#endif
