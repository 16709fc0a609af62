/* rt_machine_point: the ceilings that bound one point, from the machine file's effective ones and
 * how the point's messages really travel. Two adjustments, in this order:
 *  1. emulated nodes (--ranks-per-node on one host): node and global messages go through the same
 *     shared-memory transport as socket messages, so those tiers take the socket tier's figures;
 *  2. a device kernel whose inter-node messages are staged through pinned host memory (D2H, MPI,
 *     H2D) is bounded by the probe's staged figure on the global tier. Emulation does not bypass
 *     the staging (the copies to and from the device remain), so the staged figure applies on top
 *     of step 1: the other order would bound staged messages with the NVLink figure. */
#ifndef RT_MACHINE_POINT_H
#define RT_MACHINE_POINT_H

#include "rt_machine.h"

typedef struct rt_machine_point_flags {
    int emulated; /* step 1 applied */
    int staged;   /* step 2 applied */
} rt_machine_point_flags;

/* Writes into out (a copy of m) the ceilings for a point: device_kernel when the kernel's data
 * lives on a device, sends_internode when its model has global-tier bytes or messages,
 * emulated when the job's nodes are emulated on one host. */
void rt_machine_for_point(const rt_machine *m, int device_kernel, int sends_internode, int emulated,
                          rt_machine *out, rt_machine_point_flags *flags);

#endif
