/* rt_point_wire: a measured point (rt_measured: its record, metrics, samples and log line) as
 * bytes, for a parallel worker to send to the coordinator that records it. Both ends are the same
 * build, so the fixed part travels as it is in memory (pointers left out) and the samples after
 * it; the length and a magic number are checked on arrival. */
#ifndef RT_POINT_WIRE_H
#define RT_POINT_WIRE_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_measure.h"

/* A point as it arrived: res points into the arrays below (rt_point_wire_unpack sets it up). */
typedef struct rt_point_wire {
    rt_measured res;
    double *samples, *rank_min, *rank_avg;
} rt_point_wire;

/* The bytes of res (malloc'd into *data, *n of them). */
int rt_point_wire_pack(const rt_measured *res, void **data, size_t *n, rt_err *err);
/* Reads bytes made by rt_point_wire_pack into out; rt_point_wire_free releases it. */
int rt_point_wire_unpack(const void *data, size_t n, rt_point_wire *out, rt_err *err);
void rt_point_wire_free(rt_point_wire *p);

#endif
