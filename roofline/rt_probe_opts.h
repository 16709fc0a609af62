/* rt_probe_opts: what `rooftune probe` is asked to measure, and the device-buffer operations a GPU
 * backend lends it (shared by the CPU, MPI and GPU parts of the probe). */
#ifndef RT_PROBE_OPTS_H
#define RT_PROBE_OPTS_H

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
     * hook writes lines of the measured: block, indented by two spaces
     * (docs/reference/roofline.md). */
    int (*gpu_probe)(void *state, void *file, rt_err *err);
    void *gpu_state;
    const char *device_name; /* for the match: list of a new gpu machine file */
    int gpus_per_node;       /* GPUs visible (a new gpu machine's gpus_per_socket); 0: 1 */
    /* Device-buffer MPI part: this rank's GPU backend operations (state: gpu_state), or NULL.
     * Measured only when every rank has them and there are >= 2 ranks. */
    const rt_probe_devbuf_ops *devbuf;
} rt_probe_opts;

#endif
