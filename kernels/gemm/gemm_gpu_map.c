#include "gemm_gpu_map.h"

#include <stdio.h>
#include <string.h>

#include "rt_registry.h" /* RT_INFEASIBLE */

int gemm_map_mode_parse(const char *word, gemm_map_mode *out)
{
    static const char *const names[] = {"auto", "logical", "physical"};
    for (int i = 0; i < 3; ++i)
        if (word && strcmp(word, names[i]) == 0) {
            *out = (gemm_map_mode)i;
            return 0;
        }
    return -1;
}

int gemm_gpu_map_resolve(gemm_map_mode mode, int G, int local_rank, int local_ranks,
                         int device_count, int own_device, gemm_gpu_map *map, char *why,
                         size_t whylen)
{
    memset(map, 0, sizeof *map);
    const int max_g = (int)(sizeof map->devices / sizeof map->devices[0]);
    if (G < 1 || G > max_g || local_ranks < 1 || local_rank < 0 || local_rank >= local_ranks ||
        device_count < 1 || own_device < 0 || own_device >= device_count) {
        snprintf(why, whylen,
                 "gpu_map: %d GPU(s) per process, local rank %d of %d, device %d of %d is not a "
                 "valid host layout",
                 G, local_rank, local_ranks, own_device, device_count);
        return -1;
    }
    const long needed = (long)G * local_ranks;
    const int enough = device_count >= needed;
    if (mode == GEMM_MAP_PHYSICAL && !enough) {
        snprintf(why, whylen,
                 "gpu_map = physical needs %ld devices (%d GPU(s) per process x %d rank(s) on "
                 "the host) but the host has %d; use gpu_map = logical or auto",
                 needed, G, local_ranks, device_count);
        return RT_INFEASIBLE;
    }
    map->physical = mode == GEMM_MAP_PHYSICAL || (mode == GEMM_MAP_AUTO && enough);
    for (int g = 0; g < G; ++g)
        map->devices[g] =
            map->physical ? (int)(((long)local_rank * G + g) % device_count) : own_device;
    for (int g = 0; g < G; ++g) {
        int seen = 0;
        for (int h = 0; h < g; ++h)
            seen |= map->devices[h] == map->devices[g];
        map->distinct += !seen;
    }
    return 0;
}
