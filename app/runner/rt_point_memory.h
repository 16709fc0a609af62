/* rt_point_memory: does a whole point fit in memory? Before a point allocates anything, the
 * family's footprint (inputs, output, operands) plus what the runner keeps (reference, output and
 * the elementwise scale, doubles) is compared with the host's available memory and, for a device
 * kernel, with the device's memory. A point that cannot fit is recorded infeasible with the
 * numbers; allocating it anyway would get the process killed by the OS minutes later. */
#ifndef RT_POINT_MEMORY_H
#define RT_POINT_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "rt_registry.h"

/* MemAvailable of the host in bytes, read from /proc/meminfo, or from the file named by
 * $ROOFTUNE_MEMINFO (for tests: a point can be made not to fit without using the memory);
 * -1 when it cannot be read. */
int64_t rt_point_memory_host_available(void);

typedef struct rt_point_memory_in {
    rt_footprint fp;
    int inputs_resident; /* the family's inputs and the runner's arrays exist already */
    int device_kernel;   /* the kernel keeps its operands and output on a device */
    int ranks_on_host;   /* ranks of this run sharing the host's memory */
    int64_t host_available;
    int64_t device_memory; /* 0: unknown */
} rt_point_memory_in;

/* 1 when the point fits (or nothing is known), 0 when it cannot, with why saying what is needed
 * and what there is. */
int rt_point_memory_fits(const rt_point_memory_in *in, char *why, size_t whylen);

#endif
