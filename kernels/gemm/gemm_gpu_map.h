/* gemm_gpu_map: which physical device each of a process's G GPUs is (gemm.cuda.tiled's
 * `gpu_map`), in plain C so the rule is tested without a GPU.
 *
 *   logical:  all G GPUs on the rank's own device (several logical GPUs on one physical one, each
 *             with its own budget: how G > 1 is tested on a one-GPU host);
 *   physical: GPU g of the rank with local (node) rank r on device (r G + g) mod D, D the host's
 *             device count, so the ranks of a host take disjoint devices; needs D >= G x ranks
 *             of the host (else infeasible, with the numbers);
 *   auto:     physical when the host has that many devices, else logical. */
#ifndef GEMM_GPU_MAP_H
#define GEMM_GPU_MAP_H

#include <stddef.h>

typedef enum gemm_map_mode { GEMM_MAP_AUTO, GEMM_MAP_LOGICAL, GEMM_MAP_PHYSICAL } gemm_map_mode;

/* The domain string of the parameter and its parse; -1 on a word outside it. */
#define GEMM_GPU_MAP_DOMAIN "auto|logical|physical"
int gemm_map_mode_parse(const char *word, gemm_map_mode *out);

typedef struct gemm_gpu_map {
    int physical;    /* 1: one device per GPU, disjoint between the ranks of the host */
    int devices[64]; /* device ordinal of GPU g (G <= 64: the `gpus` domain) */
    int distinct;    /* distinct devices among devices[0..G) */
} gemm_gpu_map;

/* Resolves the map of a rank: G GPUs, local rank and ranks of its host, the host's device count
 * and the rank's own device (logical mode). Returns 0, or RT_INFEASIBLE (1) with why filled
 * (physical without enough devices), or -1 on bad arguments (why filled). */
int gemm_gpu_map_resolve(gemm_map_mode mode, int G, int local_rank, int local_ranks,
                         int device_count, int own_device, gemm_gpu_map *map, char *why,
                         size_t whylen);

#endif
