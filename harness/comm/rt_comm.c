#include "rt_comm.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RT_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "rt_clock.h"
#include "rt_registry.h"

/* Where the socket ids came from; drives the topology description. */
typedef enum socket_source {
    SOCKET_EMULATED = 0,
    SOCKET_HWLOC = 1,
    SOCKET_HWLOC_UNBOUND = 2,
    SOCKET_NO_HWLOC = 3
} socket_source;

struct rt_comm {
    MPI_Comm level[RT_COMM_LEVEL_COUNT];
    int rank[RT_COMM_LEVEL_COUNT];
    int size[RT_COMM_LEVEL_COUNT];
    int node_id, socket_id, n_nodes;
    int emulated_nodes;
    socket_source socket_src; /* rank 0's, so the description is the same everywhere */
    int *node_of;             /* per world rank */
    int *socket_of;           /* per world rank */
    int64_t bytes[RT_TIER_COUNT];
    int64_t messages[RT_TIER_COUNT];
    char last_error[RT_ERR_MSG_MAX];
    /* A job of this process alone, made without MPI (rt_comm_create_alone, or _self before
     * MPI_Init): its collectives are local, and MPI starts when a caller asks for a communicator
     * (rt_comm_start), over `base` with `opts`. */
    int alone, started;
    int base_self; /* 1: over MPI_COMM_SELF, 0: over MPI_COMM_WORLD */
    rt_comm_opts opts;
    double init_begin, init_end; /* when its start ran MPI_Init (NAN: it did not) */
};

static int mpi_fail(rt_err *err, int rc, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "MPI error code %d", rc);
    return rt_err_set(err, "%s failed: %s", what, text);
}

/* Lowest world rank of my shared-memory domain: the name of my real node. */
static int real_node_leader(MPI_Comm world, int world_rank, int *leader, rt_err *err)
{
    MPI_Comm shm = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    MPI_Comm_set_errhandler(shm, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(&world_rank, leader, 1, MPI_INT, MPI_MIN, shm);
    MPI_Comm_free(&shm);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "finding the node leader (MPI_Allreduce)");
    return 0;
}

/* The package (socket) that holds this process's binding, or 0 with *src = unbound when the binding
 * spans several packages (or cannot be read): such a process has no socket of its own. */
static int raw_socket_from_hwloc(socket_source *src)
{
#ifdef RT_HAVE_HWLOC
    hwloc_topology_t topo;
    *src = SOCKET_HWLOC_UNBOUND;
    if (hwloc_topology_init(&topo) != 0)
        return 0;
    int package = 0;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            const int npk = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
            int hits = 0, found = 0;
            for (int i = 0; i < npk; ++i) {
                hwloc_obj_t pk = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
                if (pk && hwloc_bitmap_intersects(pk->cpuset, set)) {
                    ++hits;
                    found = i;
                }
            }
            if (hits == 1 && npk > 1) {
                package = found;
                *src = SOCKET_HWLOC;
            } else if (hits == 1 || npk <= 1) {
                /* A single-package machine: every rank is on socket 0, bound or not. */
                *src = SOCKET_HWLOC;
            }
        }
        if (set)
            hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return package;
#else
    *src = SOCKET_NO_HWLOC;
    return 0;
#endif
}

/* Renumbers raw ids (gathered over a communicator) densely in ascending order: the socket ids of a
 * node are then 0..k-1 whatever package numbers the hardware uses. */
static int dense_id(const int *raw, int n, int mine)
{
    int below = 0;
    for (int i = 0; i < n; ++i) {
        if (raw[i] >= mine)
            continue;
        int seen_before = 0;
        for (int j = 0; j < i; ++j)
            if (raw[j] == raw[i]) {
                seen_before = 1;
                break;
            }
        if (!seen_before)
            ++below;
    }
    return below;
}

static int count_distinct(const int *v, int n)
{
    int distinct = 0;
    for (int i = 0; i < n; ++i) {
        int seen_before = 0;
        for (int j = 0; j < i; ++j)
            if (v[j] == v[i]) {
                seen_before = 1;
                break;
            }
        distinct += !seen_before;
    }
    return distinct;
}

/* Every rank must take the same decision, so local validation results are agreed on before use.
 * Returns 0 when every rank is fine, 1 when some rank is not (err untouched: the caller says why),
 * -1 when the agreement itself failed (err filled). */
