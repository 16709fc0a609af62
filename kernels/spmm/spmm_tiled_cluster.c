#include "spmm_tiled_cluster.h"

/* 2-byte shared indices address this many slots (spmm_tiled.h). */
#define CLUSTER_INDEX16_SLOTS 65536

int rt_tiled_cluster_params(const rt_tiled_params *block, int64_t cluster, rt_tiled_params *out,
                            rt_err *err)
{
    if (cluster != 1 && cluster != 2 && cluster != 4 && cluster != RT_TILED_CLUSTER_MAX)
        return rt_err_set(err, "cluster=%lld: must be 1, 2, 4 or %d blocks", (long long)cluster,
                          RT_TILED_CLUSTER_MAX);
    if (block->block_size < 1 || block->buffsize < 1)
        return rt_err_set(err, "cluster=%lld: block_size=%d and buffsize=%lld must be at least 1",
                          (long long)cluster, block->block_size, (long long)block->buffsize);
    const int64_t slots = block->buffsize * cluster;
    if (block->index_bytes == 2 && slots > CLUSTER_INDEX16_SLOTS)
        return rt_err_set(err,
                          "cluster=%lld: index_bytes=2 addresses %d slots, a cluster stage has "
                          "%lld (%lld blocks x buffsize %lld)",
                          (long long)cluster, CLUSTER_INDEX16_SLOTS, (long long)slots,
                          (long long)cluster, (long long)block->buffsize);
    if ((int64_t)block->block_size * cluster > INT32_MAX)
        return rt_err_set(err, "cluster=%lld: block_size=%d x cluster passes 2^31-1 rows",
                          (long long)cluster, block->block_size);
    *out = *block;
    out->block_size = (int)(block->block_size * cluster);
    out->buffsize = slots;
    return 0;
}

int64_t rt_tiled_cluster_owner(int64_t slot, int64_t cluster)
{
    return slot % cluster;
}

int64_t rt_tiled_cluster_local(int64_t slot, int64_t cluster)
{
    return slot / cluster;
}

int64_t rt_tiled_cluster_share(int64_t mapnz, int64_t rank, int64_t cluster)
{
    return mapnz > rank ? (mapnz - rank + cluster - 1) / cluster : 0;
}
