/* rt_metrics: named measurements attached to a point (counters, kernel facts, model ratios).
 * A metric the machine cannot read is kept with available = 0 and the reason, never invented. */
#ifndef RT_METRICS_H
#define RT_METRICS_H

#include "rt_error.h"

#define RT_MAX_METRICS 256

typedef struct rt_metric {
    char name[64];     /* e.g. "dram_bytes_read", "registers_per_thread", "padding_overhead" */
    char unit[16];     /* "bytes", "count", "ratio", "s", ... */
    int available;     /* 0: could not be read; reason says why */
    int deterministic; /* 1: a function of inputs and parameters only (compared exactly) */
    double value;
    char reason[160];
} rt_metric;

typedef struct rt_metrics {
    int n;
    rt_metric item[RT_MAX_METRICS];
} rt_metrics;

/* Recorded (value 1, not deterministic) on a timed point whose median's confidence interval missed
 * measure.target_rel_ci: the runner writes it, `rooftune compare` reads it. */
#define RT_METRIC_NOISY "noisy"
/* A pruned point's other number: the best time of its sweep that its roofline bound exceeded. */
#define RT_METRIC_PRUNE_BEST "prune_best_s"
/* Early abort (measure.abort_factor): a point stopped after its first repetitions because even
 * the fastest of them was slower than the factor times its sweep's best time (or its abort
 * group's) carries "aborted" (value 1) and that best time; its status stays ok and its samples
 * are the ones it took. */
#define RT_METRIC_ABORTED    "aborted"
#define RT_METRIC_ABORT_BEST "abort_best_s"
/* measure.energy: the device's energy per repetition and its mean power over the repetitions
 * (app/backend/rt_energy.h), or energy_j unavailable with the reason. */
#define RT_METRIC_ENERGY "energy_j"
#define RT_METRIC_POWER  "power_w"
/* The memory of the device a timed point ran on (bytes), for the tuning table's fallback by
 * memory size (store/rt_store_tuning.h). */
#define RT_METRIC_DEVICE_MEMORY "device_memory_bytes"

void rt_metrics_init(rt_metrics *m);
/* Adds or replaces a readable value. Silently drops entries past RT_MAX_METRICS (returns -1). */
int rt_metrics_add(rt_metrics *m, const char *name, const char *unit, double value,
                   int deterministic);
/* Records that a metric could not be read, and why. */
int rt_metrics_unavailable(rt_metrics *m, const char *name, const char *unit, const char *reason);
const rt_metric *rt_metrics_get(const rt_metrics *m, const char *name);

#endif