static int agree(MPI_Comm world, int local_ok, rt_err *err)
{
    int all_ok = 0;
    const int rc = MPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Allreduce (agreeing on the topology)");
    return all_ok ? 0 : 1;
}

static int check_opts(const rt_comm_opts *opts, rt_err *err)
{
    if (opts->ranks_per_node < 0 || opts->ranks_per_socket < 0)
        return rt_err_set(err,
                          "ranks_per_node (%d) and ranks_per_socket (%d) must be >= 0 "
                          "(0 = use the real topology)",
                          opts->ranks_per_node, opts->ranks_per_socket);
    return 0;
}

static int build(rt_comm *c, const rt_comm_opts *opts, rt_err *err)
{
    MPI_Comm world = c->level[RT_COMM_WORLD];
    const int wr = c->rank[RT_COMM_WORLD], ws = c->size[RT_COMM_WORLD];
    int rc;

    /* Options must be the same everywhere: compare with rank 0's. */
    int mine[2] = {opts->ranks_per_node, opts->ranks_per_socket};
    int root[2] = {mine[0], mine[1]};
    rc = MPI_Bcast(root, 2, MPI_INT, 0, world);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Bcast of the topology options");
    const int same = root[0] == mine[0] && root[1] == mine[1];
    rc = agree(world, same, err);
    if (rc < 0)
        return -1;
    if (rc > 0) {
        if (same)
            return rt_err_set(err,
                              "topology options differ between ranks (this rank and rank 0 "
                              "have ranks_per_node=%d ranks_per_socket=%d, another rank "
                              "differs); pass the same options to every rank",
                              mine[0], mine[1]);
        return rt_err_set(err,
                          "topology options differ between ranks (rank %d has ranks_per_node=%d "
                          "ranks_per_socket=%d, rank 0 has %d and %d); pass the same options to "
                          "every rank",
                          wr, mine[0], mine[1], root[0], root[1]);
    }
    const int rpn = opts->ranks_per_node, rps = opts->ranks_per_socket;
    if (check_opts(opts, err) != 0)
        return -1;
    if (rpn > 0 && rpn < ws && ws % rpn != 0)
        return rt_err_set(err,
                          "ranks_per_node = %d does not divide the %d ranks of the job: "
                          "emulated nodes must be full; use a divisor of %d or start %d ranks",
                          rpn, ws, ws, (ws / rpn + 1) * rpn);

    /* Node id. */
    int node_id;
    if (rpn > 0) {
        node_id = wr / rpn;
        c->emulated_nodes = 1;
    } else {
        int leader = 0;
        int ok = real_node_leader(world, wr, &leader, err) == 0;
        rc = agree(world, ok, err);
        if (rc != 0)
            return (rc > 0 && ok) ? rt_err_set(err, "another rank could not determine its node")
                                  : -1;
        int *leaders = malloc((size_t)ws * sizeof *leaders);
        rc = agree(world, leaders != NULL, err);
        if (rc != 0) {
            free(leaders);
            return rc > 0 ? rt_err_set(err, "out of memory for the topology of %d ranks", ws) : -1;
        }
        rc = MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, world);
        if (rc != MPI_SUCCESS) {
            free(leaders);
            return mpi_fail(err, rc, "MPI_Allgather of node leaders");
        }
        node_id = dense_id(leaders, ws, leader);
        free(leaders);
    }

    rc = MPI_Comm_split(world, node_id, wr, &c->level[RT_COMM_NODE]);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Comm_split (node communicator)");
    MPI_Comm_set_errhandler(c->level[RT_COMM_NODE], MPI_ERRORS_RETURN);
    MPI_Comm node = c->level[RT_COMM_NODE];
    MPI_Comm_rank(node, &c->rank[RT_COMM_NODE]);
    MPI_Comm_size(node, &c->size[RT_COMM_NODE]);
    const int local = c->rank[RT_COMM_NODE];

    /* Socket id within the node. */
    socket_source src = SOCKET_EMULATED;
    int raw_socket = rps > 0 ? local / rps : raw_socket_from_hwloc(&src);
    int *node_raw = malloc((size_t)c->size[RT_COMM_NODE] * sizeof *node_raw);
    rc = agree(world, node_raw != NULL, err);
    if (rc != 0) {
        free(node_raw);
        return rc > 0 ? rt_err_set(err, "out of memory for the socket map of %d ranks",
                                   c->size[RT_COMM_NODE])
                      : -1;
    }
    rc = MPI_Allgather(&raw_socket, 1, MPI_INT, node_raw, 1, MPI_INT, node);
    if (rc != MPI_SUCCESS) {
        free(node_raw);
        return mpi_fail(err, rc, "MPI_Allgather of socket ids");
    }
    const int socket_id = dense_id(node_raw, c->size[RT_COMM_NODE], raw_socket);
    free(node_raw);

    rc = MPI_Comm_split(node, socket_id, local, &c->level[RT_COMM_SOCKET]);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Comm_split (socket communicator)");
    MPI_Comm_set_errhandler(c->level[RT_COMM_SOCKET], MPI_ERRORS_RETURN);
    rc = MPI_Comm_split(world, local, node_id, &c->level[RT_COMM_PEERS]);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Comm_split (peers communicator)");
    MPI_Comm_set_errhandler(c->level[RT_COMM_PEERS], MPI_ERRORS_RETURN);
    for (int l = RT_COMM_SOCKET; l <= RT_COMM_PEERS; ++l) {
        MPI_Comm_rank(c->level[l], &c->rank[l]);
        MPI_Comm_size(c->level[l], &c->size[l]);
    }

    /* Everyone's node and socket, for tier_of and the description. */
    c->node_of = malloc((size_t)ws * sizeof *c->node_of);
    c->socket_of = malloc((size_t)ws * sizeof *c->socket_of);
    int *triples = malloc((size_t)ws * 3 * sizeof *triples);
    rc = agree(world, c->node_of && c->socket_of && triples, err);
    if (rc != 0) {
        free(triples);
        return rc > 0 ? rt_err_set(err, "out of memory for the rank map of %d ranks", ws) : -1;
    }
    const int mine3[3] = {node_id, socket_id, (int)src};
    rc = MPI_Allgather(mine3, 3, MPI_INT, triples, 3, MPI_INT, world);
    if (rc != MPI_SUCCESS) {
        free(triples);
        return mpi_fail(err, rc, "MPI_Allgather of the rank map");
    }
    for (int r = 0; r < ws; ++r) {
        c->node_of[r] = triples[3 * r];
        c->socket_of[r] = triples[3 * r + 1];
    }
    c->socket_src = (socket_source)triples[2];
    c->n_nodes = count_distinct(c->node_of, ws);
    free(triples);
    c->node_id = node_id;
    c->socket_id = socket_id;
    return 0;
}

