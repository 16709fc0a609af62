#include "sptrsv_runlog.h"

#include <stdlib.h>

void sptrsv_runlog_add(sptrsv_runlog *log, double seconds)
{
    if (log->n < SPTRSV_RUNLOG_MAX)
        log->t[log->n++] = seconds;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double sptrsv_runlog_median(sptrsv_runlog *log)
{
    if (log->n == 0)
        return 0.0;
    qsort(log->t, (size_t)log->n, sizeof log->t[0], cmp_double);
    return log->n % 2 ? log->t[log->n / 2] : 0.5 * (log->t[log->n / 2 - 1] + log->t[log->n / 2]);
}

void sptrsv_runlog_ratio_metric(sptrsv_runlog *log, double predicted_s, rt_metrics *m)
{
    const double med = sptrsv_runlog_median(log);
    if (med > 0.0)
        rt_metrics_add(m, "model_over_measured", "ratio", predicted_s / med, 0);
}
