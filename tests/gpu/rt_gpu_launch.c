/* rt_gpu_launch PROGRAM [ARGS...]: runs PROGRAM only where a CUDA device can be used, and exits 77
 * (ctest: skipped) where there is no NVIDIA driver or no device. Test programs that link the CUDA
 * driver (libcuda.so.1) cannot even start without it, so they cannot skip themselves: ctest starts
 * them through this launcher, which looks for the driver with dlopen as rooftune does. Any other
 * failure (a driver that exists but errs) is reported and fails the test. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { SKIP = 77, CUDA_ERROR_NO_DEVICE = 100 };

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rt_gpu_launch PROGRAM [ARGS...]\n");
        return 2;
    }
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
        printf("SKIP: no NVIDIA driver (libcuda.so.1 does not open)\n");
        return SKIP;
    }
    typedef int (*init_fn)(unsigned int);
    typedef int (*count_fn)(int *);
    const init_fn cu_init = (init_fn)dlsym(driver, "cuInit");
    const count_fn cu_count = (count_fn)dlsym(driver, "cuDeviceGetCount");
    if (!cu_init || !cu_count) {
        fprintf(stderr, "FAIL: libcuda.so.1 lacks cuInit or cuDeviceGetCount\n");
        return 1;
    }
    const int rc = cu_init(0);
    if (rc == CUDA_ERROR_NO_DEVICE) {
        printf("SKIP: the NVIDIA driver reports no CUDA device\n");
        return SKIP;
    }
    int count = 0;
    if (rc != 0 || cu_count(&count) != 0) {
        fprintf(stderr, "FAIL: the NVIDIA driver is there but does not initialise (cuInit %d)\n",
                rc);
        return 1;
    }
    if (count <= 0) {
        printf("SKIP: the NVIDIA driver reports no CUDA device\n");
        return SKIP;
    }
    /* The driver stays loaded: closing it only to have the program open it again gains nothing. */
    execv(argv[1], argv + 1);
    fprintf(stderr, "FAIL: cannot start %s: %s\n", argv[1], strerror(errno));
    return 1;
}