/* The topology over a duplicate of base (MPI_COMM_WORLD or MPI_COMM_SELF). */
static int create_on(MPI_Comm base, const char *base_name, const rt_comm_opts *opts, rt_comm **out,
                     rt_err *err)
{
    *out = NULL;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return rt_err_set(err, "rt_comm_create needs MPI to be initialised (call MPI_Init first, "
                               "and not after MPI_Finalize)");
    const rt_comm_opts none = {0, 0};
    if (!opts)
        opts = &none;

    rt_comm *c = calloc(1, sizeof *c);
    if (!c)
        return rt_err_set(err, "out of memory for the communication layer");
    for (int l = 0; l < RT_COMM_LEVEL_COUNT; ++l)
        c->level[l] = MPI_COMM_NULL;
    const int rc = MPI_Comm_dup(base, &c->level[RT_COMM_WORLD]);
    if (rc != MPI_SUCCESS) {
        free(c);
        char what[64];
        snprintf(what, sizeof what, "MPI_Comm_dup(%s)", base_name);
        return mpi_fail(err, rc, what);
    }
    MPI_Comm_set_errhandler(c->level[RT_COMM_WORLD], MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->level[RT_COMM_WORLD], &c->rank[RT_COMM_WORLD]);
    MPI_Comm_size(c->level[RT_COMM_WORLD], &c->size[RT_COMM_WORLD]);
    if (build(c, opts, err) != 0) {
        rt_comm_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

int rt_comm_create(const rt_comm_opts *opts, rt_comm **out, rt_err *err)
{
    return create_on(MPI_COMM_WORLD, "MPI_COMM_WORLD", opts, out, err);
}

/* Open MPI's mpirun, the Hydra of MPICH and Intel MPI, MVAPICH's mpirun_rsh, srun with PMI-2 or
 * PMIx: each sets one of these in every process it starts. */
static const char *const launcher_marks[] = {
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",          "PMI_RANK", "PMI_SIZE", "PMI_FD",
    "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE"};
enum { N_LAUNCHER_MARKS = sizeof launcher_marks / sizeof launcher_marks[0] };

int rt_comm_launched(void)
{
    for (int i = 0; i < N_LAUNCHER_MARKS; ++i)
        if (getenv(launcher_marks[i]))
            return 1;
    return 0;
}

/* A job of this process alone without MPI: one rank, one node, one socket; hwloc says (for the
 * description) whether the process is bound to one socket, as build() does. */
static int create_alone(int base_self, const rt_comm_opts *opts, rt_comm **out, rt_err *err)
{
    *out = NULL;
    const rt_comm_opts none = {0, 0};
    if (!opts)
        opts = &none;
    if (check_opts(opts, err) != 0)
        return -1;
    rt_comm *c = calloc(1, sizeof *c);
    if (c) {
        c->node_of = calloc(1, sizeof *c->node_of);
        c->socket_of = calloc(1, sizeof *c->socket_of);
    }
    if (!c || !c->node_of || !c->socket_of) {
        rt_comm_free(c);
        return rt_err_set(err, "out of memory for the communication layer");
    }
    for (int l = 0; l < RT_COMM_LEVEL_COUNT; ++l) {
        c->level[l] = MPI_COMM_NULL;
        c->size[l] = 1;
    }
    c->alone = 1;
    c->base_self = base_self;
    c->opts = *opts;
    c->init_begin = c->init_end = NAN;
    c->n_nodes = 1;
    c->emulated_nodes = opts->ranks_per_node > 0;
    socket_source src = SOCKET_EMULATED;
    if (opts->ranks_per_socket <= 0)
        (void)raw_socket_from_hwloc(&src);
    c->socket_src = src;
    *out = c;
    return 0;
}

int rt_comm_create_alone(const rt_comm_opts *opts, rt_comm **out, rt_err *err)
{
    return create_alone(0, opts, out, err);
}

int rt_comm_create_self(rt_comm **out, rt_err *err)
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return create_alone(1, NULL, out, err);
    return create_on(MPI_COMM_SELF, "MPI_COMM_SELF", NULL, out, err);
}

int rt_comm_start(rt_comm *comm, rt_err *err)
{
    if (!comm->alone || comm->started)
        return 0;
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized)
        return rt_err_set(err, "a communicator was asked for after MPI_Finalize");
    if (!initialized) {
        comm->init_begin = rt_clock_epoch();
        const int rc = MPI_Init(NULL, NULL);
        comm->init_end = rt_clock_epoch();
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Init (started when a communicator was first needed)");
    }
    rt_comm *real = NULL;
    if (create_on(comm->base_self ? MPI_COMM_SELF : MPI_COMM_WORLD,
                  comm->base_self ? "MPI_COMM_SELF" : "MPI_COMM_WORLD", &comm->opts, &real,
                  err) != 0)
        return -1;
    const int ranks = real->size[RT_COMM_WORLD];
    if (ranks != 1) {
        rt_comm_free(real);
        char marks[256] = "";
        for (int i = 0; i < N_LAUNCHER_MARKS; ++i) {
            const size_t used = strlen(marks);
            snprintf(marks + used, sizeof marks - used, "%s%s", i ? ", " : "", launcher_marks[i]);
        }
        return rt_err_set(err,
                          "MPI, started when a communicator was first needed, finds %d ranks in a "
                          "process that no launcher's variables marked (%s): every rank ran as a "
                          "job of its own until now; start rooftune with mpirun or srun, or tell "
                          "the launcher to set one",
                          ranks, marks);
    }
    /* The same topology (one rank), now with communicators. */
    memcpy(comm->level, real->level, sizeof comm->level);
    for (int l = 0; l < RT_COMM_LEVEL_COUNT; ++l)
        real->level[l] = MPI_COMM_NULL;
    rt_comm_free(real);
    comm->started = 1;
    return 0;
}

