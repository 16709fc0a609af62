/* rt_probe_cpu: the probe's CPU measurements (STREAM bandwidths, FMA peaks). */
#ifndef RT_PROBE_CPU_H
#define RT_PROBE_CPU_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_probe_opts.h"

typedef struct rt_probe_cpu_result {
    double stream_gbs[4]; /* copy, scale, add, triad */
    double fp64_gflops;
    double fp32_gflops;
    size_t array_bytes;
    int threads;
    char isa[16]; /* "avx512", "avx2", "scalar": the FMA path the peak loop used */
    char cpu_model[128];
    int sockets;
    int cores_per_socket;
} rt_probe_cpu_result;

/* The CPU measurements alone (no MPI). Fails when memory for the arrays is short (naming the
 * bytes) or when STREAM's result check fails. */
int rt_probe_cpu(const rt_probe_opts *opt, rt_probe_cpu_result *res, rt_err *err);

#endif
