/* rt_runner: see rt_runner.h. The experiment in named steps: open the store, begin the run, walk
 * the config (rt_walk: for every matrix build it and split it among the ranks, for every problem
 * point and kernel sweep the space the search picks from, every point through rt_measure), end
 * the run. */
#define _POSIX_C_SOURCE 200809L
#include "rt_runner.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_interrupt.h"
#include "rt_measure.h"
#include "rt_phases.h"
#include "rt_prefetch.h"
#include "rt_problem.h"
#include "rt_progress.h"
#include "rt_prune.h"
#include "rt_search.h"
#include "rt_shared_matrix.h"
#include "rt_space.h"
#include "rt_store.h"
#include "rt_store_lock.h"
#include "rt_store_phases.h"
#include "rt_strutil.h"
#include "rt_sweep.h"
#include "rt_walk.h"
#include "rt_wire.h"
#include "rt_worker_procs.h"
#include "rt_workers.h"

/* Everything one rank needs about the current matrix. */
typedef struct matrix_slot {
    rt_csr local;            /* this rank's block of rows (the whole matrix on one rank) */
    rt_csr whole;            /* the whole matrix, kept beside `local` for families that partition it
                                themselves (wants_whole_matrix); empty on one rank, where local is whole */
    int64_t rows, cols, nnz; /* the whole matrix's */
    char failed[RT_ERR_MSG_MAX]; /* why it could not be built ("" when it was) */
} matrix_slot;

/* One run: what its steps share. */
typedef struct run {
    const rt_config *cfg;
    const rt_registry *reg;
    const rt_backend *be;
    rt_comm *comm;
    const rt_run_options *opt;
    rt_run_summary *sum;
    int rank, nranks;
    rt_store *store; /* rank 0, unless a dry run */
    rt_store_lock *lock;
    rt_provenance prov;
    int64_t run_id;
    rt_measure_ctx mctx;
    rt_progress progress;
    matrix_slot ms;
    int failed;      /* a step failed: the walk stops, the run ends as failed */
    int rank_failed; /* a step failed on some ranks and not on rank 0: the run ends as failed */
    /* Parallel tuning (search.parallel, rt_workers.h): every point is measured whole on one rank
     * (measure_comm: a job of that rank alone), the coordinator records it. */
    int parallel;          /* an rt_parallel_mode; none for dry runs */
    int spanning;          /* parallel: ranks with kernel entries whose points span every rank
                              (kernels[i].parallel: none): their sweeps are measured as in a run
                              without parallel tuning, on the whole job */
    int coordinator;       /* this process hands out the points and owns the store */
    rt_comm *self_comm;    /* the one-rank job points are measured with (parallel) */
    rt_wire *wire;         /* to the workers, or to the coordinator */
    rt_workers *workers;   /* the coordinator's or the worker's side */
    rt_worker_procs procs; /* parallel: gpus, coordinator: its worker processes */
    int sweeps;            /* sweeps walked so far (their phases' numbers) */
    /* parallel: gpus: every matrix is built once, ahead, by the coordinator (rt_prefetch.h) and
     * mapped by every process (rt_shared_matrix.h), instead of built by each at once. */
    int share_matrices;
    rt_prefetch *ahead; /* coordinator: the next matrix, being built or built */
    int ahead_sent;     /* ahead was handed to the workers */
    /* The current matrix's mapping (ms.local is its csr) and, on a worker, the next one's, mapped
     * as soon as it comes so that its first sweep's inputs are built ahead: shared[cur] is the
     * current one, shared[!cur] the next (next_mi: its matrix, -1 when none is mapped). */
    rt_shared_matrix shared[2];
    int cur, cur_mi, next_mi;
    /* worker: the next sweep, whose inputs are built ahead once its matrix is mapped */
    int pending;
    rt_sweep next;
    rt_params next_problem;
    /* kernels[i].abort_group: each group's best verified time for the current matrix and problem
     * point, in the slot of the group's first entry (n_kernels slots, allocated when a group is
     * first met; INFINITY again after every problem point) */
    double *group_best;
    int mpi_noted; /* a late MPI start is in the phase record */
} run;

