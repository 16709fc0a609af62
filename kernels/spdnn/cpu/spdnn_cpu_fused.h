/* spdnn_cpu_fused: kernel "spdnn.cpu.fused", sparse DNN inference on the host with OpenMP.
 *
 * Per layer, one fused pass computes for every live feature the SpMM row, the bias, the clamped
 * ReLU and whether the feature is still alive: y_out[i] = min(max(sum_j W^T[i][j] y_in[j] + b, 0),
 * 32), in fp32 (the Graph Challenge's precision), with W^T built once at setup. The live features
 * are cut into tiles of `feature_tile`, handed out dynamically to the threads; a thread first
 * stages its tile's input rows neuron-major in a buffer of its own (the host counterpart of the
 * GPU kernel's shared-memory staging), then reads each row of W^T once and applies it to every
 * feature of the tile (its register tiling over features). Between layers the live features are
 * compacted:
 * a list of the survivors' rows is built (in order) and the next layer reads its inputs through
 * it, so dead features cost nothing from then on and no row is copied.
 * Parameters:
 *   feature_tile int 1..64   (16) features computed together per row of W^T
 *   threads      int 0..1024 (0)  team size, 0 = every available core
 * Metrics: categories (surviving features, deterministic), layers_run (layers executed before
 * every feature died, or all), feature_layers (live features summed over the layers run: the
 * work compaction left), threads, setup_s. */
#ifndef SPDNN_CPU_FUSED_H
#define SPDNN_CPU_FUSED_H

#include "rt_registry.h"

const rt_kernel_desc *rt_spdnn_cpu_fused_kernel(void);

#endif
