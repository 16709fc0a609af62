/* The energy counter through NVML (rt_cuda_nvml.h) on any machine: a stand-in libnvidia-ml
 * (fake_libnvml.c) gives a device whose counter advances 1.5 J per read; a library that cannot be
 * opened, one without NVML's entry points (libm) and a bus id with no device each fail with a
 * reason that says which.
 *   test_cuda_nvml <fake libnvidia-ml path> */
#include <stdio.h>
#include <string.h>

#include "rt_cuda_nvml.h"
#include "rt_test.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_cuda_nvml FAKE_LIBNVML\n");
        return 2;
    }
    char why[256] = "";
    rt_cuda_nvml *n = NULL;
    RT_CHECK(rt_cuda_nvml_open("/nonexistent/libnvidia-ml.so.1", "0000:01:00.0", &n, why,
                               sizeof why) == -1 &&
             !n);
    RT_CHECK_MSG(strstr(why, "cannot be opened") && strstr(why, "/nonexistent"), "%s", why);
    RT_CHECK(rt_cuda_nvml_open("libm.so.6", "0000:01:00.0", &n, why, sizeof why) == -1 && !n);
    RT_CHECK_MSG(strstr(why, "lacks nvmlInit_v2"), "%s", why);
    RT_CHECK(rt_cuda_nvml_open(argv[1], "0000:02:00.0", &n, why, sizeof why) == -1 && !n);
    RT_CHECK_MSG(strstr(why, "no device at PCI bus id 0000:02:00.0: Not Found"), "%s", why);

    RT_CHECK_MSG(rt_cuda_nvml_open(argv[1], "0000:01:00.0", &n, why, sizeof why) == 0 && n, "%s",
                 why);
    double e0 = 0, e1 = 0;
    RT_CHECK(rt_cuda_nvml_energy(n, &e0, why, sizeof why) == 0);
    RT_CHECK(rt_cuda_nvml_energy(n, &e1, why, sizeof why) == 0);
    RT_CHECK_MSG(e1 - e0 > 1.4999 && e1 - e0 < 1.5001, "%.6f J then %.6f J", e0, e1);
    rt_cuda_nvml_close(n);
    rt_cuda_nvml_close(NULL);
    return RT_TEST_RESULT();
}