int rt_comm_mpi_started(const rt_comm *comm)
{
    return !comm->alone || comm->started;
}

int rt_comm_init_times(const rt_comm *comm, double *begin, double *end)
{
    if (!comm->alone || isnan(comm->init_begin))
        return 0;
    *begin = comm->init_begin;
    *end = comm->init_end;
    return 1;
}

void rt_comm_mpi_end(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Finalize();
}

void rt_comm_free(rt_comm *comm)
{
    if (!comm)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    for (int l = 0; l < RT_COMM_LEVEL_COUNT; ++l)
        if (!finalized && comm->level[l] != MPI_COMM_NULL)
            MPI_Comm_free(&comm->level[l]);
    free(comm->node_of);
    free(comm->socket_of);
    free(comm);
}

int rt_comm_rank(const rt_comm *comm, rt_comm_level level)
{
    return (level >= 0 && level < RT_COMM_LEVEL_COUNT) ? comm->rank[level] : -1;
}

int rt_comm_size(const rt_comm *comm, rt_comm_level level)
{
    return (level >= 0 && level < RT_COMM_LEVEL_COUNT) ? comm->size[level] : 0;
}

int rt_comm_world_rank(const rt_comm *comm)
{
    return comm->rank[RT_COMM_WORLD];
}

int rt_comm_world_size(const rt_comm *comm)
{
    return comm->size[RT_COMM_WORLD];
}

