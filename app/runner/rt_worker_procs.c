#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "rt_worker_procs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_clock.h"
#include "rt_phases.h"

/* The coordinator's word before the wire starts: one byte on each socket. */
#define RELEASE_BYTE 'G'

/* The launcher's variables make a process think it is a rank of the launcher's job; a worker is
 * a job of its own, so they stay out of its environment (a user's own MCA settings stay in). */
static int launcher_variable(const char *kv)
{
    static const char *const keep[] = {"OMPI_ALLOW_RUN_AS_ROOT=",
                                       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; ++i)
        if (strncmp(kv, keep[i], strlen(keep[i])) == 0)
            return 0;
    static const char *const launcher_mca[] = {"OMPI_MCA_orte_", "OMPI_MCA_ess", "OMPI_MCA_pmix",
                                               "OMPI_MCA_prte", "OMPI_MCA_initial_wdir"};
    for (size_t i = 0; i < sizeof launcher_mca / sizeof launcher_mca[0]; ++i)
        if (strncmp(kv, launcher_mca[i], strlen(launcher_mca[i])) == 0)
            return 1;
    if (strncmp(kv, "OMPI_MCA_", 9) == 0)
        return 0;
    static const char *const drop[] = {"OMPI_",           "PMIX_",  "PMI_",  "PRTE_",
                                       "ORTE_",           "HYDRA_", "MPIR_", "MPI_LOCALNRANKS=",
                                       "MPI_LOCALRANKID="};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; ++i)
        if (strncmp(kv, drop[i], strlen(drop[i])) == 0)
            return 1;
    return 0;
}

extern char **environ;

static void procs_free(rt_worker_procs *p)
{
    free(p->fds);
    free(p->pids);
    free(p->gpu);
    free(p->spawned);
    memset(p, 0, sizeof *p);
}

static int procs_alloc(rt_worker_procs *p, int n)
{
    memset(p, 0, sizeof *p);
    const size_t k = (size_t)(n > 0 ? n : 1);
    p->fds = calloc(k, sizeof *p->fds);
    p->pids = calloc(k, sizeof *p->pids);
    p->gpu = calloc(k, sizeof *p->gpu);
    p->spawned = calloc(k, sizeof *p->spawned);
    if (!p->fds || !p->pids || !p->gpu || !p->spawned) {
        procs_free(p);
        return -1;
    }
    return 0;
}

/* Closes what is still ours, ends the processes started and waits for them. */
static void end_started(rt_worker_procs *p)
{
    for (int i = 0; i < p->n; ++i) {
        if (p->fds[i] >= 0)
            close(p->fds[i]);
        p->fds[i] = -1;
        kill(p->pids[i], SIGTERM);
    }
    for (int i = 0; i < p->n; ++i)
        while (waitpid(p->pids[i], NULL, 0) < 0 && errno == EINTR)
            ;
}

int rt_worker_procs_omp_threads(int n)
{
    const char *set = getenv("OMP_NUM_THREADS");
    if ((set && *set) || n <= 0)
        return 0;
    long cores = 0;
    cpu_set_t mask;
    if (sched_getaffinity(0, sizeof mask, &mask) == 0)
        cores = CPU_COUNT(&mask);
    if (cores <= 0)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    const long each = cores / n;
    return each >= 1 ? (int)each : 1;
}

