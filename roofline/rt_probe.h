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
 * MPI with device buffers (when every rank has a GPU backend, see rt_probe_devbuf_ops): for the
 * same tier pairs, (a) staged: device -> pinned host -> MPI -> pinned host -> device, the path of
 * rooftune's GPU transports between nodes; (b) ipc: CUDA IPC between two processes of one node
 * (each maps the other's buffer; a device-to-device copy plus a 1-byte MPI token).
 *
 * Only world rank 0 writes; the other ranks take part in the MPI measurements and otherwise wait
 * without spinning, so they do not steal cores from rank 0's CPU measurements. */
#ifndef RT_PROBE_H
#define RT_PROBE_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_registry.h"

/* Device-buffer operations the GPU backend lends the MPI probe (the CUDA plugin's
 * rt_cuda_probe_devbuf_ops, roofline/cuda/rt_probe_devbuf.cu); state is the plugin state. Every
 * call returns 0, or -1 with err set. Copies are synchronous: they return when the bytes are at
 * the destination. The MPI choreography stays on the host side (rt_probe_mpi.c) so that it is the
 * same code, and tested, with or without a GPU. */
#define RT_PROBE_IPC_HANDLE_BYTES 64 /* sizeof(cudaIpcMemHandle_t) */
typedef struct rt_probe_devbuf_ops {
    int (*dev_alloc)(void *state, size_t bytes, void **dev, rt_err *err);
    int (*dev_free)(void *state, void *dev, rt_err *err);
    int (*pinned_alloc)(void *state, size_t bytes, void **host, rt_err *err);
    int (*pinned_free)(void *state, void *host, rt_err *err);
    int (*to_host)(void *state, void *host, const void *dev, size_t bytes, rt_err *err);
    int (*to_device)(void *state, void *dev, const void *host, size_t bytes, rt_err *err);
    /* dst or src may be a mapping from ipc_open (a peer process's buffer). */
    int (*device_copy)(void *state, void *dst, const void *src, size_t bytes, rt_err *err);
    /* An IPC handle for a buffer from dev_alloc, for another process to open. */
    int (*ipc_export)(void *state, void *dev, unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES],
                      rt_err *err);
    /* Maps another process's exported buffer (never one this process exported). A failure here
     * means "IPC unavailable between these two processes", which the probe records and skips. */
    int (*ipc_open)(void *state, const unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES],
                    void **mapped, rt_err *err);
    int (*ipc_close)(void *state, void *mapped, rt_err *err);
} rt_probe_devbuf_ops;

typedef struct rt_probe_opts {
    int quick;              /* small sizes, few repetitions: tests and smoke runs (not ceilings) */
    size_t cpu_array_bytes; /* bytes per STREAM array; 0: max(4 x last-level cache, 256 MiB) */
    int repetitions;        /* best of N; 0: 10 (quick: 3) */
    int threads;            /* OpenMP threads; 0: the OpenMP default */
    int skip_cpu;           /* 1: no CPU measurements (e.g. the GPU numbers only) */
    size_t mpi_message_bytes; /* streaming message size; 0: 4 MiB (quick: 64 KiB) */
    int mpi_window;     /* messages in flight; 0: 16 (quick: 8); the receiver holds them all */
    int mpi_iterations; /* ping-pong round trips per repetition; 0: 1000 (quick: 50) */
    const char *name;   /* machine name written; NULL: "probed-<hostname>" */
    void *log; /* a FILE: one line per stage saying what is being measured (rank 0); NULL: none */
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
    /* Device-buffer MPI part: this rank's GPU backend operations (state: gpu_state), or NULL.
     * Measured only when every rank has them and there are >= 2 ranks. */
    const rt_probe_devbuf_ops *devbuf;
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

/* MPI between device buffers, per tier: staged through pinned host memory (every tier) and
 * CUDA IPC (socket and node tiers, only between processes on one host). */
typedef struct rt_probe_devnet_result {
    int measured;                 /* 0: not run (no GPU backend on some rank, or 1 rank) */
    char skipped[RT_ERR_MSG_MAX]; /* why not run, or why IPC was not measured ("" otherwise) */
    int have_staged[RT_TIER_COUNT];
    double staged_latency_us[RT_TIER_COUNT];
    double staged_gbs[RT_TIER_COUNT];
    int have_ipc[RT_TIER_COUNT];
    double ipc_latency_us[RT_TIER_COUNT];
    double ipc_gbs[RT_TIER_COUNT];
    int partner[RT_TIER_COUNT];
    size_t message_bytes;
} rt_probe_devnet_result;

/* The device-buffer MPI measurements (collective over comm's world, an rt_comm*). have_ops: this
 * rank's opt->devbuf is usable; when some rank lacks it, nothing is measured, res->skipped names
 * the first such rank, and 0 is returned. A failure on any rank (allocation, copy, MPI) fails
 * every rank with that rank named; an IPC mapping that cannot be opened skips IPC for that tier
 * (res->skipped says why) and is not a failure. Every rank gets the same result. */
int rt_probe_mpi_device(const rt_probe_opts *opt, void *comm, rt_probe_devnet_result *res,
                        rt_err *err);

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