MPI_Comm rt_comm_mpi(rt_comm *comm, rt_comm_level level)
{
    if (level < 0 || level >= RT_COMM_LEVEL_COUNT)
        return MPI_COMM_NULL;
    rt_err e;
    if (rt_comm_start(comm, &e) != 0) {
        snprintf(comm->last_error, sizeof comm->last_error, "%s", e.msg);
        return MPI_COMM_NULL;
    }
    return comm->level[level];
}

int rt_comm_node_id(const rt_comm *comm)
{
    return comm->node_id;
}

int rt_comm_socket_id(const rt_comm *comm)
{
    return comm->socket_id;
}

int rt_comm_n_nodes(const rt_comm *comm)
{
    return comm->n_nodes;
}

int rt_comm_node_of(const rt_comm *comm, int world_rank)
{
    if (world_rank < 0 || world_rank >= comm->size[RT_COMM_WORLD])
        return -1;
    return comm->node_of[world_rank];
}

int rt_comm_socket_of(const rt_comm *comm, int world_rank)
{
    if (world_rank < 0 || world_rank >= comm->size[RT_COMM_WORLD])
        return -1;
    return comm->socket_of[world_rank];
}

int rt_comm_is_emulated(const rt_comm *comm)
{
    return comm->emulated_nodes;
}

int rt_comm_tier_of(const rt_comm *comm, int other_rank)
{
    if (other_rank < 0 || other_rank >= comm->size[RT_COMM_WORLD])
        return -1;
    const int me = comm->rank[RT_COMM_WORLD];
    if (comm->node_of[other_rank] != comm->node_of[me])
        return RT_TIER_GLOBAL;
    if (comm->socket_of[other_rank] != comm->socket_of[me])
        return RT_TIER_NODE;
    return RT_TIER_SOCKET;
}

/* "2" when every node (or socket) has the same count, else "2-3". */
static void format_range(int lo, int hi, char *buf, size_t len)
{
    if (lo == hi)
        snprintf(buf, len, "%d", lo);
    else
        snprintf(buf, len, "%d-%d", lo, hi);
}

int rt_comm_describe(const rt_comm *comm, char *buf, size_t len)
{
    const int ws = comm->size[RT_COMM_WORLD];
    int rpn_lo = INT_MAX, rpn_hi = 0, spn_lo = INT_MAX, spn_hi = 0;
    for (int node = 0; node < comm->n_nodes; ++node) {
        int ranks = 0, sockets = 0;
        for (int r = 0; r < ws; ++r)
            if (comm->node_of[r] == node) {
                ++ranks;
                if (comm->socket_of[r] + 1 > sockets)
                    sockets = comm->socket_of[r] + 1;
            }
        rpn_lo = ranks < rpn_lo ? ranks : rpn_lo;
        rpn_hi = ranks > rpn_hi ? ranks : rpn_hi;
        spn_lo = sockets < spn_lo ? sockets : spn_lo;
        spn_hi = sockets > spn_hi ? sockets : spn_hi;
    }
    char rpn[32], spn[32];
    format_range(rpn_lo, rpn_hi, rpn, sizeof rpn);
    format_range(spn_lo, spn_hi, spn, sizeof spn);
    static const char *const socket_note[] = {"emulated", "hwloc",
                                              "hwloc: ranks not bound to one socket", "no hwloc"};
    return snprintf(buf, len, "%d rank%s: %d node%s x %s rank%s/node%s, %s socket%s/node (%s)", ws,
                    ws == 1 ? "" : "s", comm->n_nodes, comm->n_nodes == 1 ? "" : "s", rpn,
                    rpn_hi == 1 ? "" : "s", comm->emulated_nodes ? " (emulated)" : "", spn,
                    spn_hi == 1 ? "" : "s", socket_note[comm->socket_src]);
}