int rt_worker_procs_gpu_of(const char *visible, int gpus, int index, char *out, size_t len,
                           rt_err *err)
{
    out[0] = '\0';
    if (gpus <= 0 || index < 0)
        return 0;
    const int k = index % gpus;
    if (!visible || !*visible) {
        if ((size_t)snprintf(out, len, "%d", k) >= len)
            return rt_err_set(err, "GPU %d of worker %d does not fit in %zu characters", k, index,
                              len);
        return 0;
    }
    /* The k-th comma-separated entry; CUDA stops at the first entry it cannot use, so a list
     * longer than the device count has its usable ones first. */
    const char *at = visible;
    for (int i = 0; i < k; ++i) {
        at = strchr(at, ',');
        if (!at)
            return rt_err_set(err,
                              "CUDA_VISIBLE_DEVICES '%s' has fewer entries than the %d GPU(s) "
                              "the driver reports",
                              visible, gpus);
        ++at;
    }
    size_t n = strcspn(at, ",");
    while (n > 0 && (at[n - 1] == ' ' || at[n - 1] == '\t'))
        --n;
    while (n > 0 && (*at == ' ' || *at == '\t')) {
        ++at;
        --n;
    }
    if (n == 0 || n >= len)
        return rt_err_set(err, "CUDA_VISIBLE_DEVICES '%s': entry %d is empty or too long", visible,
                          k);
    memcpy(out, at, n);
    out[n] = '\0';
    return 0;
}

/* Whether the n characters at e are a device as CUDA_VISIBLE_DEVICES names one: a number, or a
 * GPU or MIG UUID. */
static int device_entry(const char *e, size_t n)
{
    if (n > 4 && (strncmp(e, "GPU-", 4) == 0 || strncmp(e, "MIG-", 4) == 0))
        return 1;
    for (size_t i = 0; i < n; ++i)
        if (!isdigit((unsigned char)e[i]))
            return 0;
    return n > 0;
}

int rt_worker_procs_quick_gpus(const char *visible, const char *gpus_dir, const char **source)
{
    *source = "";
    if (visible && *visible) {
        int n = 0;
        for (const char *at = visible;; ++at) {
            const size_t len = strcspn(at, ",");
            if (!device_entry(at, len))
                return -1; /* CUDA's own reading decides (hidden GPUs: -1, spaces, ...) */
            ++n;
            at += len;
            if (!*at)
                break;
        }
        *source = "CUDA_VISIBLE_DEVICES";
        return n;
    }
    DIR *d = gpus_dir ? opendir(gpus_dir) : NULL;
    if (!d)
        return -1;
    int n = 0;
    for (const struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    *source = gpus_dir;
    return n > 0 ? n : -1;
}

int rt_worker_procs_start(int argc, const char *const *argv, int n, int gpus, rt_worker_procs *p,
                          rt_err *err)
{
    if (procs_alloc(p, n) != 0)
        return rt_err_set(err, "out of memory starting %d workers", n);
    p->gpus = gpus > 0 ? gpus : 0;
    char exe[PATH_MAX];
    const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        procs_free(p);
        return rt_err_set(err, "parallel tuning: cannot find this program (/proc/self/exe): %s",
                          strerror(errno));
    }
    exe[len] = '\0';
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    for (int i = 0; i < n; ++i)
        if (rt_worker_procs_gpu_of(visible, gpus, i, p->gpu[i], sizeof p->gpu[i], err) != 0) {
            procs_free(p);
            return rt_err_prefix(err, "parallel tuning");
        }
    int n_env = 0;
    while (environ[n_env])
        ++n_env;
    /* + OMP_NUM_THREADS, CUDA_VISIBLE_DEVICES */
    char **env = calloc((size_t)n_env + 3, sizeof *env);
    const char **child = calloc((size_t)argc + 8, sizeof *child);
    if (!env || !child) {
        free(env);
        free(child);
        procs_free(p);
        return rt_err_set(err, "out of memory starting %d workers", n);
    }
    int k = 0;
    for (int i = 0; i < n_env; ++i)
        if (!launcher_variable(environ[i]) &&
            !(gpus > 0 && strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) == 0))
            env[k++] = environ[i];
    char omp[48];
    p->threads = rt_worker_procs_omp_threads(n);
    if (p->threads > 0) {
        snprintf(omp, sizeof omp, "OMP_NUM_THREADS=%d", p->threads);
        env[k++] = omp;
    }
    char visible_kv[RT_WORKER_GPU_MAX + 32];
    if (gpus > 0)
        env[k++] = visible_kv;
    child[0] = exe;
    child[1] = "run"; /* a worker runs; the command that started it (tune) records afterwards */
    for (int i = 1; i < argc; ++i)
        child[1 + i] = argv[i];
    char fd_text[16], index_text[16], gpu_text[RT_WORKER_GPU_MAX];
    int a = argc + 1;
    child[a++] = "--worker-fd";
    child[a++] = fd_text;
    child[a++] = "--worker-index";
    child[a++] = index_text;
    if (gpus > 0) {
        child[a++] = "--worker-gpu";
        child[a++] = gpu_text;
    }
    child[a] = NULL;
    int rc = 0;
    for (; p->n < n; ++p->n) {
        const int i = p->n;
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
            rc = rt_err_set(err, "parallel tuning: socketpair failed: %s", strerror(errno));
            break;
        }
        snprintf(fd_text, sizeof fd_text, "%d", sv[1]);
        snprintf(index_text, sizeof index_text, "%d", i);
        snprintf(gpu_text, sizeof gpu_text, "%s", p->gpu[i]);
        snprintf(visible_kv, sizeof visible_kv, "CUDA_VISIBLE_DEVICES=%s", p->gpu[i]);
        p->spawned[i] = rt_clock_epoch();
        const pid_t pid = fork();
        if (pid == 0) {
            /* Only async-signal-safe calls between fork and exec. */
            fcntl(sv[1], F_SETFD, 0);
            execve(exe, (char *const *)child, env);
            _exit(127);
        }
        close(sv[1]);
        if (pid < 0) {
            close(sv[0]);
            rc = rt_err_set(err, "parallel tuning: fork failed: %s", strerror(errno));
            break;
        }
        p->fds[i] = sv[0];
        p->pids[i] = pid;
    }
    free(env);
    free(child);
    if (rc != 0) {
        end_started(p);
        procs_free(p);
    }
    return rc;
}

