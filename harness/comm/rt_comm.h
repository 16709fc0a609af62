/* rt_comm: the MPI layer of rooftune — the job's topology as communicators per level, the
 * collectives the runner times with, failure agreement, and per-tier traffic counters that
 * distributed kernels feed.
 *
 * Levels. Every rank belongs to one node and one socket of that node:
 *   world  - every rank (a duplicate of MPI_COMM_WORLD, so library traffic never matches a user's)
 *   node   - the ranks of my (possibly emulated) node, ordered by world rank
 *   socket - the ranks of my socket within my node
 *   peers  - the ranks with my local (node) rank on every node, ordered by node id; the partners of
 *            a hierarchical reduction's inter-node stage
 * Node ids count nodes in the order of their lowest world rank; socket ids count within a node.
 *
 * Emulation. ranks_per_node > 0 makes one host stand in for several nodes: node id =
 * world_rank / ranks_per_node. ranks_per_socket > 0 likewise: socket id = local_rank /
 * ranks_per_socket. With 0, the node comes from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and the
 * socket from hwloc (the package that holds this process's CPU binding; an unbound process, or a
 * build without hwloc, sees its node as one socket).
 *
 * Alone. A process that no MPI launcher started (rt_comm_launched) is a job of one rank, and it
 * need not start MPI to know it: an Open MPI singleton's MPI_Init took 1.5-2.1 s on the 4 x H200
 * host (it starts a daemon; under mpirun a rank's took 0.5 s), a fixed cost of every run and of
 * every worker process of parallel tuning, most of which never use MPI. rt_comm_create_alone
 * makes that job without MPI: its collectives are local, and MPI starts the first time a caller
 * asks for a communicator (rt_comm_mpi, rt_comm_start: a distributed kernel, a window), over a
 * world that must then be this process alone.
 *
 * Errors. Communicators created here return MPI errors instead of aborting, so every collective
 * returns 0 / -1 and fills err with the MPI error text. rt_comm_all_ok is the exception: it is
 * called while err already holds a rank's own failure, so it takes no err (see below).
 *
 * Not thread-safe: one thread per rank drives an rt_comm, as MPI_THREAD_FUNNELED allows. */
#ifndef RT_COMM_H
#define RT_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "rt_error.h"
#include "rt_registry.h" /* rt_net_tier: RT_TIER_SOCKET, RT_TIER_NODE, RT_TIER_GLOBAL */

typedef struct rt_comm rt_comm;

typedef enum rt_comm_level {
    RT_COMM_WORLD = 0,
    RT_COMM_NODE = 1,
    RT_COMM_SOCKET = 2,
    RT_COMM_PEERS = 3,
    RT_COMM_LEVEL_COUNT = 4
} rt_comm_level;

typedef struct rt_comm_opts {
    int ranks_per_node;   /* 0: the real node (shared-memory domain); > 0: emulate */
    int ranks_per_socket; /* 0: the real socket (hwloc) or one per node; > 0: emulate */
} rt_comm_opts;

/* Builds the topology from MPI_COMM_WORLD. Collective over MPI_COMM_WORLD: every rank must call it
 * with the same options (they are checked against rank 0's; a mismatch fails on every rank).
 * MPI must be initialised. opts may be NULL (both 0). ranks_per_node must divide the number of
 * ranks, so every emulated node is full. */
int rt_comm_create(const rt_comm_opts *opts, rt_comm **out, rt_err *err);
/* A job of this rank alone (over MPI_COMM_SELF): one node, one socket. Parallel tuning measures
 * each point on one rank with it, while the job's own rt_comm carries the work between ranks.
 * Not collective. Before MPI_Init it is made alone (above): MPI starts only if a caller asks for
 * one of its communicators. */
int rt_comm_create_self(rt_comm **out, rt_err *err);
/* 1 when an MPI launcher started this process: one of the variables mpirun (Open MPI), Hydra
 * (MPICH, Intel MPI), mpirun_rsh (MVAPICH) or srun with PMI-2 or PMIx set in each process it
 * starts (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK, PMI_SIZE, PMI_FD, MPI_LOCALNRANKS,
 * MV2_COMM_WORLD_SIZE) is in the environment. */
