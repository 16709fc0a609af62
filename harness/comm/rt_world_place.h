/* This process's place in the MPI job, for code that has no rt_comm (a family's make_inputs and
 * footprint hooks): the harness's world communicator duplicates MPI_COMM_WORLD, so the ranks agree.
 */
#ifndef RT_WORLD_PLACE_H
#define RT_WORLD_PLACE_H

/* This process's place in the job that measures the current point: the place the runner declared
 * with rt_world_place_declare (a rank that measures whole points alone, search.parallel: ranks, is
 * rank 0 of a one-rank job: its inputs hold the whole problem, not a 1/N share), else the rank and
 * size of MPI_COMM_WORLD; 0 of 1 when MPI is not initialised or already finalised (a job without
 * MPI is one rank). */
void rt_world_place(int *rank, int *nranks);

/* The runner's declaration of the job its points are measured with (rank of nranks), kept until
 * the next declaration; nranks 0 withdraws it (MPI_COMM_WORLD again). One declaration a process:
 * the families' make_inputs and footprint hooks have no communicator of their own. */
void rt_world_place_declare(int rank, int nranks);

#endif
