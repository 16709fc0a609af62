/* rt_test_mpi: the check macros of the test programs that run as several MPI ranks. A failed
 * check prints its rank, file:line and condition (and a message with the _MSG form) and counts in
 * rt_mpi_failures; the program sums the counts over MPI_COMM_WORLD before it exits, so that every
 * rank exits alike. rt_mpi_rank is the world rank, set by the program after MPI_Init. */
#ifndef RT_TEST_MPI_H
#define RT_TEST_MPI_H

#include <stdio.h>

static int rt_mpi_failures = 0;
static int rt_mpi_rank = -1;

#define RT_MPI_CHECK(cond)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", rt_mpi_rank, __FILE__,          \
                    __LINE__, #cond);                                                              \
            ++rt_mpi_failures;                                                                     \
        }                                                                                          \
    } while (0)

#define RT_MPI_CHECK_MSG(cond, ...)                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", rt_mpi_rank, __FILE__,          \
                    __LINE__, #cond);                                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            ++rt_mpi_failures;                                                                     \
        }                                                                                          \
    } while (0)

#endif
