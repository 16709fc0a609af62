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
#include "rt_probe_cpu.h"
#include "rt_probe_mpi.h"
#include "rt_probe_opts.h"
#include "rt_registry.h"

void rt_probe_opts_init(rt_probe_opts *o);

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
