#include "rt_world_place.h"

#include <mpi.h>

/* The job the runner measures with (nranks 0: none declared). Process-wide on purpose: a family's
 * hooks are called from the runner's one thread, and threading a communicator through every
 * family's make_inputs and footprint would change eight families for this one fact. */
static struct {
    int rank, nranks;
} g_declared;

void rt_world_place_declare(int rank, int nranks)
{
    g_declared.rank = nranks > 0 ? rank : 0;
    g_declared.nranks = nranks > 0 ? nranks : 0;
}

void rt_world_place(int *rank, int *nranks)
{
    if (g_declared.nranks > 0) {
        *rank = g_declared.rank;
        *nranks = g_declared.nranks;
        return;
    }
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    *rank = 0;
    *nranks = 1;
    if (initialized && !finalized) {
        MPI_Comm_rank(MPI_COMM_WORLD, rank);
        MPI_Comm_size(MPI_COMM_WORLD, nranks);
    }
}
