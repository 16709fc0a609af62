/* rt_test_gpu: for the GPU tests that talk to the CUDA plugin through dlopen (they link no CUDA
 * library, so they start, and skip, without a driver). */
#ifndef RT_TEST_GPU_H
#define RT_TEST_GPU_H

#include <dlfcn.h>
#include <stdio.h>

/* The number of CUDA devices the driver reports, 0 (saying why) when there is no driver or no
 * device: the test then exits 77 (ctest SKIP). */
static inline int rt_test_device_count(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("SKIP: no NVIDIA driver (libcuda.so.1 does not open)\n");
        return 0;
    }
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    init_fn cu_init = (init_fn)dlsym(h, "cuInit");
    count_fn cu_count = (count_fn)dlsym(h, "cuDeviceGetCount");
    int n = 0;
    if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&n) != 0)
        n = 0;
    dlclose(h);
    if (n <= 0)
        printf("SKIP: the NVIDIA driver reports no CUDA device\n");
    return n;
}

#endif
