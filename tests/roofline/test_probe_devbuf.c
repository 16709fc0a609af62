/* The device-buffer MPI probe (rt_probe_mpi_device) with a fake GPU backend: "device" buffers are
 * shared file mappings, so the fake CUDA IPC really maps the partner process's buffer and the
 * data really crosses. Run under mpirun with 2 ranks and an emulated topology:
 *   test_roofline_probe_devbuf <ranks_per_node> <ranks_per_socket> <tier> <scratch dir>
 * Cases: the measurement itself (staged on every tier, IPC within a node, values that arrive),
 * the machine file written by rt_probe_run, an IPC that cannot be opened (skipped, not failed),
 * a device copy failing on rank 1 (every rank fails naming rank 1, nobody hangs), and a rank
 * without a GPU backend (nothing measured).
 * Built with RT_TEST_REAL_CUDA (GPU hosts, tests/roofline/CMakeLists.txt), the same binary runs
 * the cases that need no injected fault with the CUDA plugin's real operations (cudaMalloc,
 * pinned memory, CUDA IPC); it exits 77 (skipped) where no GPU is visible. */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <math.h>
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RT_TEST_REAL_CUDA
#include <cuda_runtime_api.h>

#include "rt_cuda_roofline.h"
#endif

#include "rt_comm.h"
#include "rt_machine.h"
#include "rt_probe.h"
#include "rt_test.h"
#include "probe_test_world.h"

#define MAX_MAPS 16

typedef struct fake_map {
    void *p;
    size_t bytes;
    char path[PATH_MAX]; /* the scratch dir may be deep: only the file name goes in a handle */
    int owned;           /* 1: dev_alloc made it (unlink on free); 0: an ipc_open mapping */
} fake_map;

typedef struct fake_gpu {
    const char *dir;
    int serial;
    int fail_to_device_after; /* > 0: the n-th to_device call fails */
    int to_device_calls;
    int fail_ipc_open;
    int exported_here; /* handles this process exported, to catch an open of one of them */
    char exported[4][RT_PROBE_IPC_HANDLE_BYTES];
    fake_map maps[MAX_MAPS];
} fake_gpu;

static fake_map *slot_of(fake_gpu *g, const void *p)
{
    for (int i = 0; i < MAX_MAPS; ++i)
        if (g->maps[i].p == p && p)
            return &g->maps[i];
    return NULL;
}

static fake_map *free_slot(fake_gpu *g, rt_err *err)
{
    fake_map *m = slot_of(g, NULL);
    for (int i = 0; !m && i < MAX_MAPS; ++i)
        if (!g->maps[i].p)
            m = &g->maps[i];
    if (!m)
        rt_err_set(err, "fake GPU: too many buffers");
    return m;
}

