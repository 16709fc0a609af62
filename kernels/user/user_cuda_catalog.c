#include "user_cuda_catalog.h"

#include "user_kernel.h"

static const rt_cuda_catalog_entry k_catalog[] = {
    {USER_ENGINE_KERNEL,
     "the CUDA side of every kernel spec (user_kernels:): compiles a user's source with NVRTC "
     "and launches it; run a spec's kernels, not this one",
     NULL, 0, USER_ENGINE_FAMILY},
};

const rt_cuda_catalog_entry *rt_user_cuda_catalog(int *n)
{
    *n = (int)(sizeof k_catalog / sizeof k_catalog[0]);
    return k_catalog;
}
