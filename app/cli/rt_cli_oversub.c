#define _GNU_SOURCE
#include "rt_cli_oversub.h"

#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt_comm.h"

/* Cores this process may run on (its affinity mask), else the online ones. */
static long usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? online : 1;
}

int rt_cli_oversub_warn(struct rt_comm *comm, FILE *log)
{
    /* The ranks on this host (the real one: a node of --ranks-per-node may be less), or this
     * process alone when it runs without MPI. */
    int ranks = 1, me = 0;
    if (rt_comm_mpi_started(comm)) {
        MPI_Comm host;
        if (MPI_Comm_split_type(rt_comm_mpi(comm, RT_COMM_WORLD), MPI_COMM_TYPE_SHARED, 0,
                                MPI_INFO_NULL, &host) != MPI_SUCCESS)
            return 0;
        MPI_Comm_size(host, &ranks);
        MPI_Comm_rank(host, &me);
        MPI_Comm_free(&host);
    }
    const long cores = usable_cores();
    long threads = cores;
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env) {
        char *end = NULL;
        const long t = strtol(env, &end, 10);
        if (end != env && t > 0)
            threads = t;
    }
    if (me != 0)
        return 0;
    /* A rank bound to fewer cores than its share of the host: Open MPI binds each rank to one
     * core by default (two ranks or fewer), which leaves a GPU rank's host work (plans, NVRTC
     * compiles, references) one core of 64; parallel tuning on 2 ranks of the 4 x H200 host ran
     * 1.07x faster than one GPU, where worker processes ran 1.91x. */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const long share = online > 0 ? online / ranks : 0;
    if (share >= 2 && cores < share && log)
        fprintf(log,
                "  warning: this rank may run on %ld of the host's %ld cores (its share: %ld): "
                "the launcher bound it (Open MPI binds each rank to a core by default: "
                "mpirun --bind-to none, or --map-by slot:PE=%ld)\n",
                cores, online, share, share);
    if ((long)ranks * threads <= cores)
        return share >= 2 && cores < share;
    if (log)
        fprintf(log,
                "  warning: %d rank(s) x %ld thread(s) on this host exceed its %ld usable core(s): "
                "every timing is slowed by oversubscription (set OMP_NUM_THREADS to cores / "
                "ranks, or run fewer ranks)\n",
                ranks, threads, cores);
    return 1;
}