static int map_file(const char *path, size_t bytes, int create, void **out, rt_err *err)
{
    const int fd = open(path, create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
    if (fd < 0)
        return rt_err_set(err, "fake GPU: cannot open %s", path);
    struct stat st;
    if ((create && ftruncate(fd, (off_t)bytes) != 0) || fstat(fd, &st) != 0 ||
        (size_t)st.st_size != bytes) {
        close(fd);
        return rt_err_set(err, "fake GPU: cannot size %s", path);
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return rt_err_set(err, "fake GPU: cannot map %s", path);
    *out = p;
    return 0;
}

static int f_dev_alloc(void *state, size_t bytes, void **dev, rt_err *err)
{
    fake_gpu *g = state;
    fake_map *m = free_slot(g, err);
    if (!m)
        return -1;
    if (snprintf(m->path, sizeof m->path, "%s/dev%d.%d", g->dir, (int)getpid(), g->serial++) >=
        (int)sizeof m->path)
        return rt_err_set(err, "fake GPU: scratch path too long: %s", g->dir);
    if (map_file(m->path, bytes, 1, &m->p, err) != 0)
        return -1;
    m->bytes = bytes;
    m->owned = 1;
    *dev = m->p;
    return 0;
}

static int f_release(void *state, void *p, rt_err *err)
{
    fake_map *m = slot_of(state, p);
    if (!m)
        return rt_err_set(err, "fake GPU: free of an unknown buffer");
    munmap(m->p, m->bytes);
    if (m->owned)
        unlink(m->path);
    memset(m, 0, sizeof *m);
    return 0;
}

static int f_pinned_alloc(void *state, size_t bytes, void **host, rt_err *err)
{
    *host = malloc(bytes);
    return *host ? 0 : rt_err_set(err, "fake GPU: out of pinned memory");
}

static int f_pinned_free(void *state, void *host, rt_err *err)
{
    free(host);
    return 0;
}

static int f_to_host(void *state, void *host, const void *dev, size_t bytes, rt_err *err)
{
    memcpy(host, dev, bytes);
    return 0;
}

static int f_to_device(void *state, void *dev, const void *host, size_t bytes, rt_err *err)
{
    fake_gpu *g = state;
    if (g->fail_to_device_after > 0 && ++g->to_device_calls >= g->fail_to_device_after)
        return rt_err_set(err, "fake GPU: cudaMemcpy H2D failed (injected)");
    memcpy(dev, host, bytes);
    return 0;
}

static int f_device_copy(void *state, void *dst, const void *src, size_t bytes, rt_err *err)
{
    memcpy(dst, src, bytes);
    return 0;
}

static int f_ipc_export(void *state, void *dev, unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES],
                        rt_err *err)
{
    fake_gpu *g = state;
    fake_map *m = slot_of(g, dev);
    if (!m || !m->owned)
        return rt_err_set(err, "fake GPU: export of an unknown buffer");
    /* A real handle is 64 opaque bytes; the fake one carries the buffer's file name within the
     * scratch dir that every rank shares (a whole path would not fit a deep dir). */
    const char *name = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
    if (strlen(name) >= RT_PROBE_IPC_HANDLE_BYTES)
        return rt_err_set(err, "fake GPU: buffer name too long for a handle: %s", name);
    memset(handle, 0, RT_PROBE_IPC_HANDLE_BYTES);
    memcpy(handle, name, strlen(name));
    if (g->exported_here < 4)
        snprintf(g->exported[g->exported_here++], RT_PROBE_IPC_HANDLE_BYTES, "%s", name);
    return 0;
}

static int f_ipc_open(void *state, const unsigned char handle[RT_PROBE_IPC_HANDLE_BYTES],
                      void **mapped, rt_err *err)
{
    fake_gpu *g = state;
    char name[RT_PROBE_IPC_HANDLE_BYTES + 1], path[PATH_MAX];
    memcpy(name, handle, RT_PROBE_IPC_HANDLE_BYTES);
    name[RT_PROBE_IPC_HANDLE_BYTES] = '\0';
    if (snprintf(path, sizeof path, "%s/%s", g->dir, name) >= (int)sizeof path)
        return rt_err_set(err, "fake GPU: scratch path too long: %s", g->dir);
    for (int i = 0; i < g->exported_here; ++i)
        if (strcmp(g->exported[i], name) == 0)
            return rt_err_set(err, "fake GPU: opened a handle this process exported");
    if (g->fail_ipc_open)
        return rt_err_set(err, "fake GPU: cudaIpcOpenMemHandle failed (injected)");
    fake_map *m = free_slot(g, err);
    if (!m)
        return -1;
    struct stat st;
    if (stat(path, &st) != 0)
        return rt_err_set(err, "fake GPU: no buffer %s", path);
    if (map_file(path, (size_t)st.st_size, 0, &m->p, err) != 0)
        return -1;
    m->bytes = (size_t)st.st_size;
    m->owned = 0;
    *mapped = m->p;
    return 0;
}

static const rt_probe_devbuf_ops fake_ops = {
    f_dev_alloc, f_release,     f_pinned_alloc, f_pinned_free, f_to_host,
    f_to_device, f_device_copy, f_ipc_export,   f_ipc_open,    f_release};

static int positive(double v)
{
    return v > 0 && isfinite(v);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s <rpn> <rps> <tier> <scratch>\n", argv[0]);
        return 2;
    }
    rt_comm *comm = probe_test_comm(&argc, &argv, atoi(argv[1]), atoi(argv[2]));
    if (!comm)
        return 1;
    rt_err err;
    const int me = rt_comm_world_rank(comm);
    const int want = probe_test_tier(argv[3]);
    const int same_node = want != RT_TIER_GLOBAL;

    fake_gpu g;
    memset(&g, 0, sizeof g);
    g.dir = argv[4];
    rt_probe_opts o;
    rt_probe_opts_init(&o);
    o.quick = 1;
    o.mpi_iterations = 20;
    o.devbuf = &fake_ops;
    o.gpu_state = &g;
    const rt_probe_devbuf_ops *ops = &fake_ops;
    int real = 0;
#ifdef RT_TEST_REAL_CUDA
    /* Skipped on every rank alike when any rank sees no GPU. */
    int count = 0, have = cudaGetDeviceCount(&count) == cudaSuccess && count > 0, all = 0;
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (me == 0)
            printf("no GPU visible on some rank: skipped\n");
        rt_comm_free(comm);
        MPI_Finalize();
        return 77;
    }
    /* Two ranks may share one GPU (a 1-GPU host): CUDA IPC between processes still applies. */
    if (cudaSetDevice(rt_comm_rank(comm, RT_COMM_NODE) % count) != cudaSuccess)
        RT_CHECK_MSG(0, "rank %d: cudaSetDevice failed", me);
    ops = rt_cuda_probe_devbuf_ops(NULL);
    o.devbuf = ops;
    o.gpu_state = NULL;
    real = 1;