int rt_comm_library_version(char *buf, size_t len)
{
    if (!buf || len == 0)
        return -1;
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    if (MPI_Get_library_version(text, &n) != MPI_SUCCESS) {
        snprintf(buf, len, "unknown");
        return -1;
    }
    text[n < (int)sizeof text ? n : (int)sizeof text - 1] = '\0';
    /* Open MPI appends build details on further lines and some libraries end with whitespace:
     * keep the first line, which names the library and its version. */
    text[strcspn(text, "\r\n")] = '\0';
    size_t end = strlen(text);
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == ',' || text[end - 1] == '\t'))
        text[--end] = '\0';
    snprintf(buf, len, "%s", text);
    return 0;
}

int rt_comm_barrier(rt_comm *comm, rt_err *err)
{
    if (comm->alone)
        return 0;
    const int rc = MPI_Barrier(comm->level[RT_COMM_WORLD]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, "MPI_Barrier");
}

static int allreduce_double(rt_comm *comm, double local, double *out, MPI_Op op, const char *what,
                            rt_err *err)
{
    if (comm->alone) {
        *out = local;
        return 0;
    }
    const int rc = MPI_Allreduce(&local, out, 1, MPI_DOUBLE, op, comm->level[RT_COMM_WORLD]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, what);
}

int rt_comm_max_double(rt_comm *comm, double local, double *out, rt_err *err)
{
    return allreduce_double(comm, local, out, MPI_MAX, "MPI_Allreduce(MAX)", err);
}

int rt_comm_min_double(rt_comm *comm, double local, double *out, rt_err *err)
{
    return allreduce_double(comm, local, out, MPI_MIN, "MPI_Allreduce(MIN)", err);
}

int rt_comm_sum_double(rt_comm *comm, double local, double *out, rt_err *err)
{
    return allreduce_double(comm, local, out, MPI_SUM, "MPI_Allreduce(SUM)", err);
}

int rt_comm_time_reduce(rt_comm *comm, double local, double *max, double *min, double *avg,
                        rt_err *err)
{
    /* Max of (x, -x) gives max and -min together; the sum needs its own reduction. */
    double in[2] = {local, -local}, hi[2] = {local, -local};
    double sum = local;
    if (!comm->alone) {
        int rc = MPI_Allreduce(in, hi, 2, MPI_DOUBLE, MPI_MAX, comm->level[RT_COMM_WORLD]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Allreduce(MAX) of sample times");
        rc = MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm->level[RT_COMM_WORLD]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Allreduce(SUM) of sample times");
    }
    if (max)
        *max = hi[0];
    if (min)
        *min = -hi[1];
    if (avg)
        *avg = sum / comm->size[RT_COMM_WORLD];
    return 0;
}

int rt_comm_max_doubles(rt_comm *comm, double *values, int n, rt_err *err)
{
    if (n < 0 || (n > 0 && !values))
        return rt_err_set(err, "rt_comm_max_doubles: bad array (n = %d)", n);
    if (n == 0 || comm->alone)
        return 0;
    const int rc =
        MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_DOUBLE, MPI_MAX, comm->level[RT_COMM_WORLD]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, "MPI_Allreduce(MAX) of an array");
}

static int check_root(const rt_comm *comm, int root, rt_err *err)
{
    if (root < 0 || root >= comm->size[RT_COMM_WORLD])
        return rt_err_set(err, "broadcast root %d is not a rank of this %d-rank job", root,
                          comm->size[RT_COMM_WORLD]);
    return 0;
}

