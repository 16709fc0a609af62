/* This process's place in the MPI job, for code that has no rt_comm (a family's make_inputs and
 * footprint hooks): the harness's world communicator duplicates MPI_COMM_WORLD, so the ranks agree.
 */
#ifndef RT_WORLD_PLACE_H
#define RT_WORLD_PLACE_H

/* Rank and size of MPI_COMM_WORLD; 0 of 1 when MPI is not initialised or already finalised (a job
 * without MPI is one rank). */
void rt_world_place(int *rank, int *nranks);

#endif