#endif

    /* 1. The measurement: staged on the tier, IPC only within a node. */
    rt_probe_devnet_result dev;
    RT_CHECK_MSG(rt_probe_mpi_device(&o, comm, &dev, &err) == 0, "rank %d: %s", me, err.msg);
    if (want >= 0) {
        RT_CHECK(dev.measured && dev.partner[want] == 1);
        RT_CHECK_MSG(dev.have_staged[want] && positive(dev.staged_gbs[want]) &&
                         positive(dev.staged_latency_us[want]),
                     "rank %d: staged %g GB/s %g us", me, dev.staged_gbs[want],
                     dev.staged_latency_us[want]);
        RT_CHECK_MSG(dev.have_ipc[want] == same_node, "rank %d: ipc %d (%s)", me,
                     dev.have_ipc[want], dev.skipped);
        if (same_node)
            RT_CHECK(positive(dev.ipc_gbs[want]) && positive(dev.ipc_latency_us[want]) &&
                     dev.skipped[0] == '\0');
        for (int t = 0; t < RT_TIER_COUNT; ++t)
            if (t != want)
                RT_CHECK(!dev.have_staged[t] && !dev.have_ipc[t]);
        if (me == 0)
            printf("%s: staged %.3g us %.3g GB/s, ipc %.3g us %.3g GB/s\n", argv[3],
                   dev.staged_latency_us[want], dev.staged_gbs[want], dev.ipc_latency_us[want],
                   dev.ipc_gbs[want]);
    }
    /* Every fake buffer was released (mappings and owned files). */
    int leaked = 0;
    for (int i = 0; i < MAX_MAPS; ++i)
        leaked += g.maps[i].p != NULL;
    RT_CHECK_MSG(leaked == 0, "rank %d: %d buffers left", me, leaked);

    /* 2. The whole probe writes mpi_staged (and mpi_ipc) beside the host tiers; it loads back. */
    o.threads = 1;
    o.cpu_array_bytes = (size_t)4 << 20; /* the CPU part runs too: keep it short */
    o.repetitions = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = me == 0 ? open_memstream(&text, &len) : NULL;
    RT_CHECK_MSG(rt_probe_run(&o, comm, mem, &err) == 0, "rank %d: %s", me, err.msg);
    if (mem)
        fclose(mem);
    if (me == 0 && want >= 0) {
        rt_machine *m = calloc(1, sizeof *m);
        RT_CHECK_MSG(text && m && rt_machine_load_string(text, "devbuf.yaml", m, &err) == 0, "%s",
                     err.msg);
        RT_CHECK_MSG(m && positive(m->staged_gbs[want]) && positive(m->staged_latency_us[want]),
                     "%s", text ? text : "");
        RT_CHECK(m && (m->ipc_gbs[want] > 0) == same_node);
        RT_CHECK(text && rt_test_contains(text, "mpi_staged:"));
        if (getenv("RT_TEST_SHOW"))
            fputs(text, stdout);
        free(m);
    }
    free(text);
    o.repetitions = 0;

    if (real)
        goto no_backend; /* 3 and 4 inject faults into the fake backend */

    /* 3. IPC that cannot be opened (rank 1 only): staged still measured, IPC skipped with the
     * reason, no failure. */
    g.fail_ipc_open = me == 1;
    RT_CHECK_MSG(rt_probe_mpi_device(&o, comm, &dev, &err) == 0, "rank %d: %s", me, err.msg);
    if (want >= 0 && same_node)
        RT_CHECK_MSG(dev.have_staged[want] && !dev.have_ipc[want] &&
                         rt_test_contains(dev.skipped, "injected") &&
                         rt_test_contains(dev.skipped, "rank 1"),
                     "rank %d: '%s'", me, dev.skipped);
    g.fail_ipc_open = 0;

    /* 4. A device copy failing on rank 1 in the middle of the ping-pong: every rank fails, with
     * rank 1 named, and nobody hangs (the test has a timeout). */
    g.fail_to_device_after = me == 1 ? 5 : 0;
    g.to_device_calls = 0;
    RT_CHECK_MSG(rt_probe_mpi_device(&o, comm, &dev, &err) != 0 &&
                     rt_test_contains(err.msg, "rank 1") && rt_test_contains(err.msg, "injected"),
                 "rank %d: '%s'", me, err.msg);
    g.fail_to_device_after = 0;
    leaked = 0;
    for (int i = 0; i < MAX_MAPS; ++i)
        leaked += g.maps[i].p != NULL;
    RT_CHECK_MSG(leaked == 0, "rank %d: %d buffers left after the failure", me, leaked);

no_backend:
    /* 5. Rank 1 without a GPU backend: nothing measured, and said why. */
    o.devbuf = me == 1 ? NULL : ops;
    RT_CHECK_MSG(rt_probe_mpi_device(&o, comm, &dev, &err) == 0, "rank %d: %s", me, err.msg);
    RT_CHECK(!dev.measured && rt_test_contains(dev.skipped, "rank 1 has no GPU backend"));

    int mine = rt_test_failures, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rt_comm_free(comm);
    MPI_Finalize();
    return worst == 0 ? 0 : 1;
}