int rt_comm_bcast_int(rt_comm *comm, int *value, int root, rt_err *err)
{
    if (check_root(comm, root, err) != 0)
        return -1;
    if (comm->alone) /* the root's value is every rank's */
        return 0;
    const int rc = MPI_Bcast(value, 1, MPI_INT, root, comm->level[RT_COMM_WORLD]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, "MPI_Bcast of an int");
}

int rt_comm_bcast_double(rt_comm *comm, double *value, int root, rt_err *err)
{
    if (check_root(comm, root, err) != 0)
        return -1;
    if (comm->alone) /* the root's value is every rank's */
        return 0;
    const int rc = MPI_Bcast(value, 1, MPI_DOUBLE, root, comm->level[RT_COMM_WORLD]);
    return rc == MPI_SUCCESS ? 0 : mpi_fail(err, rc, "MPI_Bcast of a double");
}

int rt_comm_bcast_bytes(rt_comm *comm, void *data, size_t bytes, int root, rt_err *err)
{
    if (check_root(comm, root, err) != 0)
        return -1;
    if (bytes > 0 && !data)
        return rt_err_set(err, "rt_comm_bcast_bytes: NULL buffer for %zu bytes", bytes);
    if (comm->alone) /* the root's value is every rank's */
        return 0;
    /* MPI counts are int: larger buffers go in pieces. */
    const size_t piece = (size_t)1 << 30;
    unsigned char *p = data;
    for (size_t off = 0; off < bytes; off += piece) {
        const size_t n = bytes - off < piece ? bytes - off : piece;
        const int rc = MPI_Bcast(p + off, (int)n, MPI_BYTE, root, comm->level[RT_COMM_WORLD]);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Bcast of bytes");
    }
    return 0;
}

int rt_comm_all_ok(rt_comm *comm, int local_ok, int *all_ok, int *first_failed_rank)
{
    const int me = comm->rank[RT_COMM_WORLD];
    /* One reduction answers both questions: the minimum over "my rank if I failed, else INT_MAX"
     * is the first failed rank, and INT_MAX means nobody failed. */
    const int mine = local_ok ? INT_MAX : me;
    int lowest = mine;
    const int rc = comm->alone ? MPI_SUCCESS
                               : MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN,
                                               comm->level[RT_COMM_WORLD]);
    if (rc != MPI_SUCCESS) {
        rt_err e;
        mpi_fail(&e, rc, "agreeing on success (MPI_Allreduce)");
        snprintf(comm->last_error, sizeof comm->last_error, "%s", e.msg);
        *all_ok = 0;
        if (first_failed_rank)
            *first_failed_rank = -1;
        return -1;
    }
    *all_ok = lowest == INT_MAX;
    if (first_failed_rank)
        *first_failed_rank = lowest == INT_MAX ? -1 : lowest;
    return 0;
}

int rt_comm_all_ok_msg(rt_comm *comm, int local_ok, const char *local_msg, int *all_ok,
                       int *first_failed_rank, char *msg_out, size_t msg_len)
{
    int first = -1;
    if (msg_out && msg_len)
        msg_out[0] = '\0';
    if (rt_comm_all_ok(comm, local_ok, all_ok, &first) != 0) {
        if (first_failed_rank)
            *first_failed_rank = -1;
        return -1;
    }
    if (first_failed_rank)
        *first_failed_rank = first;
    if (*all_ok)
        return 0;
    char text[RT_ERR_MSG_MAX];
    memset(text, 0, sizeof text);
    if (comm->rank[RT_COMM_WORLD] == first)
        snprintf(text, sizeof text, "%s", local_msg ? local_msg : "");
    const int rc = comm->alone ? MPI_SUCCESS
                               : MPI_Bcast(text, (int)sizeof text, MPI_CHAR, first,
                                           comm->level[RT_COMM_WORLD]);
    if (rc != MPI_SUCCESS) {
        rt_err e;
        mpi_fail(&e, rc, "broadcasting the failure message");
        snprintf(comm->last_error, sizeof comm->last_error, "%s", e.msg);
        return -1;
    }
    text[sizeof text - 1] = '\0';
    if (msg_out && msg_len)
        snprintf(msg_out, msg_len, "%s", text);
    return 0;
}

