/* rt_cli_oversub: warns when the ranks on this host times their OpenMP threads exceed its cores,
 * where every timing is slowed by time-sharing (4 ranks x 2 threads on 2 cores ran 300x slower,
 * silently), and when a rank was bound to fewer cores than its share. */
#ifndef RT_CLI_OVERSUB_H
#define RT_CLI_OVERSUB_H

#include <stdio.h>

struct rt_comm;
/* Collective over the job's world (comm; a job without MPI is its process alone). Rank 0 of each
 * host prints the warning to log when ranks_on_host x threads > cores; threads come from
 * OMP_NUM_THREADS (its first number), or are the cores themselves when it is unset (OpenMP's
 * default). It also warns when its own affinity mask holds fewer cores than its share of the host
 * (the launcher bound it tighter: one core where 32 were its share). Returns 1 when it warned here.
 */
int rt_cli_oversub_warn(struct rt_comm *comm, FILE *log);

#endif
