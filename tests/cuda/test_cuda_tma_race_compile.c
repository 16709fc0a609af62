/* Issue 34's racecheck control kernel (tests/cuda/tma_race_control.cu) through NVRTC for compute
 * capability 9.0 in each of its modes, without a GPU: the GPU run (test_cuda_tma_race, and the
 * sanitize stage of ci/gpu-hopper.sh) happens on another host, so a mode that does not compile
 * should fail here first. Also the mode names the driver and the CI script use. */
#include <stdio.h>
#include <string.h>

#include "rt_test.h"
#include "rt_tma_race.h"

int main(void)
{
    for (int m = 0; m < RT_TMA_RACE_NMODES; ++m) {
        const char *name = rt_tma_race_mode_name(m);
        rt_tma_race_mode parsed;
        rt_err err;
        RT_CHECK(name != NULL && rt_tma_race_mode_parse(name, &parsed, &err) == 0 &&
                 (int)parsed == m);
        rt_cuda_image img;
        const int rc = rt_tma_race_compile((rt_tma_race_mode)m, 9, 0, &img, &err);
        RT_CHECK_MSG(rc == 0, "%s", err.msg);
        if (rc == 0) {
            RT_CHECK(img.size > 0 && !img.is_ptx && strcmp(img.arch, "sm_90") == 0);
            printf("tma_race_control mode %s: %zu bytes of %s\n", name, img.size, img.arch);
            rt_cuda_image_free(&img);
        }
    }
    rt_tma_race_mode parsed;
    rt_err err;
    RT_CHECK(rt_tma_race_mode_parse("racy", &parsed, &err) != 0 &&
             rt_test_contains(err.msg, "generic_sync"));
    RT_CHECK(rt_tma_race_mode_name(RT_TMA_RACE_NMODES) == NULL);
    return RT_TEST_RESULT();
}
