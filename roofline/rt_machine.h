/* rt_machine: machine files (roofline/machines/NAME.yaml) that hold the ceilings a roofline bound
 * is computed from: compute peaks, bandwidth per memory level, host link, and bandwidth and latency
 * per communication tier (socket, node, global network), each as a vendor `spec:` value and, where
 * `rooftune probe` has run, a `measured:` value beside it. The schema is documented in
 * docs/reference/roofline.md.
 *
 * Both sets are kept because the roofline figure draws them both (spec dashed, measured solid);
 * bounds use the effective set: measured where present, else spec. A value of 0 means "absent"
 * (the file may not give it); the loader rejects zero or negative values that are written. */
#ifndef RT_MACHINE_H
#define RT_MACHINE_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_registry.h"

#define RT_MACHINE_MAX_MATCH 8
#define RT_MACHINE_MAX_PEERS 64

typedef struct rt_ceilings {
    double fp32_gflops;
    double fp64_gflops;
    double fp64_tensor_gflops;        /* FP64 on tensor cores (DGEMM, cc >= 8.0); 0: none */
    double level_gbs[RT_LEVEL_COUNT]; /* dram, l2, shared (GB/s = 1e9 bytes/s) */
    double h2d_gbs, d2h_gbs;          /* host link, pinned host memory */
    double h2d_pageable_gbs, d2h_pageable_gbs;
    double tier_gbs[RT_TIER_COUNT]; /* per GPU (or rank), one direction */
    double tier_latency_us[RT_TIER_COUNT];
} rt_ceilings;

/* One measured GPU-to-GPU copy (the probe's peer sweep), kept for the record and the docs. */
typedef struct rt_peer_bw {
    int src, dst;
    double gbs;
} rt_peer_bw;

typedef struct rt_machine {
    char path[1024]; /* file it was read from ("" when built in memory) */
    char name[64];
    char description[256];
    char kind[8]; /* "gpu" or "cpu" */
    int n_match;
    char match[RT_MACHINE_MAX_MATCH][96]; /* device-name substrings for `machine: auto` */
    int priority;                         /* among several matching files, the higher wins */
    int gpus_per_socket;                  /* 0 on a cpu machine */
    int sockets_per_node;
    int cores_per_socket; /* cpu machines; 0 when not given */
    rt_ceilings spec;
    rt_ceilings measured;
    rt_ceilings effective;     /* measured where present, else spec */
    char measured_source[256]; /* who measured, where and when (free text), "" when none */
    /* The host CPU as the probe measured it: on a cpu machine these are the machine's own
     * ceilings (measured: top level); on a gpu machine they live under measured.host so they do
     * not shadow the GPU's. fp32/fp64 peaks and socket/node/global tiers (host-buffer MPI). */
    rt_ceilings host;
    double stream_gbs[4]; /* STREAM copy, scale, add, triad; 0 when absent */
    int n_peers;
    rt_peer_bw peers[RT_MACHINE_MAX_PEERS];
    /* MPI between device buffers as the probe measured it (measured.mpi_staged, .mpi_ipc), per
     * tier, 0 when absent: staged through pinned host memory (D2H, MPI, H2D: rooftune's GPU
     * transport between nodes) and CUDA IPC between processes of one node (socket, node). */
    double staged_gbs[RT_TIER_COUNT], staged_latency_us[RT_TIER_COUNT];
    double ipc_gbs[RT_TIER_COUNT], ipc_latency_us[RT_TIER_COUNT];
} rt_machine;

/* Names of the memory levels and network tiers as they appear in files, bounds and figures:
 * "dram", "l2", "shared"; "socket", "node", "global". */
const char *rt_machine_level_name(rt_mem_level level);
const char *rt_machine_tier_name(rt_net_tier tier);

/* Loads and validates one machine file. Errors name file:line:col: unknown keys (with the closest
 * valid key), values of the wrong type, zero or negative ceilings, a ceiling the machine needs that
 * is in neither spec: nor measured:, and topology that contradicts the kind. */
int rt_machine_load(const char *path, rt_machine *m, rt_err *err);
/* Same, from text in memory; name stands in for the file name in messages. */
int rt_machine_load_string(const char *text, const char *name, rt_machine *m, rt_err *err);

/* Recomputes m->effective from m->spec and m->measured (after a caller changed either). */
void rt_machine_update_effective(rt_machine *m);

/* Resolves `machine: auto`: scans dir for *.yaml machine files and picks the one whose `match:`
 * list has a case-insensitive substring of device_name. Among several: first the one whose GPUs
 * per node equal gpus_per_node (when gpus_per_node > 0), then the higher priority, then the longer
 * matched substring, then the name (so the choice is deterministic). With no match the generic
 * "cpu-host.yaml" of dir is returned and *generic is set to 1 (its ceilings are loose upper bounds:
 * run `rooftune probe` for this host's own numbers). Files that fail to load are an error naming
 * them, so a broken file is never skipped silently. */
int rt_machine_find(const char *dir, const char *device_name, int gpus_per_node, char *path,
                    size_t path_len, int *generic, rt_err *err);

/* The inter-node (global tier) ceilings for a GPU kernel's messages: its data leaves the device
 * through pinned host memory before MPI carries it, so measured.mpi_staged.global replaces
 * m->effective's global tier when the file has it (latency too, when given); otherwise the file's
 * own global tier (host-buffer MPI or the vendor figure) stays. Returns 1 when the staged figure
 * was put in, 0 when m is unchanged. */
int rt_machine_use_staged_internode(rt_machine *m);

/* GPUs (or ranks, on a cpu machine) per node. */
int rt_machine_devices_per_node(const rt_machine *m);

#endif
