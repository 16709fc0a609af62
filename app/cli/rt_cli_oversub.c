#define _GNU_SOURCE
#include "rt_cli_oversub.h"

#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

/* Cores this process may run on (its affinity mask), else the online ones. */
static long usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? online : 1;
}

int rt_cli_oversub_warn(FILE *log)
{
    MPI_Comm host;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) !=
        MPI_SUCCESS)
        return 0;
    int ranks = 1, me = 0;
    MPI_Comm_size(host, &ranks);
    MPI_Comm_rank(host, &me);
    MPI_Comm_free(&host);
    const long cores = usable_cores();
    long threads = cores;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env) {
        char *end = NULL;
        const long t = strtol(env, &end, 10);
        if (end != env && t > 0)
            threads = t;
    }
    if (me != 0 || (long)ranks * threads <= cores)
        return 0;
    if (log)
        fprintf(log,
                "  warning: %d rank(s) x %ld thread(s) on this host exceed its %ld usable core(s): "
                "every timing is slowed by oversubscription (set OMP_NUM_THREADS to cores / "
                "ranks, or run fewer ranks)\n",
                ranks, threads, cores);
    return 1;
}
