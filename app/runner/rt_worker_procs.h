/* rt_worker_procs: the worker processes of parallel tuning's gpus mode (rt_workers.h). The CLI
 * starts them as soon as the config says how many (before its own backend, checks and store, so
 * the workers' start overlaps the coordinator's); each is the same command with --worker-fd,
 * --worker-index and --worker-gpu added, a job of its own (the MPI launcher's variables left out
 * of its environment), given one GPU (CUDA_VISIBLE_DEVICES: its CUDA start initialises that
 * device alone) and its share of the cores (OMP_NUM_THREADS, unless set).
 *
 * A worker sets itself up and then waits for its coordinator's word (rt_worker_procs_await): the
 * coordinator releases the workers once its own checks passed and its store is open (the runner
 * takes them over), or ends them when it failed first, so a bad config or a store in use is
 * reported once, by the coordinator, and not by every worker as well. */
#ifndef RT_WORKER_PROCS_H
#define RT_WORKER_PROCS_H

#include <stddef.h>
#include <sys/types.h>

#include "rt_error.h"

struct rt_phases;

#define RT_WORKER_GPU_MAX 64

typedef struct rt_worker_procs {
    int n;
    int *fds; /* this end of each worker's socket; -1 once a wire owns it */
    pid_t *pids;
    char (*gpu)[RT_WORKER_GPU_MAX]; /* the GPU each was given, "" for none */
    double *spawned;                /* when each was started (rt_clock_epoch) */
    int threads;                    /* OpenMP threads each was given; 0: OMP_NUM_THREADS as set */
    int gpus; /* the GPU count they were given GPUs by (rt_worker_procs_start's gpus) */
} rt_worker_procs;

/* Starts n workers: /proc/self/exe run with argv's options (argv[0], the command that was given,
 * `run` or `tune`, is left out: a worker only runs) and the worker options added. With gpus > 0
 * worker i is given GPU i modulo gpus of this process's visible ones (rt_worker_procs_gpu_of).
 * On failure the ones started are ended and p is empty. */
int rt_worker_procs_start(int argc, const char *const *argv, int n, int gpus, rt_worker_procs *p,
                          rt_err *err);
/* The coordinator's word to every worker: go on (its own checks passed, its store is open). A
 * worker that is gone already is found by the wire or the reap, not here. */
void rt_worker_procs_release(const rt_worker_procs *p);
/* Waits for the workers and frees p; fails naming the first that did not exit with status 0 (or
 * what ended it). ph (may be NULL) gets each worker's exit as its coordinator saw it. */
int rt_worker_procs_wait(rt_worker_procs *p, struct rt_phases *ph, rt_err *err);
/* Ends the workers (sockets closed, SIGTERM), waits for them and frees p. */
void rt_worker_procs_abandon(rt_worker_procs *p);

/* A worker's side: waits for its coordinator's word on fd; *released 0 when the coordinator
 * ended instead (its own checks failed and it reported them). */
int rt_worker_procs_await(int fd, int *released, rt_err *err);

/* The GPU of worker `index` among `gpus` devices: entry index % gpus of `visible` (the
 * coordinator's CUDA_VISIBLE_DEVICES, comma-separated: indices, UUIDs or MIG names), or that
 * number when visible is NULL or empty. "" when gpus <= 0. Fails when an entry does not fit. */
int rt_worker_procs_gpu_of(const char *visible, int gpus, int index, char *out, size_t len,
                           rt_err *err);
/* The GPUs this process may use, counted without the CUDA driver, whose cuInit costs a third of a
 * second on an H200 host before any worker could start: the entries of visible (the
 * CUDA_VISIBLE_DEVICES value) when it is set and every entry is a device number or a GPU or MIG
 * UUID, else the entries of gpus_dir (the NVIDIA driver's /proc/driver/nvidia/gpus, one per GPU
 * of the host); -1 when neither says (then only the driver can). *source names the one used.
 * The driver may still see another number (CUDA stops at an entry it cannot use; a GPU it
 * cannot open): the coordinator checks this count against its backend's. */
int rt_worker_procs_quick_gpus(const char *visible, const char *gpus_dir, const char **source);
/* OpenMP threads for each of n worker processes: 0 when OMP_NUM_THREADS is set (the user's
 * choice reaches every worker), else this process's usable cores over n (at least 1): n workers
 * of all the cores each would run n x cores threads in their host phases (inputs, references,
 * plans) at once. */
int rt_worker_procs_omp_threads(int n);

#endif