int rt_comm_agree_outcome(rt_comm *comm, int rc, const char *what, const char *step, rt_err *err)
{
    const int code = rc == 0 ? 0 : rc == RT_INFEASIBLE ? 1 : 2;
    int worst = code;
    if (!comm->alone && MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX,
                                      comm->level[RT_COMM_WORLD]) != MPI_SUCCESS)
        return rt_err_set(err, "%s: agreeing on the %s failed (MPI_Allreduce)", what, step);
    if (worst == 0)
        return 0;
    int all_ok = 0, first = -1;
    char msg[RT_ERR_MSG_MAX] = "";
    if (rt_comm_all_ok_msg(comm, code != worst, code == worst ? err->msg : NULL, &all_ok, &first,
                           msg, sizeof msg) != 0)
        return rt_err_set(err, "%s: agreeing on the %s failed: %s", what, step,
                          rt_comm_last_error(comm));
    const int out = worst == 1 ? RT_INFEASIBLE : -1;
    if (code == worst && first == comm->rank[RT_COMM_WORLD])
        return out; /* err holds this rank's own reason */
    if (worst == 1)
        rt_err_set(err, "rank %d: %s", first, msg);
    else
        rt_err_set(err, "rank %d failed in the %s: %s", first, step, msg);
    return out;
}

const char *rt_comm_last_error(const rt_comm *comm)
{
    return comm->last_error;
}

int rt_comm_count(rt_comm *comm, rt_net_tier tier, int64_t bytes, int64_t messages, rt_err *err)
{
    if ((int)tier < 0 || tier >= RT_TIER_COUNT)
        return rt_err_set(err, "traffic counter: unknown network tier %d", (int)tier);
    if (bytes < 0 || messages < 0)
        return rt_err_set(err, "traffic counter: negative amount (%lld bytes, %lld messages)",
                          (long long)bytes, (long long)messages);
    comm->bytes[tier] += bytes;
    comm->messages[tier] += messages;
    return 0;
}

int rt_comm_count_to(rt_comm *comm, int dest_world_rank, int64_t bytes, rt_err *err)
{
    const int tier = rt_comm_tier_of(comm, dest_world_rank);
    if (tier < 0)
        return rt_err_set(err, "traffic counter: destination rank %d is not in this %d-rank job",
                          dest_world_rank, comm->size[RT_COMM_WORLD]);
    return rt_comm_count(comm, (rt_net_tier)tier, bytes, 1, err);
}

void rt_comm_counters_read(const rt_comm *comm, int64_t bytes[RT_TIER_COUNT],
                           int64_t messages[RT_TIER_COUNT])
{
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (bytes)
            bytes[t] = comm->bytes[t];
        if (messages)
            messages[t] = comm->messages[t];
    }
}

void rt_comm_counters_reset(rt_comm *comm)
{
    memset(comm->bytes, 0, sizeof comm->bytes);
    memset(comm->messages, 0, sizeof comm->messages);
}

int rt_comm_counters_reduce(rt_comm *comm, int64_t max_bytes[RT_TIER_COUNT],
                            int64_t max_messages[RT_TIER_COUNT], int64_t sum_bytes[RT_TIER_COUNT],
                            int64_t sum_messages[RT_TIER_COUNT], rt_err *err)
{
    int64_t local[2 * RT_TIER_COUNT], hi[2 * RT_TIER_COUNT], total[2 * RT_TIER_COUNT];
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        local[t] = comm->bytes[t];
        local[RT_TIER_COUNT + t] = comm->messages[t];
    }
    memcpy(hi, local, sizeof hi);
    memcpy(total, local, sizeof total);
    if (!comm->alone) {
        MPI_Comm world = comm->level[RT_COMM_WORLD];
        int rc = MPI_Allreduce(local, hi, 2 * RT_TIER_COUNT, MPI_INT64_T, MPI_MAX, world);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Allreduce(MAX) of traffic counters");
        rc = MPI_Allreduce(local, total, 2 * RT_TIER_COUNT, MPI_INT64_T, MPI_SUM, world);
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Allreduce(SUM) of traffic counters");
    }
    for (int t = 0; t < RT_TIER_COUNT; ++t) {
        if (max_bytes)
            max_bytes[t] = hi[t];
        if (max_messages)
            max_messages[t] = hi[RT_TIER_COUNT + t];
        if (sum_bytes)
            sum_bytes[t] = total[t];
        if (sum_messages)
            sum_messages[t] = total[RT_TIER_COUNT + t];
    }
    return 0;
}
