/* rt_gpu_metrics: GPU counter definitions per architecture (roofline/metrics/sm_XY.yaml), in the
 * spirit of LIKWID's performance groups: data files map rooftune metric names (dram_bytes_read,
 * achieved_occupancy, ...) to the CUPTI metric that measures them, with units.
 *
 * The runner translates a config's GPU counter names into CUPTI names with these tables, the CUDA
 * plugin reads the CUPTI names (rt_cuda_collect_counters) and records metrics under them, and
 * rt_gpu_metrics_rename turns those back into rooftune names and units. The plugin thus needs no
 * YAML, and a new architecture needs no code. */
#ifndef RT_GPU_METRICS_H
#define RT_GPU_METRICS_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_metrics.h"

#define RT_GPU_METRICS_MAX 64

typedef struct rt_gpu_metric_def {
    char name[64];   /* rooftune name, e.g. "dram_bytes_read" */
    char cupti[128]; /* e.g. "dram__bytes_read.sum" */
    char unit[16];   /* e.g. "bytes" */
    char help[160];
} rt_gpu_metric_def;

typedef struct rt_gpu_metric_defs {
    char path[1024];
    char arch[16]; /* "sm_90" */
    int n;
    rt_gpu_metric_def def[RT_GPU_METRICS_MAX];
} rt_gpu_metric_defs;

/* Loads one definition file; errors name file:line:col (unknown keys with a suggestion, a metric
 * without its cupti name, duplicate CUPTI names, too many entries). */
int rt_gpu_metrics_load(const char *path, rt_gpu_metric_defs *d, rt_err *err);

/* The file for a compute capability: <dir>/sm_<major><minor>.yaml. A missing file is an error
 * listing the architectures that dir has. */
int rt_gpu_metrics_find(const char *dir, int cc_major, int cc_minor, char *path, size_t len,
                        rt_err *err);

/* Translates requested names into CUPTI names (cupti_out[i] points into d or into names[i]):
 * a rooftune name from d, or "cupti:<raw CUPTI metric>" passed through. An unknown name is an
 * error with the closest rooftune name. */
int rt_gpu_metrics_translate(const rt_gpu_metric_defs *d, const char *const *names, int n,
                             const char **cupti_out, rt_err *err);

/* Renames metrics recorded under CUPTI names (by the plugin) to the names that were requested:
 * rooftune names get their unit from d; "cupti:<raw>" requests keep that spelling. names and
 * cupti are the arrays given to and returned by rt_gpu_metrics_translate. */
void rt_gpu_metrics_rename(const rt_gpu_metric_defs *d, const char *const *names,
                           const char *const *cupti, int n, rt_metrics *m);

#endif
