/* sp2_metrics: The metrics hook: this rank's time breakdown, flops, traffic and queue and
 * stealing counts, reduced to maximum and average over ranks. */
#ifndef SP2_METRICS_H
#define SP2_METRICS_H

#include "rt_error.h"
#include "rt_metrics.h"

int sp2_metrics(void *state, rt_metrics *m, rt_err *err);

#endif
