/* rt_device: what the harness knows about the device a kernel runs on. Constraints in configs
 * refer to these fields as device.<name> (e.g. device.max_shared_per_block_optin). */
#ifndef RT_DEVICE_H
#define RT_DEVICE_H

#include <stdint.h>

typedef struct rt_device_info {
    char backend[16];       /* "cpu" or "cuda" */
    char name[128];         /* "NVIDIA H100 80GB HBM3", or the CPU model */
    int ordinal;            /* device index on the node (GPU ordinal; 0 for the CPU) */
    int cc_major, cc_minor; /* compute capability; 0 on the CPU */
    int sm_count;           /* multiprocessors, or CPU cores available to this rank */
    int64_t global_mem_bytes;
    int64_t l2_bytes;                   /* GPU L2, or CPU last-level cache */
    int64_t max_shared_per_block;       /* default limit (48 KiB on NVIDIA) */
    int64_t max_shared_per_block_optin; /* opt-in limit through cudaFuncSetAttribute */
    int64_t max_shared_per_sm;
    int64_t regs_per_block;
    int64_t regs_per_sm;
    int max_threads_per_block;
    int max_threads_per_sm;
    int warp_size;
    double sm_clock_mhz;
    double mem_clock_mhz;
    int mem_bus_bits;
    char driver_version[32];
    char runtime_version[32];
} rt_device_info;

#endif
