/* probe_test_world: how the MPI probe tests start (after rt_test.h): MPI and the communication
 * layer with the emulated topology, and the network tier the test expects its partner in. */
#ifndef PROBE_TEST_WORLD_H
#define PROBE_TEST_WORLD_H

#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "rt_comm.h"
#include "rt_machine.h"

/* MPI_Init(argc, argv), then the layer with rpn ranks per node and rps per socket; NULL (said on
 * stderr, MPI finalized) when it cannot be made. */
static inline rt_comm *probe_test_comm(int *argc, char ***argv, int rpn, int rps)
{
    MPI_Init(argc, argv);
    rt_err err;
    rt_comm_opts co = {rpn, rps};
    rt_comm *comm = NULL;
    if (rt_comm_create(&co, &comm, &err) != 0) {
        fprintf(stderr, "rt_comm_create: %s\n", err.msg);
        MPI_Finalize();
        return NULL;
    }
    return comm;
}

/* The tier called name (a failed check and -1 when there is none). */
static inline int probe_test_tier(const char *name)
{
    int want = -1;
    for (int t = 0; t < RT_TIER_COUNT; ++t)
        if (strcmp(name, rt_machine_tier_name((rt_net_tier)t)) == 0)
            want = t;
    RT_CHECK(want >= 0);
    return want;
}

#endif