int rt_comm_launched(void);
/* The job of a process no launcher started, made without MPI (see Alone above): one rank, one
 * node, one socket (opts as for rt_comm_create: emulation options of one rank; negative ones
 * refused). Needs no MPI_Init; MPI may be initialised already. */
int rt_comm_create_alone(const rt_comm_opts *opts, rt_comm **out, rt_err *err);
/* Starts MPI for a job made alone (MPI_Init unless MPI is initialised, then the communicators over
 * MPI_COMM_WORLD, or MPI_COMM_SELF for a self job): the first rt_comm_mpi does it, a caller that
 * can report a failure calls it first. Fails when MPI then finds more than one rank (a launcher
 * whose variables rt_comm_launched does not know: every rank ran alone so far) or was finalised.
 * 0 at once for a job made under MPI, or one already started. */
int rt_comm_start(rt_comm *comm, rt_err *err);
/* 1 when comm has MPI communicators (made under MPI, or alone and started since). */
int rt_comm_mpi_started(const rt_comm *comm);
/* 1 with the epoch times (rt_clock_epoch) around MPI_Init when comm's start ran it, else 0. */
int rt_comm_init_times(const rt_comm *comm, double *begin, double *end);
/* MPI_Finalize when MPI was initialised (here, by a late start, or by the caller) and is not
 * finalised yet; nothing otherwise. The end of every program that may have started MPI. */
void rt_comm_mpi_end(void);
/* Frees the communicators; call before MPI_Finalize. Collective (MPI_Comm_free). NULL is fine. */
void rt_comm_free(rt_comm *comm);

/* Rank and size at a level (world, node, socket, peers). */
int rt_comm_rank(const rt_comm *comm, rt_comm_level level);
int rt_comm_size(const rt_comm *comm, rt_comm_level level);
int rt_comm_world_rank(const rt_comm *comm);
int rt_comm_world_size(const rt_comm *comm);
/* The MPI communicator of a level, for distributed kernels. Owned by comm: do not free. A job
 * made alone starts MPI here (rt_comm_start); MPI_COMM_NULL when that fails (the reason in
 * rt_comm_last_error) or for an unknown level. */
MPI_Comm rt_comm_mpi(rt_comm *comm, rt_comm_level level);

int rt_comm_node_id(const rt_comm *comm);   /* 0 .. n_nodes-1 */
int rt_comm_socket_id(const rt_comm *comm); /* 0 .. sockets on my node - 1 */
int rt_comm_n_nodes(const rt_comm *comm);
/* Node id and socket id of any world rank; -1 when the rank is out of range. */
int rt_comm_node_of(const rt_comm *comm, int world_rank);
int rt_comm_socket_of(const rt_comm *comm, int world_rank);
int rt_comm_is_emulated(const rt_comm *comm); /* 1 when ranks_per_node was given */

/* The network tier between this rank and another world rank: RT_TIER_SOCKET (same socket, also
 * for itself), RT_TIER_NODE (same node, other socket) or RT_TIER_GLOBAL (other node); -1 when
 * other_rank is out of range. */
int rt_comm_tier_of(const rt_comm *comm, int other_rank);

/* One line, e.g. "4 ranks: 2 nodes x 2 ranks/node (emulated), 1 socket/node (hwloc)".
 * Same on every rank. Returns the length written (snprintf semantics). */
int rt_comm_describe(const rt_comm *comm, char *buf, size_t len);

/* MPI_Get_library_version, first line, trailing whitespace removed. May be called before MPI_Init.
 * Returns 0, or -1 with "unknown" written. */
int rt_comm_library_version(char *buf, size_t len);

/* --- Collectives over world ----------------------------------------------------------------- */
int rt_comm_barrier(rt_comm *comm, rt_err *err);
int rt_comm_max_double(rt_comm *comm, double local, double *out, rt_err *err);
int rt_comm_min_double(rt_comm *comm, double local, double *out, rt_err *err);
int rt_comm_sum_double(rt_comm *comm, double local, double *out, rt_err *err);
/* max, min and mean of one value per rank in a single reduction: a sample's time is the max over
 * ranks (the job is as slow as its slowest rank); min and mean show the imbalance. */
