/* sptrsv_runlog: the times of a kernel's own executions, so its metrics hook can put the model's
 * prediction beside the measured median (model_over_measured) without asking the runner. */
#ifndef SPTRSV_RUNLOG_H
#define SPTRSV_RUNLOG_H

#include "rt_metrics.h"

#define SPTRSV_RUNLOG_MAX 4096

typedef struct sptrsv_runlog {
    int n;
    double t[SPTRSV_RUNLOG_MAX];
} sptrsv_runlog;

/* Keeps the first SPTRSV_RUNLOG_MAX times (enough for a median). */
void sptrsv_runlog_add(sptrsv_runlog *log, double seconds);
/* Median of the recorded times; 0 when none. Sorts the log. */
double sptrsv_runlog_median(sptrsv_runlog *log);
/* model_over_measured: predicted_s over the median of the recorded times, added to m when any
 * time was recorded. Sorts the log. */
void sptrsv_runlog_ratio_metric(sptrsv_runlog *log, double predicted_s, rt_metrics *m);

#endif
