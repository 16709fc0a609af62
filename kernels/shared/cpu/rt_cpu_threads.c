#include "rt_cpu_threads.h"

#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

int rt_cpu_available_cores(const rt_kernel_env *env)
{
    if (env && env->device && env->device->sm_count > 0 && strcmp(env->device->backend, "cpu") == 0)
        return env->device->sm_count;
    const int procs = omp_get_num_procs();
    return procs > 0 ? procs : 1;
}

int rt_cpu_resolve_threads(int64_t requested, const rt_kernel_env *env, int *team, char *why,
                           size_t whylen)
{
    const int cores = rt_cpu_available_cores(env);
    if (requested <= 0) {
        *team = cores;
        return 0;
    }
    if (requested > (int64_t)cores * RT_CPU_OVERSUBSCRIBE) {
        snprintf(why, whylen,
                 "threads = %" PRId64 " oversubscribes the %d available cores more than %dx",
                 requested, cores, RT_CPU_OVERSUBSCRIBE);
        return RT_INFEASIBLE;
    }
    *team = (int)requested;
    return 0;
}

int rt_cpu_team_size(int team)
{
    int started = 1;
#pragma omp parallel num_threads(team)
    {
#pragma omp master
        started = omp_get_num_threads();
    }
    return started;
}