int rt_comm_time_reduce(rt_comm *comm, double local, double *max, double *min, double *avg,
                        rt_err *err);
/* Element-wise max over ranks of n values (in place), for batches of samples. */
int rt_comm_max_doubles(rt_comm *comm, double *values, int n, rt_err *err);

int rt_comm_bcast_int(rt_comm *comm, int *value, int root, rt_err *err);
int rt_comm_bcast_double(rt_comm *comm, double *value, int root, rt_err *err);
/* Any size (sent in pieces below INT_MAX bytes). */
int rt_comm_bcast_bytes(rt_comm *comm, void *data, size_t bytes, int root, rt_err *err);

/* Failure agreement: every rank says whether it succeeded; *all_ok is 1 only when all did, and
 * *first_failed_rank is the lowest world rank that failed (-1 when none). Call it after any step
 * that can fail on some ranks only, so no rank waits forever in a collective that a failed rank
 * never enters. all_ok may point to the same int as the one passed as local_ok. Takes no rt_err
 * because the caller's err usually holds the local failure it is about to report; on an MPI
 * failure it returns -1, sets *all_ok = 0 and keeps the MPI text for rt_comm_last_error. */
int rt_comm_all_ok(rt_comm *comm, int local_ok, int *all_ok, int *first_failed_rank);
/* As rt_comm_all_ok, and every rank also receives the first failed rank's message (local_msg of
 * that rank; may be NULL on ranks that succeeded) in msg_out, so every rank can report the cause.
 */
int rt_comm_all_ok_msg(rt_comm *comm, int local_ok, const char *local_msg, int *all_ok,
                       int *first_failed_rank, char *msg_out, size_t msg_len);
/* Outcome agreement for a step that returns 0, RT_INFEASIBLE or an error (negative) and that
 * other ranks depend on (a setup that exchanges handles): every rank learns the worst outcome (an
 * error over an infeasible point) and returns it -- 0, RT_INFEASIBLE or -1 -- so none waits for a
 * rank that gave up. The rank that had the worst outcome first (lowest rank) keeps its own err; the
 * others' err becomes "rank N: <its message>" (infeasible) or "rank N failed in the STEP: <its
 * message>" (error). `what` names the caller in the messages of a failed agreement. */
int rt_comm_agree_outcome(rt_comm *comm, int rc, const char *what, const char *step, rt_err *err);
/* The MPI error text of the last failed call that had no err to fill ("" when none). */
const char *rt_comm_last_error(const rt_comm *comm);

/* --- Traffic counters ----------------------------------------------------------------------- */
/* Distributed kernels add what they send per tier; the runner reads and resets around each
 * point. Local to the rank (no communication). Fails on an unknown tier or negative amounts. */
int rt_comm_count(rt_comm *comm, rt_net_tier tier, int64_t bytes, int64_t messages, rt_err *err);
/* Adds bytes and one message to the tier between this rank and dest (world rank). */
int rt_comm_count_to(rt_comm *comm, int dest_world_rank, int64_t bytes, rt_err *err);
void rt_comm_counters_read(const rt_comm *comm, int64_t bytes[RT_TIER_COUNT],
                           int64_t messages[RT_TIER_COUNT]);
void rt_comm_counters_reset(rt_comm *comm);
/* Max over ranks of each counter (the busiest rank's traffic, which is what traffic models give)
 * and the sum (total volume). Collective; any output may be NULL. */
int rt_comm_counters_reduce(rt_comm *comm, int64_t max_bytes[RT_TIER_COUNT],
                            int64_t max_messages[RT_TIER_COUNT], int64_t sum_bytes[RT_TIER_COUNT],
                            int64_t sum_messages[RT_TIER_COUNT], rt_err *err);

/* One-sided communication (MPI-3 RMA windows, request-based gets, fetch-and-add, accumulate) is in
 * rt_comm_rma.h; it feeds the same per-tier counters through rt_comm_count_to. */

#endif
