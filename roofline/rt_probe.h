/* rt_probe: `rooftune probe`, which measures the ceilings of the host it runs on and writes them
 * as a machine file (roofline/machines/<name>.yaml) with a `measured:` block.
 *
 * CPU: STREAM-like copy/scale/add/triad (OpenMP, arrays well beyond the last-level cache, best of
 * N, bytes read plus written counted as STREAM counts them) and an FP64/FP32 peak estimate from
 * independent FMA chains in every thread (AVX-512 or AVX2 when the CPU has them).
 * MPI: for each tier present between rank 0 and some other rank (same socket, same node, another
 * node; the emulated topology of rt_comm counts), 8-byte ping-pong latency and windowed
 * non-blocking streaming bandwidth, with host buffers.
 * GPU: the CUDA plugin's probe hook (roofline/cuda/rt_probe_gpu.cu) writes the device's lines.
 *
 * Only world rank 0 writes; the other ranks take part in the MPI measurements and otherwise wait
 * without spinning, so they do not steal cores from rank 0's CPU measurements. */
#ifndef RT_PROBE_H
#define RT_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_registry.h"

typedef struct rt_probe_opts {
    int quick;              /* small sizes, few repetitions: tests and smoke runs (not ceilings) */
    size_t cpu_array_bytes; /* bytes per STREAM array; 0: max(4 x last-level cache, 256 MiB) */
    int repetitions;        /* best of N; 0: 10 (quick: 3) */
    int threads;            /* OpenMP threads; 0: the OpenMP default */
    int skip_cpu;           /* 1: no CPU measurements (e.g. the GPU numbers only) */
    size_t mpi_message_bytes; /* streaming message size; 0: 4 MiB (quick: 64 KiB) */
    int mpi_window;          /* messages in flight; 0: 16 (quick: 8); the receiver holds them all */
    int mpi_iterations;      /* ping-pong round trips per repetition; 0: 1000 (quick: 50) */
    const char *name;        /* machine name written; NULL: "probed-<hostname>" */
    const char *description; /* NULL: generated */
    /* A machine file whose text (name, topology, spec and comments) is copied; its measured:
     * block is replaced by the new one. NULL: a new file (a cpu machine, or a gpu machine when
     * gpu_probe is given, with the ceilings it measures standing alone). */
    const char *base_path;
    /* GPU part: the CUDA plugin's probe hook (rt_plugin_api.probe) and its state, or NULL. The
     * hook writes lines of the measured: block, indented by two spaces (docs/roofline.md). */
    int (*gpu_probe)(void *state, void *file, rt_err *err);
    void *gpu_state;
    const char *device_name; /* for the match: list of a new gpu machine file */
    int gpus_per_node;       /* GPUs visible (a new gpu machine's gpus_per_socket); 0: 1 */
} rt_probe_opts;

void rt_probe_opts_init(rt_probe_opts *o);

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

typedef struct rt_probe_net_result {
    int have[RT_TIER_COUNT];    /* 1 when some rank pair of that tier exists */
    int partner[RT_TIER_COUNT]; /* the world rank rank 0 measured with */
    double latency_us[RT_TIER_COUNT];
    double bandwidth_gbs[RT_TIER_COUNT];
    size_t message_bytes;
} rt_probe_net_result;

/* The MPI measurements. comm is an rt_comm* (harness/comm/rt_comm.h); collective over its world.
 * Every rank gets the same result (broadcast from rank 0). */
int rt_probe_mpi(const rt_probe_opts *opt, void *comm, rt_probe_net_result *res, rt_err *err);

/* A barrier over comm's world (an rt_comm*) that sleeps between polls instead of spinning, so
 * waiting ranks leave the cores to the rank that measures. Collective. */
int rt_probe_idle_barrier(void *comm, rt_err *err);

/* The whole probe: CPU, MPI (when comm is non-NULL and has more than one rank), GPU (when
 * opt->gpu_probe is set); writes the machine file to out on world rank 0 (out may be NULL on the
 * others). The text is checked by loading it back (rt_machine_load_string) before it is written,
 * so what lands in out always loads. Collective when comm is given. */
int rt_probe_run(const rt_probe_opts *opt, void *comm, FILE *out, rt_err *err);

/* `machine: auto` with no matching file, when the caller prefers this host's own numbers to the
 * generic cpu-host.yaml: runs the probe (CPU, and GPU when opt->gpu_probe is set; no MPI) and loads
 * the result into m as if read from a file. A short probe on a busy host underestimates its
 * ceilings, and a kernel timed later on a quieter host may then land above them: use enough
 * repetitions (not quick mode) for bounds that are checked. */
struct rt_machine;
int rt_probe_machine(const rt_probe_opts *opt, struct rt_machine *m, rt_err *err);

#endif
