/* sp2_run: One execution of a 2D kernel (the run hook): clear C, queues and grids, run the
 * algorithm's loop, drain the queues, finish SpGEMM tiles, and book the time breakdown; and the
 * flush hook (device caches through the engine). */
#ifndef SP2_RUN_H
#define SP2_RUN_H

#include "rt_error.h"

int sp2_run(void *state, double *seconds, rt_err *err);
int sp2_flush(void *state, rt_err *err);

#endif
