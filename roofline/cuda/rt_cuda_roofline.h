/* rt_cuda_roofline: the roofline stage's hooks in the CUDA plugin (rt_plugin_api.probe and
 * .collect_counters, backends/rt_plugin.h), built into librooftune_cuda.so from
 * roofline/cuda/.
 *
 * Both work on the CUDA device that is current on the calling thread (the plugin's init made its
 * device current); plugin_state is not looked into, so the functions can sit in the plugin table
 * as they are. */
#ifndef RT_CUDA_ROOFLINE_H
#define RT_CUDA_ROOFLINE_H

#ifdef __cplusplus
extern "C" {
#endif

#include "rt_error.h"
#include "rt_metrics.h"
#include "rt_registry.h"

/* The GPU part of `rooftune probe`: writes lines of a machine file's measured: block (two-space
 * indent; schema in docs/reference/roofline.md) to file (a FILE*): fp32/fp64 peaks, DRAM (HBM), L2
 * and shared-memory bandwidth from Empirical-Roofline-Toolkit-style sweeps (working set x flops per
 * element, best kept), host<->device bandwidth pinned and pageable, and one `peers:` entry per
 * ordered GPU pair that can access each other (cudaMemcpyPeerAsync). */
int rt_cuda_probe(void *plugin_state, void *file, rt_err *err);

/* The device-buffer operations of the MPI probe: a const rt_probe_devbuf_ops * (roofline/
 * rt_probe.h) over cudaMalloc, pinned host memory, cudaMemcpy and CUDA IPC
 * (rt_probe_devbuf.cu). Returned as const void * to match rt_plugin_api.probe_devbuf. */
const void *rt_cuda_probe_devbuf_ops(void *plugin_state);

/* Reads the named CUPTI metrics (raw CUPTI names such as "dram__bytes_read.sum"; the host maps
 * rooftune names through roofline/metrics/sm_XY.yaml, see rt_gpu_metrics.h) for one execution of
 * a prepared point: k->run(kernel_state) inside a CUPTI range-profiler session (user range, user
 * replay: the kernel runs once per pass). Each metric lands in m under its CUPTI name (unit
 * "raw"); one that cannot be read (unknown for this chip, profiling not permitted or not
 * supported here) is recorded unavailable with CUPTI's error text. Returns -1 only when the
 * kernel itself fails. */
int rt_cuda_collect_counters(void *plugin_state, const rt_kernel_desc *k, void *kernel_state,
                             const char *const *names, int n_names, rt_metrics *m, rt_err *err);

#ifdef __cplusplus
}
#endif

#endif
