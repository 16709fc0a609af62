/* rt_cpu_threads: what every CPU kernel shares about threads: how many cores a rank may use and
 * how a `threads` parameter resolves to an OpenMP team (oversubscription beyond a limit is
 * infeasible). */
#ifndef RT_CPU_THREADS_H
#define RT_CPU_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_registry.h"
#include "rt_tables.h"

/* A `threads` value above this many times the available cores is infeasible: oversubscribing
 * further only measures the OS scheduler, never the kernel. */
#define RT_CPU_OVERSUBSCRIBE 4

/* The `threads` schema entry of the CPU kernels whose team defaults to every available core. */
#define RT_CPU_PARAM_THREADS                                                                       \
    RT_PARAM_INT("threads", "0..1024", "0", "OpenMP threads, 0 = every available core")

/* Cores this rank may use: the device's sm_count when the harness filled it (the CPU backend puts
 * the cores bound to the rank there), else what OpenMP reports. At least 1. */
int rt_cpu_available_cores(const rt_kernel_env *env);

/* Resolves `threads` (0 = every available core) into a team size, or returns RT_INFEASIBLE with
 * why filled when it oversubscribes beyond RT_CPU_OVERSUBSCRIBE x the available cores. */
int rt_cpu_resolve_threads(int64_t requested, const rt_kernel_env *env, int *team, char *why,
                           size_t whylen);

/* The size of the team OpenMP actually starts when asked for `team` threads (it may give fewer
 * when dynamic adjustment or a thread limit is in force). */
int rt_cpu_team_size(int team);

#endif