static void logf_rank0(const run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void logf_rank0(const run *r, const char *fmt, ...)
{
    if (r->rank != 0 || !r->opt->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(r->opt->log, fmt, ap);
    va_end(ap);
    fflush(r->opt->log);
}

/* Splits rows among ranks so each gets about the same number of nonzeros (rows stay contiguous). */
static void split_rows(const rt_csr *a, int rank, int nranks, int64_t *r0, int64_t *r1)
{
    if (nranks <= 1) {
        *r0 = 0;
        *r1 = a->rows;
        return;
    }
    const double per = (double)a->nnz / nranks;
    int64_t lo = 0, hi = a->rows;
    /* First row whose prefix nonzero count reaches rank * per (binary search over rowptr). */
    for (int side = 0; side < 2; ++side) {
        const double target = per * (rank + side);
        int64_t a0 = 0, a1 = a->rows;
        while (a0 < a1) {
            const int64_t mid = a0 + (a1 - a0) / 2;
            if ((double)a->rowptr[mid] < target)
                a0 = mid + 1;
            else
                a1 = mid;
        }
        if (side == 0)
            lo = (rank == 0) ? 0 : a0;
        else
            hi = (rank == nranks - 1) ? a->rows : a0;
    }
    if (a->nnz == 0) { /* fall back to an even split of rows */
        lo = a->rows * rank / nranks;
        hi = a->rows * (rank + 1) / nranks;
    }
    *r0 = lo;
    *r1 = hi < lo ? lo : hi;
}

/* Points the run expects, for the progress line: per kernel its parameter combinations, cut by
 * the search's budget rule (rt_search_budget_for), for every matrix and problem point. Kernels
 * whose backend is absent are skipped by the run, so they are not counted. */
static int64_t expected_points(const rt_config *cfg, const rt_registry *reg)
{
    int64_t per_input = 0;
    for (int ki = 0; ki < cfg->n_kernels; ++ki) {
        const rt_kernel_desc *kd = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
        if (!kd || kd->unavailable)
            continue;
        int64_t size = 1;
        for (int p = 0; p < cfg->kernels[ki].n_params; ++p)
            size *=
                cfg->kernels[ki].params[p].n_values > 0 ? cfg->kernels[ki].params[p].n_values : 1;
        const int64_t budget = rt_search_budget_for(&cfg->search, size);
        per_input += budget > 0 ? budget : 0; /* -1: a strategy the config check refuses */
    }
    return per_input * rt_problem_count(cfg) * cfg->n_matrices;
}

static void close_store(run *r)
{
    rt_store_close(r->store);
    r->store = NULL;
    rt_store_lock_release(r->lock);
    r->lock = NULL;
}

/* Step: rank 0 takes the store's lock and opens it (one writer at a time: a second run into this
 * store would measure the same points); every other rank learns whether that worked, so that
 * nobody starts measuring for a run that cannot be recorded. */
static int step_open_store(run *r, rt_err *err)
{
    const double t0 = rt_clock_epoch();
    int ok = 1;
    /* A worker process of parallel: gpus records nothing: its coordinator owns the store. */
    if (r->rank == 0 && !r->opt->dry_run && r->opt->worker_fd <= 0) {
        if (rt_store_lock_acquire(r->opt->db_path, &r->lock, err) != 0 ||
            rt_store_open(r->opt->db_path, &r->store, err) != 0)
            ok = 0;
        int stale = 0;
        if (ok && rt_store_mark_stale_runs(r->store, &stale, err) != 0)
            ok = 0;
        if (ok && stale > 0)
            logf_rank0(r,
                       "  store: %d earlier run(s) left 'running' by a process that ended without "
                       "closing them are now marked 'interrupted' (their points are kept)\n",
                       stale);
        if (!ok)
            close_store(r);
        if (ok && r->store)
            (void)rt_phases_add(r->opt->phases, "store", NULL, t0, rt_clock_epoch());
    }
    int first_bad = -1;
    if (rt_comm_all_ok(r->comm, ok, &ok, &first_bad) != 0 || !ok) {
        if (r->rank != 0)
            rt_err_set(err, "rank 0 could not open the store %s", r->opt->db_path);
        return -1;
    }
    return 0;
}

/* Step: what makes the run reproducible, and the run's row in the store. */
static int step_begin_run(run *r, rt_err *err)
{
    rt_provenance *prov = &r->prov;
    const rt_backend *be = r->be;
    const rt_config *cfg = r->cfg;
    int ok = 1;
    if (r->rank == 0) {
        snprintf(prov->device, sizeof prov->device, "%s",
                 be->cuda_loaded ? be->gpu.name : be->cpu.name);
        snprintf(prov->cuda_runtime, sizeof prov->cuda_runtime, "%s",
                 be->cuda_loaded ? be->gpu.runtime_version : "");
        snprintf(prov->cuda_driver, sizeof prov->cuda_driver, "%s",
                 be->cuda_loaded ? be->gpu.driver_version : "");
        rt_comm_library_version(prov->mpi_library, sizeof prov->mpi_library);
        rt_comm_describe(r->comm, prov->topology, sizeof prov->topology);
        prov->nranks = r->nranks;
        snprintf(prov->config_path, sizeof prov->config_path, "%s", cfg->path);
        prov->config_text = cfg->text;
        snprintf(prov->config_hash, sizeof prov->config_hash, "%s", cfg->hash);
        snprintf(prov->command_line, sizeof prov->command_line, "%s",
                 r->opt->command_line ? r->opt->command_line : "");
        if (r->store && rt_store_begin_run(r->store, prov, cfg->name, &r->run_id, err) != 0) {
            close_store(r);
            ok = 0;
        }
    }
    int first_bad = -1;
    if (rt_comm_all_ok(r->comm, ok, &ok, &first_bad) != 0 || !ok) {
        if (r->rank != 0)
            rt_err_set(err, "rank 0 could not start a run in %s", r->opt->db_path);
        return -1;
    }
    r->sum->run_id = r->run_id;
    return 0;
}

/* Step: the matrix's row in the store (rank 0). */
static int record_matrix(run *r, const rt_matrix_cfg *mc, const rt_csr *full, double load_s,
                         rt_err *err)
{
    if (r->rank != 0 || !r->store)
        return 0;
    rt_matrix_record mr;
    memset(&mr, 0, sizeof mr);
    snprintf(mr.name, sizeof mr.name, "%s", mc->name);
    mr.rows = full->rows;
    mr.cols = full->cols;
    mr.nnz = full->nnz;
    snprintf(mr.generator, sizeof mr.generator, "%s", mc->generator);
    rt_params_to_json(&mc->gen, mr.args_json, sizeof mr.args_json);
    snprintf(mr.file, sizeof mr.file, "%s", mc->file);
    snprintf(mr.ordering, sizeof mr.ordering, "%s", mc->ordering[0] ? mc->ordering : "natural");
    mr.load_s = load_s;
    return rt_store_add_matrix(r->store, r->run_id, &mr, err);
}

/* Walk step: builds the matrix identically on every rank and keeps this rank's block of rows
 * (and the whole matrix beside it for families that partition it themselves). A matrix that
 * cannot be built is the matrix's failure, not the run's: its sweeps are still visited, to record
 * an error point each saying why, and the run goes on with the next matrix. */
static int walk_shared_matrix(run *r, int mi, const rt_matrix_cfg *mc, int64_t shape[3],
                              rt_err *err);

static int walk_matrix(void *ctx, int mi, const rt_matrix_cfg *mc, int64_t shape[3], rt_err *err)
{
    run *r = ctx;
    matrix_slot *ms = &r->ms;
    memset(ms, 0, sizeof *ms);
    if (r->share_matrices)
        return walk_shared_matrix(r, mi, mc, shape, err);
    rt_csr full;
    memset(&full, 0, sizeof full);
    const double t0 = rt_clock_now();
    char building[128];
    snprintf(building, sizeof building, "building matrix %s", mc->name);
    rt_progress_begin(&r->progress, building, t0);
    int ok = rt_walk_build_matrix(mc, &full, err) == 0;
    rt_progress_clear(&r->progress);
    int first_bad = -1;
    /* The first failed rank's own message travels to every rank (rank 0 records it). */
    const int built_here = ok;
    char other_why[RT_ERR_MSG_MAX];
    if (rt_comm_all_ok_msg(r->comm, ok, ok ? NULL : err->msg, &ok, &first_bad, other_why,
                           sizeof other_why) != 0)
        return -1;
    if (!ok) {
        /* Every rank builds the same matrix, so the same error usually holds everywhere. A
         * matrix that failed on another rank but not here (a file that differs between nodes)
         * is the run's failure too: the run is then not marked complete. */
        if (built_here) {
            rt_err_set(err, "matrix '%s' failed on rank %d: %s", mc->name, first_bad, other_why);
            r->rank_failed = 1;
            if (r->rank == 0)
                fprintf(stderr, "rooftune: %s\n", err->msg);
        }
        rt_csr_free(&full);
        logf_rank0(r, "matrix %s: cannot be built: %s\n", mc->name, err->msg);
        snprintf(ms->failed, sizeof ms->failed, "%s", err->msg);
        rt_err_clear(err);
        return RT_WALK_MATRIX_NO_SPACE;
    }
    const double load_s = rt_clock_now() - t0;
    {
        char phase[96];
        snprintf(phase, sizeof phase, "matrix %s", mc->name);
        const double now = rt_clock_epoch();
        (void)rt_phases_add(r->opt->phases, phase, NULL, now - load_s, now);
    }
    logf_rank0(r, "matrix %s: %lld x %lld, %lld nonzeros (%.2f s)\n", mc->name,
               (long long)full.rows, (long long)full.cols, (long long)full.nnz, load_s);
    if (record_matrix(r, mc, &full, load_s, err) != 0) {
        rt_csr_free(&full);
        return -1;
    }
    ms->rows = shape[0] = full.rows;
    ms->cols = shape[1] = full.cols;
    ms->nnz = shape[2] = full.nnz;
    int64_t row0, row1;
    split_rows(&full, r->rank, r->nranks, &row0, &row1);
    /* parallel: each rank measures whole points alone; with spanning entries the whole matrix
     * is kept beside this rank's rows, for the spread sweeps */
    if (r->nranks == 1 || (r->parallel && !r->spanning)) {
        ms->local = full; /* take ownership, no copy */
        return RT_WALK_MATRIX_OK;
    }
    ok = rt_csr_row_block(&ms->local, &full, row0, row1, err) == 0;
    ms->whole = full; /* kept for distributed families */
    if (rt_comm_all_ok(r->comm, ok, &ok, &first_bad) != 0 || !ok)
        return -1;
    return RT_WALK_MATRIX_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Matrices of parallel: gpus (rt_prefetch.h, rt_shared_matrix.h) */

/* Coordinator: the matrix built ahead, to every worker (once). */
static int send_ahead(run *r, rt_err *err)
{
    const rt_prefetch_result *res = rt_prefetch_wait(r->ahead);
    rt_workers_matrix mx = {.index = rt_prefetch_index(r->ahead),
                            .fd = res->fd,
                            .rows = res->rows,
                            .cols = res->cols,
                            .nnz = res->nnz,
                            .load_s = res->end - res->begin};
    snprintf(mx.failed, sizeof mx.failed, "%s", res->failed);
    r->ahead_sent = 1;
    return rt_workers_send_matrix(r->workers, &mx, err);
}

/* Coordinator, as its sweep's loop turns: the next matrix goes to the workers as soon as it is
 * built, so a worker that leaves the sweep early maps it and builds its inputs during the
 * others' last points. */
static int hand_ahead(void *ctx, rt_err *err)
{
    run *r = ctx;
    if (!r->ahead || r->ahead_sent || !rt_prefetch_ready(r->ahead))
        return 0;
    /* a worker still in a sweep of the matrix before holds this matrix already: one ahead */
    const int tail = rt_workers_tail_matrix(r->workers);
    if (tail >= 0 && tail != r->cur_mi)
        return 0;
    return send_ahead(r, err);
}

/* Coordinator: the next matrix of the walk starts building (a thread that cannot be started
 * leaves it to be built when the walk reaches it). */
static void start_ahead(run *r, int mi)
{
    if (mi >= r->cfg->n_matrices || r->mctx.stop)
        return;
    rt_err ignored;
    if (rt_prefetch_start(&r->cfg->matrices[mi], mi, &r->ahead, &ignored) == 0)
        r->ahead_sent = 0;
}

/* Walk step of parallel: gpus. The coordinator takes the matrix built ahead (building it now if
 * it was not), hands it to the workers, records it and starts the next one's build; a worker
 * maps what its coordinator built. A matrix that could not be built is the matrix's failure,
 * recorded by the coordinator for each of its sweeps as in a serial run. */
static int walk_shared_matrix(run *r, int mi, const rt_matrix_cfg *mc, int64_t shape[3],
                              rt_err *err)
{
    matrix_slot *ms = &r->ms;
    const double t0 = rt_clock_epoch();
    char phase[128];
    snprintf(phase, sizeof phase, "matrix %s", mc->name);
    rt_workers_matrix mx = {.fd = -1};
    if (r->coordinator) {
        if (r->ahead && rt_prefetch_index(r->ahead) != mi) { /* not this walk's next: dropped */
            rt_prefetch_free(r->ahead);
            r->ahead = NULL;
        }
        if (!r->ahead && rt_prefetch_start(mc, mi, &r->ahead, err) != 0)
            return -1;
        char building[160];
        snprintf(building, sizeof building, "building matrix %s", mc->name);
        rt_progress_begin(&r->progress, building, rt_clock_now());
        rt_prefetch_result *res = rt_prefetch_wait(r->ahead);
        rt_progress_clear(&r->progress);
        /* workers still in a sweep two matrices back hold the matrix between: their last points
         * first (a worker keeps one matrix ahead of its walk) */
        const int tail = rt_workers_tail_matrix(r->workers);
        if (!r->ahead_sent && tail >= 0 && tail < mi - 1 && rt_workers_drain(r->workers, err) != 0)
            return -1;
        char ahead_phase[160];
        snprintf(ahead_phase, sizeof ahead_phase, "prefetch %s", phase);
        (void)rt_phases_add(r->opt->phases, ahead_phase, NULL, res->begin, res->end);
        if (!r->ahead_sent && send_ahead(r, err) != 0)
            return -1;
        mx.fd = res->fd;
        res->fd = -1; /* ours now */
        mx.rows = res->rows;
        mx.cols = res->cols;
        mx.nnz = res->nnz;
        mx.load_s = res->end - res->begin;
        snprintf(mx.failed, sizeof mx.failed, "%s", res->failed);
        rt_prefetch_free(r->ahead);
        r->ahead = NULL;
        start_ahead(r, mi + 1);
    } else {
        if (rt_workers_await_matrix(r->workers, mi, &mx, err) != 0)
            return -1;
        if (mx.bye) { /* the coordinator ended the run: the walk stops */
            r->mctx.stop = 1;
            snprintf(ms->failed, sizeof ms->failed, "the run ended");
            return RT_WALK_MATRIX_NO_SPACE;
        }
    }
    if (mx.fd < 0) {
        r->cur_mi = mi;
        logf_rank0(r, "matrix %s: cannot be built: %s\n", mc->name, mx.failed);
        snprintf(ms->failed, sizeof ms->failed, "%s", mx.failed);
        return RT_WALK_MATRIX_NO_SPACE;
    }
    int mapped = 0;
    if (r->next_mi == mi) { /* mapped when it came (map_next) */
        r->cur ^= 1;
        r->next_mi = -1;
    } else {
        mapped = rt_shared_matrix_map(mx.fd, &r->shared[r->cur], err);
    }
    close(mx.fd);
    if (mapped != 0)
        return rt_err_prefix(err, "matrix '%s'", mc->name);
    const rt_csr *csr = &r->shared[r->cur].csr;
    r->cur_mi = mi;
    if (csr->rows != mx.rows || csr->cols != mx.cols || csr->nnz != mx.nnz)
        return rt_err_set(err, "matrix '%s': the shared matrix is not the one announced", mc->name);
    (void)rt_phases_add(r->opt->phases, phase, NULL, t0, rt_clock_epoch());
    logf_rank0(r, "matrix %s: %lld x %lld, %lld nonzeros (%.2f s)\n", mc->name, (long long)mx.rows,
               (long long)mx.cols, (long long)mx.nnz, mx.load_s);
    if (record_matrix(r, mc, csr, mx.load_s, err) != 0)
        return -1;
    ms->local = *csr; /* the whole matrix: every process measures whole points */
    ms->rows = shape[0] = mx.rows;
    ms->cols = shape[1] = mx.cols;
    ms->nnz = shape[2] = mx.nnz;
    return RT_WALK_MATRIX_OK;
}

static void walk_matrix_done(void *ctx, int mi)
{
    (void)mi;
    run *r = ctx;
    rt_measure_release_inputs(&r->mctx);
    if (r->shared[r->cur].base) { /* ms.local is the mapping's */
        /* inputs built ahead for a sweep of this matrix that did not come (a stop) go first */
        if (rt_measure_ahead_matrix(&r->mctx) == &r->shared[r->cur].csr)
            rt_measure_drop_ahead(&r->mctx);
        rt_shared_matrix_unmap(&r->shared[r->cur]);
        memset(&r->ms.local, 0, sizeof r->ms.local);
    }
    rt_csr_free(&r->ms.local);
    rt_csr_free(&r->ms.whole);
}

/* Inputs and the reference depend on the problem point: drop them before the next. So do the
 * abort groups' best times: a group compares the points of one matrix and problem point. */
static void walk_problem_done(void *ctx)
{
    run *r = ctx;
    rt_measure_release_inputs(&r->mctx);
    /* a sweep left open (its last points in flight) keeps its group's best to itself */
    if (r->coordinator)
        rt_workers_own_groups(r->workers);
    for (int i = 0; r->group_best && i < r->cfg->n_kernels; ++i)
        r->group_best[i] = INFINITY;
}

/* The best time of entry kc's abort group (kernels[].abort_group) for the current matrix and
 * problem point: *out points at the slot of the group's first entry, NULL for an entry without a
 * group. */
static int group_slot(run *r, const rt_kernel_cfg *kc, double **out, rt_err *err)
{
    *out = NULL;
    if (!kc->abort_group[0])
        return 0;
    const int n = r->cfg->n_kernels;
    if (!r->group_best) {
        r->group_best = malloc((size_t)n * sizeof *r->group_best);
        if (!r->group_best)
            return rt_err_set(err, "out of memory for the abort groups' best times");
        for (int i = 0; i < n; ++i)
            r->group_best[i] = INFINITY;
    }
    for (int i = 0; i < n; ++i)
        if (strcmp(r->cfg->kernels[i].abort_group, kc->abort_group) == 0) {
            *out = &r->group_best[i];
            break;
        }
    return 0;
}

/* Kernels whose backend is not here are skipped, saying so once. */
static int walk_skip(void *ctx, int mi, int64_t pi, const rt_kernel_desc *kd)
{
    run *r = ctx;
    if (!kd->unavailable)
        return 0;
    if (mi == 0 && pi == 0) {
        r->sum->unavailable_kernels++;
        logf_rank0(r, "kernel %s skipped: %s\n", kd->name, kd->unavailable);
    }
    return 1;
}

static const rt_device_info *walk_device(void *ctx, const rt_kernel_desc *kd)
{
    const run *r = ctx;
    return rt_backend_device(r->be, kd->backend);
}

static int walk_stopped(void *ctx)
{
    const run *r = ctx;
    return r->failed || r->mctx.stop;
}

/* Whether kernel entry kc's points are spread over the workers (a run without parallel tuning
 * spreads none): kernels[i].parallel, else search.parallel. */
static int entry_spreads(const rt_config *cfg, const rt_kernel_cfg *kc)
{
    if (kc->parallel != RT_KERNEL_PARALLEL_SEARCH)
        return kc->parallel == RT_KERNEL_PARALLEL_RANKS;
    return cfg->search.parallel != RT_PARALLEL_NONE;
}

/* The run's parallel tuning: search.parallel, or ranks when that is none but some kernel entry
 * spreads its points over the ranks; *spanning: ranks with some entry whose points span every
 * rank (the config check refuses kernels[i].parallel beside gpus). */
static int run_parallel_mode(const rt_config *cfg, int *spanning)
{
    int spreads = 0, spans = 0;
    for (int ki = 0; ki < cfg->n_kernels; ++ki) {
        const int s = entry_spreads(cfg, &cfg->kernels[ki]);
        spreads |= s;
        spans |= !s;
    }
    int mode = cfg->search.parallel;
    if (mode == RT_PARALLEL_NONE && spreads)
        mode = RT_PARALLEL_RANKS;
    *spanning = mode == RT_PARALLEL_RANKS && spans;
    return mode;
}

/* ---------------------------------------------------------------------------------------------
 * Inputs ahead on a worker of parallel: gpus (rt_inputs_ahead.h) */

/* Starts building the pending next sweep's inputs once its matrix is mapped here. */
static void arm_ahead(run *r)
{
    if (!r->pending)
        return;
    const rt_sweep *n = &r->next;
    int slot;
    if (n->matrix_index == r->cur_mi && r->shared[r->cur].base)
        slot = r->cur;
    else if (n->matrix_index == r->next_mi)
        slot = !r->cur;
    else
        return; /* its matrix has not come yet: map_next arms it */
    r->pending = 0;
    const rt_measure_target t = {.matrix = n->matrix,
                                 .local = &r->shared[slot].csr,
                                 .kernel_cfg = n->kernel_cfg,
                                 .kernel = n->kernel,
                                 .family = n->family,
                                 .device = rt_backend_device(r->be, n->kernel->backend),
                                 .problem = &r->next_problem};
    rt_measure_prepare_ahead(&r->mctx, &t);
}

/* Worker: the sweep after s becomes the pending one (none after the last). */
static int plan_next(run *r, const rt_sweep *s, rt_err *err)
{
    const int got = rt_walk_next(r->cfg, r->reg, s, &r->next, &r->next_problem, err);
    if (got < 0)
        return -1;
    r->pending = got == 1;
    r->next.problem = &r->next_problem;
    arm_ahead(r);
    return 0;
}

/* Worker, as a matrix built ahead comes from the coordinator (rt_workers_on_matrix): the next
 * matrix is mapped now, beside the current one, so its first sweep's inputs can be built during
 * this one. A mapping that fails is left to the walk, which maps it again and says why. */
static int map_next(void *ctx, const rt_workers_matrix *mx, rt_err *err)
{
    (void)err;
    run *r = ctx;
    if (mx->fd < 0 || r->next_mi >= 0 || mx->index != r->cur_mi + 1)
        return 0;
    rt_shared_matrix *sm = &r->shared[!r->cur];
    rt_err ignored;
    if (rt_shared_matrix_map(mx->fd, sm, &ignored) != 0)
        return 0;
    if (sm->csr.rows != mx->rows || sm->csr.cols != mx->cols || sm->csr.nnz != mx->nnz) {
        rt_shared_matrix_unmap(sm);
        return 0;
    }
    r->next_mi = mx->index;
    arm_ahead(r);
    return 0;
}

/* A sweep of a matrix that could not be built: one error point saying why (its parameter space
 * depends on the matrix, so the kernel's own parameters are not enumerated). */
static int sweep_failed_matrix(run *r, const rt_sweep *s, rt_err *err)
{
    rt_params none;
    rt_params_init(&none);
    const rt_measure_target tgt = {.matrix = s->matrix,
                                   .kernel_cfg = s->kernel_cfg,
                                   .kernel = s->kernel,
                                   .family = s->family,
                                   .device = rt_backend_device(r->be, s->kernel->backend),
                                   .problem = s->problem,
                                   .input_error = r->ms.failed};
    double objective;
    return rt_measure_point(&r->mctx, &tgt, &none, 1, "", &objective, r->sum, err);
}

static int sweep_points(run *r, rt_sweep *s, rt_err *err);

/* Walk step: a sweep (sweep_points), its time in the phase record as "sweep N" (N from 1 in the
 * walk's order, the same on every process; a coordinator's sweep of worker processes ends there
 * when it hands out nothing more, its last points' records may come during the next). */
static int walk_sweep(void *ctx, rt_sweep *s, rt_err *err)
{
    run *r = ctx;
    const double t0 = rt_clock_epoch();
    const int rc = sweep_points(r, s, err);
    char phase[32];
    snprintf(phase, sizeof phase, "sweep %d", ++r->sweeps);
    (void)rt_phases_add(r->opt->phases, phase, NULL, t0, rt_clock_epoch());
    return rc;
}

/* The points the search picks from the sweep's space (rt_sweep.h: the budget rule, resume,
 * pruning, early abort's best time), each measured and recorded: here one after the other, or
 * handed to parallel workers (rt_workers.h) whose results come back to be recorded here; a
 * worker measures what its coordinator hands out. */
static int sweep_points(run *r, rt_sweep *s, rt_err *err)
{
    /* spread: this sweep's points go to the workers; else every rank takes part in each */
    const int spread = r->parallel && entry_spreads(r->cfg, s->kernel_cfg);
    if (r->spanning)
        rt_measure_use_comm(&r->mctx, spread ? r->self_comm : r->comm);
    if (!s->space) {
        if (spread && !r->coordinator) /* the coordinator records the matrix's failure */
            return r->share_matrices && plan_next(r, s, err) != 0 ? (r->failed = 1, -1) : 0;
        /* after the open sweep's last points, which a point budget counts first */
        if (r->coordinator && rt_workers_drain(r->workers, err) != 0) {
            r->failed = 1;
            return -1;
        }
        if (r->mctx.stop)
            return 0;
        return sweep_failed_matrix(r, s, err) == 0 ? 0 : (r->failed = 1, -1);
    }
    double *group_best = NULL;
    if (group_slot(r, s->kernel_cfg, &group_best, err) != 0) {
        r->failed = 1;
        return -1;
    }
    const int whole = s->family->wants_whole_matrix || (spread && r->spanning);
    const rt_csr *share = r->share_matrices               ? &r->shared[r->cur].csr
                          : (whole && r->ms.whole.rowptr) ? &r->ms.whole
                                                          : &r->ms.local;
    const rt_measure_target base = {.matrix = s->matrix,
                                    .local = share,
                                    .rows_total = r->ms.rows,
                                    .cols_total = r->ms.cols,
                                    .nnz_total = r->ms.nnz,
                                    .kernel_cfg = s->kernel_cfg,
                                    .kernel = s->kernel,
                                    .family = s->family,
                                    .device = rt_backend_device(r->be, s->kernel->backend),
                                    .problem = s->problem,
                                    .group_best = group_best};
    if (spread && !r->coordinator) {
        if (r->share_matrices) {
            /* This sweep's inputs first (built ahead when they could be), then the next
             * sweep's start building beside its points. */
            rt_measure_prepare(&r->mctx, &base);
            if (plan_next(r, s, err) != 0) {
                r->failed = 1;
                return -1;
            }
        }
        const int rc = rt_workers_serve(r->workers, &r->mctx, s, &base, r->sum, err);
        if (rc != 0)
            r->failed = 1;
        return rc;
    }
    FILE *log = r->rank == 0 ? r->opt->log : NULL;
    int rc = 0;
    if (spread) {
        /* the workers' from here: it may stay open after this step, its last points in flight
         * (worker processes), so it keeps its own copy of what the walk reclaims */
        rt_sweep_run *sw;
        rc = rt_sweep_begin_kept(&sw, &r->mctx, r->cfg, s, &base, r->sum, &r->progress, log, err);
        if (rc == 0)
            rc = rt_workers_coordinate(r->workers, sw, err);
    } else {
        rt_sweep_run sw;
        rc = rt_sweep_begin(&sw, &r->mctx, r->cfg, s, &base, r->sum, &r->progress, log, err);
        int64_t index;
        rt_params params;
        if (rc == 0) /* a sweep that did not begin has no target to look ahead for */
            rt_sweep_lookahead(&sw, r->cfg);
        while (rc == 0 && (rc = rt_sweep_next(&sw, &index, &params, err)) == 1)
            rc = rt_sweep_measure(&sw, index, &params, err);
        rt_sweep_end(&sw);
    }
    if (rc != 0)
        r->failed = 1;
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Parallel tuning: who does what, and the wire between them */

/* parallel: gpus: one worker process per GPU (search.workers overrides), started by the CLI
 * before this process's own set-up (opt->procs) or here, coordinated over sockets. */
static int start_gpu_workers(run *r, rt_err *err)
{
    if (r->nranks > 1)
        return rt_err_set(err, "search.parallel: gpus starts its own worker processes, one per "
                               "GPU; under mpirun use search.parallel: ranks");
    rt_worker_procs *given = r->opt->procs;
    if (given && given->n > 0) {
        r->procs = *given; /* ours now: the CLI's copy is emptied */
        memset(given, 0, sizeof *given);
        /* The store is open and the run begun: the workers may go on (a run that failed before
         * here ends them unreleased, and they leave without a word). */
        rt_worker_procs_release(&r->procs);
    } else {
        if (!r->opt->argv)
            return rt_err_set(err, "search.parallel: gpus needs the command line to start its "
                                   "workers with (rooftune run)");
        const int n = r->cfg->search.workers > 0 ? r->cfg->search.workers : r->be->gpu_count;
        if (n <= 0)
            return rt_err_set(err,
                              "search.parallel: gpus: no GPU here (%s); give search.workers "
                              "to start workers anyway",
                              r->be->cuda_status);
        if (n > RT_WIRE_MAX_SOCKETS)
            return rt_err_set(err, "search.workers: %d, at most %d", n, RT_WIRE_MAX_SOCKETS);
        const double t0 = rt_clock_epoch();
        if (rt_worker_procs_start(r->opt->argc, r->opt->argv, n, r->be->gpu_count, &r->procs,
                                  err) != 0)
            return -1;
        (void)rt_phases_add(r->opt->phases, "spawn", NULL, t0, rt_clock_epoch());
        rt_worker_procs_release(&r->procs);
    }
    const int n = r->procs.n;
    char omp[64] = "OpenMP threads as OMP_NUM_THREADS says";
    if (r->procs.threads > 0)
        snprintf(omp, sizeof omp, "%d OpenMP thread(s) each", r->procs.threads);
    logf_rank0(r, "parallel tuning: %d worker process(es), one per %s, %s\n", n,
               r->procs.gpu[0][0] ? "GPU (each sees its own alone)"
                                  : "worker (no GPU here: CPU kernels)",
               omp);
    if (rt_wire_open_sockets(r->procs.fds, n, 1, &r->wire, err) != 0)
        return -1;
    for (int i = 0; i < n; ++i)
        r->procs.fds[i] = -1; /* the wire's now */
    return rt_workers_coordinator(r->wire, 1, n, 0, 1, &r->workers, err);
}

/* Step: the roles of parallel tuning. ranks: rank 0 coordinates and measures, every other rank
 * is a worker; gpus: the process started by the user coordinates, the ones it starts are
 * workers. Every role measures with a job of its own rank alone. */
static int step_parallel(run *r, rt_err *err)
{
    r->parallel = r->opt->dry_run ? RT_PARALLEL_NONE : run_parallel_mode(r->cfg, &r->spanning);
    if (r->parallel == RT_PARALLEL_NONE)
        return 0;
    const int child = r->opt->worker_fd > 0;
    r->coordinator = r->parallel == RT_PARALLEL_RANKS ? r->rank == 0 : !child;
    if (rt_comm_create_self(&r->self_comm, err) != 0)
        return -1;
    if (r->parallel == RT_PARALLEL_RANKS) {
        if (rt_wire_open_mpi(r->comm, &r->wire, err) != 0)
            return -1;
        if (r->coordinator) {
            logf_rank0(r, "parallel tuning: %d rank(s), each measuring whole points%s\n", r->nranks,
                       r->spanning
                           ? " (the kernel entries not spread: every rank in each of their points)"
                           : "");
            return rt_workers_coordinator(r->wire, 1, r->nranks - 1, 1, 0, &r->workers, err);
        }
        return rt_workers_worker(r->wire, 0, &r->workers, err);
    }
    r->share_matrices = 1;
    if (child) {
        const int fd = r->opt->worker_fd;
        if (rt_wire_open_sockets(&fd, 1, 0, &r->wire, err) != 0 ||
            rt_workers_worker(r->wire, 0, &r->workers, err) != 0)
            return -1;
        rt_workers_on_matrix(r->workers, map_next, r);
        return 0;
    }
    if (r->opt->ahead && *r->opt->ahead) { /* the first matrix, started by the CLI */
        r->ahead = *r->opt->ahead;
        *r->opt->ahead = NULL;
    }
    if (start_gpu_workers(r, err) != 0)
        return -1;
    if (!r->ahead)
        start_ahead(r, 0);
    rt_workers_on_idle(r->workers, hand_ahead, r);
    return 0;
}

/* A process that no launcher started runs without MPI until a kernel asks for a communicator
 * (rt_comm.h); when one did, its MPI start joins the phase record where it happened, before the
 * record travels (a worker's) or is stored. */
static void note_late_mpi(run *r)
{
    double b, e;
    rt_comm *const comms[] = {r->comm, r->self_comm};
    for (int i = 0; i < 2 && !r->mpi_noted; ++i)
        if (comms[i] && rt_comm_init_times(comms[i], &b, &e)) {
            (void)rt_phases_add(r->opt->phases, "mpi", NULL, b, e);
            r->mpi_noted = 1;
        }
}

/* End of a parallel run: every worker's compile counts and phase record join the coordinator's,
 * the worker processes are waited for. */
static int finish_parallel(run *r, int failed, rt_err *err)
{
    const double t0 = rt_clock_epoch();
    int rc = 0;
    note_late_mpi(r);
    /* the last sweep's last points, when it was left open (recorded unless the run failed
     * before: then, as after a failed sweep, they are not) */
    if (r->coordinator && !failed && rt_workers_drain(r->workers, err) != 0) {
        failed = 1;
        rc = -1;
    }
    if (r->workers) {
        int compiles = r->sum->compiles, hits = r->sum->cache_hits;
        rt_err finish_err;
        if (rt_workers_finish(r->workers, failed, &compiles, &hits, r->opt->phases, &finish_err) !=
                0 &&
            rc == 0) {
            *err = finish_err;
            rc = -1;
        }
        if (r->coordinator) {
            r->sum->compiles = compiles;
            r->sum->cache_hits = hits;
        }
    }
    rt_workers_free(r->workers);
    r->workers = NULL;
    rt_wire_close(r->wire);
    r->wire = NULL;
    if (r->procs.n > 0) {
        rt_err reap_err;
        if (rt_worker_procs_wait(&r->procs, r->opt->phases, &reap_err) != 0 && rc == 0) {
            *err = reap_err;
            rc = -1;
        }
    }
    if (r->coordinator)
        (void)rt_phases_add(r->opt->phases, "workers end", NULL, t0, rt_clock_epoch());
    rt_comm_free(r->self_comm);
    r->self_comm = NULL;
    rt_prefetch_free(r->ahead); /* a build the walk did not reach (a stop, a failure) */
    r->ahead = NULL;
    /* A walk that failed inside a matrix, or one whose next matrix was mapped: the inputs (and
     * those built ahead) go first. */
    rt_measure_drop_ahead(&r->mctx);
    rt_measure_release_inputs(&r->mctx);
    for (int i = 0; i < 2; ++i)
        rt_shared_matrix_unmap(&r->shared[i]);
    memset(&r->ms.local, 0, sizeof r->ms.local);
    r->next_mi = -1;
    return rc;
}

/* The phase record of every process into the store (the process that owns it), and one line per
 * process in the log. */
static int write_phases(run *r, rt_err *err)
{
    rt_phases *ph = r->opt->phases;
    if (!ph || r->rank != 0 || !r->store)
        return 0;
    note_late_mpi(r);
    (void)rt_phases_add(ph, "end", NULL, rt_clock_epoch(), NAN);
    rt_store_phase_row *rows = NULL;
    int n = 0;
    int rc = rt_phases_rows(ph, &rows, &n, err);
    if (rc == 0)
        rc = rt_store_add_phases(r->store, r->run_id, rows, n, err);
    free(rows);
    if (rc == 0 && r->parallel)
        rt_phases_print(ph, r->opt->log);
    return rc;
}

/* Step: the run's status in the store, and the store closed. */
static int step_end_run(run *r, int rc, rt_err *err)
{
    rt_progress_clear(&r->progress);
    rt_measure_finish(&r->mctx, r->sum);
    if (r->parallel) {
        rt_err finish_err;
        if (finish_parallel(r, rc != 0, &finish_err) != 0 && rc == 0) {
            *err = finish_err;
            rc = -1;
        }
    }
    {
        rt_err phase_err;
        if (write_phases(r, &phase_err) != 0 && rc == 0) {
            *err = phase_err;
            rc = -1;
        }
    }
    if (r->rank == 0 && r->store) {
        rt_err end_err;
        const char *status = rc != 0 || r->rank_failed ? "failed"
                             : r->mctx.stop            ? "interrupted"
                                                       : "complete";
        if (rt_store_end_run(r->store, r->run_id, status, &end_err) != 0 && rc == 0) {
            *err = end_err;
            rc = -1;
        }
    }
    close_store(r);
    free(r->group_best);
    r->group_best = NULL;
    r->sum->interrupted_by = r->mctx.interrupted_by;
    r->sum->kept = r->mctx.new_points;
    rt_measure_free(&r->mctx);
    return rc;
}

int rt_run_experiment(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                      void *comm_ptr, const rt_run_options *opt, rt_run_summary *sum, rt_err *err)
{
    memset(sum, 0, sizeof *sum);
    sum->run_id = -1;
    run r = {.cfg = cfg,
             .reg = reg,
             .be = be,
             .comm = comm_ptr,
             .opt = opt,
             .sum = sum,
             .run_id = -1,
             .cur_mi = -1,
             .next_mi = -1};
    r.rank = rt_comm_world_rank(r.comm);
    r.nranks = rt_comm_world_size(r.comm);
    rt_provenance_init(&r.prov);
    if (step_open_store(&r, err) != 0 || step_begin_run(&r, err) != 0)
        return -1;
    int ok = step_parallel(&r, err) == 0, first_bad = -1;
    if (rt_comm_all_ok(r.comm, ok, &ok, &first_bad) != 0 || !ok ||
        rt_measure_init(&r.mctx, cfg, be, r.parallel ? r.self_comm : r.comm, r.store, r.run_id,
                        &r.prov, opt, err) != 0) {
        if (first_bad >= 0 && first_bad != r.rank && err->msg[0] == '\0')
            rt_err_set(err, "rank %d could not start parallel tuning", first_bad);
        if (r.parallel) {
            rt_err ignored;
            finish_parallel(&r, 1, &ignored);
        }
        if (r.store)
            rt_store_end_run(r.store, r.run_id, "failed", NULL);
        close_store(&r);
        return -1;
    }
    rt_progress_init(&r.progress, r.rank == 0 && !opt->dry_run ? opt->progress : NULL, -1,
                     RT_PROGRESS_INTERVAL_S, expected_points(cfg, reg), rt_clock_now());
    r.mctx.progress = &r.progress;
    const rt_walk_ops walk = {.matrix = walk_matrix,
                              .matrix_done = walk_matrix_done,
                              .skip = walk_skip,
                              .device = walk_device,
                              .sweep = walk_sweep,
                              .problem_done = walk_problem_done,
                              .stopped = walk_stopped};
    const int rc = rt_walk(cfg, reg, &walk, &r, err);
    return step_end_run(&r, rc, err);
}
