/* A stand-in for libcuda.so.1 for the GPU gate tests: it answers only the two calls rooftune and
 * the test launcher make before anything else (cuInit, cuDeviceGetCount). FAKE_CUDA_DEVICES
 * (default 1) is the device count it reports; 0 makes cuInit fail with CUDA_ERROR_NO_DEVICE (100),
 * as the real driver does on a host without a GPU. It lets a machine without a GPU play a GPU host
 * whose plugin is broken, which must fail the GPU tests rather than skip them. */
#include <stdlib.h>

static int fake_device_count(void)
{
    const char *env = getenv("FAKE_CUDA_DEVICES");
    return env && *env ? atoi(env) : 1;
}

int cuInit(unsigned int flags)
{
    (void)flags;
    return fake_device_count() > 0 ? 0 : 100;
}

int cuDeviceGetCount(int *count)
{
    *count = fake_device_count();
    return 0;
}
