/* rt_test_device: the device limits the host-side tests of GPU kernels check their rules against,
 * so every such test reads the same H100. */
#ifndef RT_TEST_DEVICE_H
#define RT_TEST_DEVICE_H

#include <string.h>

#include "rt_device.h"

/* The H100 SXM's limits as the CUDA runtime reports them (compute capability 9.0). */
static inline rt_device_info rt_test_h100(void)
{
    rt_device_info d;
    memset(&d, 0, sizeof d);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.max_shared_per_block = 48 * 1024;
    d.max_shared_per_block_optin = 232448; /* 227 KiB */
    d.max_shared_per_sm = 233472;          /* 228 KiB */
    d.max_threads_per_sm = 2048;
    d.max_threads_per_block = 1024;
    d.sm_count = 132;
    d.warp_size = 32;
    return d;
}

#endif
