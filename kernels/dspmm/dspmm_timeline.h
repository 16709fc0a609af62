/* dspmm_timeline: the busy intervals of one execution's phases on one timeline (seconds from a
 * reference point), and what they add up to: each phase's busy time (the union of its own
 * intervals, so two stages of one phase that overlap count once), the sum of those, and the union
 * of all phases (the time when at least one phase is active). sum - union is the overlap: the time
 * two or more phases ran at once. Host waits never overlap one another, so only intervals timed
 * where the work happens (CUDA events on the device, the host's clock for MPI) can show overlap.
 *
 * Pure host code with no device or MPI call, so it is tested on any machine. */
#ifndef DSPMM_TIMELINE_H
#define DSPMM_TIMELINE_H

#include <stdint.h>

#include "rt_error.h"

typedef enum dspmm_phase {
    DSPMM_PH_MULTIPLY, /* the local multiply (device) */
    DSPMM_PH_D2H,      /* device-to-host staging of rows MPI sends (device) */
    DSPMM_PH_IPC,      /* device-to-device copies into peers' receive areas (device) */
    DSPMM_PH_H2D,      /* host-to-device copies of rows MPI received (device) */
    DSPMM_PH_REDUCE,   /* reductions and the memsets of level buffers (device) */
    DSPMM_PH_MPI,      /* the host blocked in MPI (waits for rows, tokens, credits) */
    DSPMM_PH_COUNT
} dspmm_phase;

/* The metric name's stem of a phase ("multiply", "d2h", ...). */
const char *dspmm_phase_name(dspmm_phase ph);

typedef struct dspmm_timeline {
    double *start, *end;
    int *phase;
    int64_t n, cap;
} dspmm_timeline;

/* An empty timeline with room for `cap` intervals (grows when needed). */
int dspmm_timeline_init(dspmm_timeline *t, int64_t cap, rt_err *err);
void dspmm_timeline_free(dspmm_timeline *t);
/* Forgets the intervals (keeps the room). */
void dspmm_timeline_clear(dspmm_timeline *t);
/* One busy interval [start, end] of phase ph; an interval that ends before it starts or a phase
 * out of range is an error naming it. */
int dspmm_timeline_add(dspmm_timeline *t, dspmm_phase ph, double start, double end, rt_err *err);

typedef struct dspmm_busy {
    double phase[DSPMM_PH_COUNT]; /* each phase's busy time */
    double sum;                   /* their sum */
    double uni;                   /* the union of all intervals */
} dspmm_busy;

/* The busy times of the intervals so far. */
int dspmm_timeline_busy(const dspmm_timeline *t, dspmm_busy *out, rt_err *err);

#endif
