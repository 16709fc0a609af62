/* rt_cli_oversub: warns when the ranks on this host times their OpenMP threads exceed its cores,
 * where every timing is slowed by time-sharing (4 ranks x 2 threads on 2 cores ran 300x slower,
 * silently). */
#ifndef RT_CLI_OVERSUB_H
#define RT_CLI_OVERSUB_H

#include <stdio.h>

/* Collective over MPI_COMM_WORLD. Rank 0 of each host prints the warning to log when
 * ranks_on_host x threads > cores; threads come from OMP_NUM_THREADS (its first number), or are
 * the cores themselves when it is unset (OpenMP's default). Returns 1 when it warned here. */
int rt_cli_oversub_warn(FILE *log);

#endif