void rt_worker_procs_release(const rt_worker_procs *p)
{
    const char go = RELEASE_BYTE;
    for (int i = 0; i < p->n; ++i)
        if (p->fds[i] >= 0) {
            ssize_t w;
            do
                w = send(p->fds[i], &go, 1, MSG_NOSIGNAL);
            while (w < 0 && errno == EINTR);
            /* A worker that is gone already fails the wire or the reap, which say so. */
        }
}

int rt_worker_procs_await(int fd, int *released, rt_err *err)
{
    *released = 0;
    char got = 0;
    ssize_t r;
    do
        r = recv(fd, &got, 1, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return rt_err_set(err, "parallel tuning: waiting for the coordinator: %s", strerror(errno));
    if (r == 1 && got != RELEASE_BYTE)
        return rt_err_set(err, "parallel tuning: the coordinator sent %d, not its word to start",
                          (int)got);
    *released = r == 1;
    return 0;
}

int rt_worker_procs_wait(rt_worker_procs *p, rt_phases *ph, rt_err *err)
{
    int rc = 0;
    for (int i = 0; i < p->n; ++i) {
        if (p->fds[i] >= 0)
            close(p->fds[i]);
        int status = 0;
        pid_t got;
        do
            got = waitpid(p->pids[i], &status, 0);
        while (got < 0 && errno == EINTR);
        char name[32];
        snprintf(name, sizeof name, "worker %d", i);
        (void)rt_phases_add_for(ph, name, "exit", rt_clock_epoch(), NAN);
        if (rc != 0)
            continue;
        if (got < 0)
            rc = rt_err_set(err, "worker %d (pid %d): waitpid failed: %s", i, (int)p->pids[i],
                            strerror(errno));
        else if (WIFSIGNALED(status))
            rc = rt_err_set(err, "worker %d (pid %d) was ended by signal %d", i, (int)p->pids[i],
                            WTERMSIG(status));
        else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
            rc = rt_err_set(err, "worker %d (pid %d) exited with status %d", i, (int)p->pids[i],
                            WEXITSTATUS(status));
    }
    procs_free(p);
    return rc;
}

void rt_worker_procs_abandon(rt_worker_procs *p)
{
    end_started(p);
    procs_free(p);
}
