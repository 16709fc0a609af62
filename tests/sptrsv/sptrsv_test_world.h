/* sptrsv_test_world: the start and the end of the sptrsv tests that run as MPI ranks (after
 * rt_test_mpi.h): MPI and the communication layer up, argv[1] the ranks per node (0: one node);
 * at the end every rank's failed checks summed, so that all ranks exit alike. */
#ifndef SPTRSV_TEST_WORLD_H
#define SPTRSV_TEST_WORLD_H

#include <stdio.h>
#include <stdlib.h>

#include <math.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_generators.h"
#include "sptrsv_family.h"

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

/* One case's data on this rank: the Laplacian of `stencil` points on an nx grid, its sptrsv
 * inputs, and room for this rank's m = rows x nrhs values of X and of the reference. */
typedef struct sptrsv_test_case {
    rt_csr a;
    rt_sptrsv_inputs *in;
    int64_t m;
    double *x, *ref;
} sptrsv_test_case;

/* Builds the case (AMD ordering, supernodes capped at cap, right-hand sides from seed) for this
 * rank of P; -1, the failure counted and nothing left to free, when it cannot. */
static inline int sptrsv_test_case_make(sptrsv_test_case *c, int stencil, int nx, int64_t nrhs,
                                        int64_t cap, uint64_t seed, int P)
{
    rt_params args;
    rt_params_init(&args);
    rt_err err;
    rt_params_set(&args, "stencil", rt_value_int(stencil), &err);
    rt_params_set(&args, "nx", rt_value_int(nx), &err);
    c->in = NULL;
    if (rt_matrix_build("laplacian", &args, NULL, NULL, &c->a, &err) != 0) {
        RT_MPI_CHECK_MSG(0, "%s", err.msg);
        return -1;
    }
    if (rt_sptrsv_inputs_create(&c->a, nrhs, SPTRSV_ORDER_AMD, cap, seed, rt_mpi_rank, P, &c->in,
                                &err) != 0) {
        RT_MPI_CHECK_MSG(0, "%s", err.msg);
        rt_csr_free(&c->a);
        return -1;
    }
    c->m = (c->in->row1 - c->in->row0) * nrhs;
    c->x = malloc((size_t)(c->m > 0 ? c->m : 1) * sizeof *c->x);
    c->ref = malloc((size_t)(c->m > 0 ? c->m : 1) * sizeof *c->ref);
    return 0;
}

static inline void sptrsv_test_case_free(sptrsv_test_case *c)
{
    free(c->x);
    free(c->ref);
    rt_sptrsv_inputs_destroy(c->in);
    rt_csr_free(&c->a);
}

/* The relative error of X against the reference over all ranks' rows (normwise). */
static inline double sptrsv_test_case_error(const sptrsv_test_case *c)
{
    double loc[2] = {0.0, 0.0}, g[2];
    for (int64_t i = 0; i < c->m; ++i) {
        loc[0] += (c->x[i] - c->ref[i]) * (c->x[i] - c->ref[i]);
        loc[1] += c->ref[i] * c->ref[i];
    }
    MPI_Allreduce(loc, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sqrt(g[0] / g[1]);
}

#endif
