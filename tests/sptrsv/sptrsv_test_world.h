/* sptrsv_test_world: the start and the end of the sptrsv tests that run as MPI ranks (after
 * rt_test_mpi.h): MPI and the communication layer up, argv[1] the ranks per node (0: one node);
 * at the end every rank's failed checks summed, so that all ranks exit alike. */
#ifndef SPTRSV_TEST_WORLD_H
#define SPTRSV_TEST_WORLD_H

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "rt_comm.h"

/* MPI_Init, rt_mpi_rank and *P set, and the communication layer; aborts the job when it fails. */
static inline rt_comm *sptrsv_test_world_begin(int *argc, char ***argv, int *P)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_mpi_rank);
    *P = 1;
    MPI_Comm_size(MPI_COMM_WORLD, P);
    rt_comm_opts opts = {.ranks_per_node = *argc > 1 ? atoi((*argv)[1]) : 0};
    rt_comm *comm = NULL;
    rt_err err;
    if (rt_comm_create(&opts, &comm, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return comm;
}

/* The failed checks of all ranks, then the layer and MPI closed; rank 0 says how `what` went on
 * P ranks. Returns the exit status. */
static inline int sptrsv_test_world_end(rt_comm *comm, const char *what, int P)
{
    int total = 0;
    MPI_Allreduce(&rt_mpi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    rt_comm_free(comm);
    MPI_Finalize();
    if (rt_mpi_rank == 0)
        printf("%s np %d: %s (%d failed checks)\n", what, P, total ? "FAILED" : "ok", total);
    return total ? 1 : 0;
}

#endif
