#define _POSIX_C_SOURCE 200809L
#include "rt_runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_generators.h"
#include "rt_interrupt.h"
#include "rt_measure.h"
#include "rt_problem.h"
#include "rt_progress.h"
#include "rt_prune.h"
#include "rt_search.h"
#include "rt_space.h"
#include "rt_store.h"
#include "rt_store_lock.h"
#include "rt_strutil.h"

/* Everything one rank needs about the current matrix. */
typedef struct matrix_slot {
    const rt_matrix_cfg *cfg;
    rt_csr full_shape; /* only rows/cols/nnz used: the whole matrix's facts */
    rt_csr local;      /* this rank's block of rows (the whole matrix on one rank) */
    rt_csr whole;      /* the whole matrix, kept beside `local` for families that partition it
                          themselves (wants_whole_matrix); empty on one rank, where local is whole */
    int64_t row0, row1;
} matrix_slot;

static void logf_rank0(const rt_run_options *opt, int rank, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static void logf_rank0(const rt_run_options *opt, int rank, const char *fmt, ...)
{
    if (rank != 0 || !opt->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(opt->log, fmt, ap);
    va_end(ap);
    fflush(opt->log);
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

/* Points the run expects, for the progress line: per kernel its parameter combinations, or as
 * many as the search's budget lets through (the rule of rt_search_create), for every matrix and
 * problem point. Kernels whose backend is absent are skipped by the run, so they are not counted.
 */
static int64_t expected_points(const rt_config *cfg, const rt_registry *reg, int64_t nproblems)
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
        int64_t budget = size;
        if (cfg->search.budget > 0)
            budget = cfg->search.budget;
        else if (cfg->search.strategy[0] && strcmp(cfg->search.strategy, "exhaustive") != 0)
            budget = RT_SEARCH_DEFAULT_BUDGET;
        per_input += size < budget ? size : budget;
    }
    return per_input * nproblems * cfg->n_matrices;
}

/* Records one error point per available kernel and problem point of a matrix that could not be
 * built (its parameter space depends on the matrix, so the kernel's own parameters are not
 * enumerated): the store shows which matrix failed and why, and the exit status says so. */
static int record_matrix_failure(rt_measure_ctx *mctx, const rt_config *cfg, const rt_registry *reg,
                                 const rt_backend *be, const rt_matrix_cfg *mc, int64_t nproblems,
                                 const char *why, rt_run_summary *sum, rt_err *err)
{
    char reason[RT_ERR_MSG_MAX];
    snprintf(reason, sizeof reason, "%s", why);
    for (int64_t pi = 0; pi < nproblems && !mctx->stop; ++pi) {
        rt_params problem_given;
        if (rt_problem_point(cfg, pi, &problem_given, err) != 0)
            return -1;
        for (int ki = 0; ki < cfg->n_kernels && !mctx->stop; ++ki) {
            const rt_kernel_desc *kd = rt_registry_find_kernel(reg, cfg->kernels[ki].name);
            if (!kd || kd->unavailable)
                continue;
            const rt_family_desc *fam = rt_registry_find_family(reg, kd->family);
            rt_params problem, none;
            rt_params_init(&none);
            if (rt_problem_for_family(fam, &problem_given, &problem, err) != 0)
                return rt_err_prefix(err, "kernel %s", kd->name);
            const rt_measure_target tgt = {.matrix = mc,
                                           .kernel_cfg = &cfg->kernels[ki],
                                           .kernel = kd,
                                           .family = fam,
                                           .device = rt_backend_device(be, kd->backend),
                                           .problem = &problem,
                                           .input_error = reason};
            double objective;
            if (rt_measure_point(mctx, &tgt, &none, 1, "", &objective, sum, err) != 0)
                return -1;
        }
    }
    return 0;
}

static int build_matrix(const rt_matrix_cfg *mc, rt_csr *out, rt_err *err)
{
    const char *gen = mc->generator[0] ? mc->generator : NULL;
    const char *file = mc->file[0] ? mc->file : NULL;
    if (rt_matrix_build(gen, &mc->gen, file, mc->ordering[0] ? mc->ordering : NULL, out, err) !=
        0) {
        char loc[600];
        rt_src_loc_format(&mc->loc, loc, sizeof loc);
        return rt_err_prefix(err, "%s: matrix '%s'", loc, mc->name);
    }
    return 0;
}

int rt_run_experiment(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                      void *comm_ptr, const rt_run_options *opt, rt_run_summary *sum, rt_err *err)
{
    rt_comm *comm = comm_ptr;
    const int rank = rt_comm_world_rank(comm);
    const int nranks = rt_comm_world_size(comm);
    memset(sum, 0, sizeof *sum);
    sum->run_id = -1;

    rt_store *store = NULL;
    rt_provenance prov;
    rt_provenance_init(&prov);
    int rc = 0;
    int64_t run_id = -1;

    /* Rank 0 owns the store; every other rank learns whether opening it worked so that nobody
     * starts measuring for a run that cannot be recorded. */
    int ok = 1;
    rt_store_lock *lock = NULL;
    if (rank == 0 && !opt->dry_run) {
        /* One writer at a time: a second run into this store would measure the same points. */
        if (rt_store_lock_acquire(opt->db_path, &lock, err) != 0 ||
            rt_store_open(opt->db_path, &store, err) != 0)
            ok = 0;
        int stale = 0;
        if (ok && rt_store_mark_stale_runs(store, &stale, err) != 0)
            ok = 0;
        if (ok && stale > 0 && opt->log)
            fprintf(opt->log,
                    "  store: %d earlier run(s) left 'running' by a process that ended without "
                    "closing them are now marked 'interrupted' (their points are kept)\n",
                    stale);
        if (!ok) {
            rt_store_close(store);
            store = NULL;
            rt_store_lock_release(lock);
            lock = NULL;
        }
    }
    int first_bad = -1;
    if (rt_comm_all_ok(comm, ok, &ok, &first_bad) != 0 || !ok) {
        if (rank != 0)
            rt_err_set(err, "rank 0 could not open the store %s", opt->db_path);
        return -1;
    }

    const rt_device_info *cpu = &be->cpu;
    if (rank == 0) {
        snprintf(prov.device, sizeof prov.device, "%s", be->cuda_loaded ? be->gpu.name : cpu->name);
        snprintf(prov.cuda_runtime, sizeof prov.cuda_runtime, "%s",
                 be->cuda_loaded ? be->gpu.runtime_version : "");
        snprintf(prov.cuda_driver, sizeof prov.cuda_driver, "%s",
                 be->cuda_loaded ? be->gpu.driver_version : "");
        rt_comm_library_version(prov.mpi_library, sizeof prov.mpi_library);
        rt_comm_describe(comm, prov.topology, sizeof prov.topology);
        prov.nranks = nranks;
        snprintf(prov.config_path, sizeof prov.config_path, "%s", cfg->path);
        prov.config_text = cfg->text;
        snprintf(prov.config_hash, sizeof prov.config_hash, "%s", cfg->hash);
        snprintf(prov.command_line, sizeof prov.command_line, "%s",
                 opt->command_line ? opt->command_line : "");
        if (store && rt_store_begin_run(store, &prov, cfg->name, &run_id, err) != 0) {
            rt_store_close(store);
            store = NULL;
            rt_store_lock_release(lock);
            lock = NULL;
            ok = 0;
        }
    }
    if (rt_comm_all_ok(comm, ok, &ok, &first_bad) != 0 || !ok) {
        if (rank != 0)
            rt_err_set(err, "rank 0 could not start a run in %s", opt->db_path);
        return -1;
    }
    sum->run_id = run_id;

    rt_measure_ctx mctx;
    if (rt_measure_init(&mctx, cfg, be, comm, store, run_id, &prov, opt, err) != 0) {
        if (store) {
            rt_store_end_run(store, run_id, "failed", NULL);
            rt_store_close(store);
        }
        rt_store_lock_release(lock);
        return -1;
    }

    const int64_t nproblems = rt_problem_count(cfg);
    int rank_failed = 0; /* a step failed on some ranks and not on rank 0 */
    rt_progress progress;
    rt_progress_init(&progress, rank == 0 && !opt->dry_run ? opt->progress : NULL, -1,
                     RT_PROGRESS_INTERVAL_S, expected_points(cfg, reg, nproblems), rt_clock_now());
    mctx.progress = &progress;
    for (int mi = 0; mi < cfg->n_matrices && rc == 0 && !mctx.stop; ++mi) {
        const rt_matrix_cfg *mc = &cfg->matrices[mi];
        rt_csr full;
        memset(&full, 0, sizeof full);
        const double t0 = rt_clock_now();
        char building[128];
        snprintf(building, sizeof building, "building matrix %s", mc->name);
        rt_progress_begin(&progress, building, t0);
        ok = build_matrix(mc, &full, err) == 0;
        rt_progress_clear(&progress);
        /* The first failed rank's own message travels to every rank (rank 0 records it). */
        const int built_here = ok;
        char other_why[RT_ERR_MSG_MAX];
        if (rt_comm_all_ok_msg(comm, ok, ok ? NULL : err->msg, &ok, &first_bad, other_why,
                               sizeof other_why) != 0) {
            rc = -1;
            break;
        }
        if (!ok) {
            /* Every rank builds the same matrix, so the same error usually holds everywhere: a
             * bad matrix is the matrix's failure, not the run's. Its points are recorded as
             * errors saying why, and the run goes on with the next matrix. A matrix that failed
             * on another rank but not here (a file that differs between nodes) is the run's
             * failure too: the run is then not marked complete. */
            if (built_here) {
                rt_err_set(err, "matrix '%s' failed on rank %d: %s", mc->name, first_bad,
                           other_why);
                rank_failed = 1;
                if (rank == 0)
                    fprintf(stderr, "rooftune: %s\n", err->msg);
            }
            rt_csr_free(&full);
            logf_rank0(opt, rank, "matrix %s: cannot be built: %s\n", mc->name, err->msg);
            rc = record_matrix_failure(&mctx, cfg, reg, be, mc, nproblems, err->msg, sum, err);
            continue;
        }
        const double load_s = rt_clock_now() - t0;
        logf_rank0(opt, rank, "matrix %s: %lld x %lld, %lld nonzeros (%.2f s)\n", mc->name,
                   (long long)full.rows, (long long)full.cols, (long long)full.nnz, load_s);
        if (rank == 0 && store) {
            rt_matrix_record mr;
            memset(&mr, 0, sizeof mr);
            snprintf(mr.name, sizeof mr.name, "%s", mc->name);
            mr.rows = full.rows;
            mr.cols = full.cols;
            mr.nnz = full.nnz;
            snprintf(mr.generator, sizeof mr.generator, "%s", mc->generator);
            rt_params_to_json(&mc->gen, mr.args_json, sizeof mr.args_json);
            snprintf(mr.file, sizeof mr.file, "%s", mc->file);
            snprintf(mr.ordering, sizeof mr.ordering, "%s",
                     mc->ordering[0] ? mc->ordering : "natural");
            mr.load_s = load_s;
            if (rt_store_add_matrix(store, run_id, &mr, err) != 0) {
                rt_csr_free(&full);
                rc = -1;
                break;
            }
        }
        matrix_slot ms;
        memset(&ms, 0, sizeof ms);
        ms.cfg = mc;
        ms.full_shape.rows = full.rows;
        ms.full_shape.cols = full.cols;
        ms.full_shape.nnz = full.nnz;
        split_rows(&full, rank, nranks, &ms.row0, &ms.row1);
        if (nranks == 1) {
            ms.local = full; /* take ownership, no copy */
            memset(&full, 0, sizeof full);
        } else {
            ok = rt_csr_row_block(&ms.local, &full, ms.row0, ms.row1, err) == 0;
            ms.whole = full; /* kept for distributed families */
            memset(&full, 0, sizeof full);
            if (rt_comm_all_ok(comm, ok, &ok, &first_bad) != 0 || !ok) {
                rt_csr_free(&ms.whole);
                rc = -1;
                break;
            }
        }

        for (int64_t pi = 0; pi < nproblems && rc == 0 && !mctx.stop; ++pi) {
            rt_params problem_given;
            if (rt_problem_point(cfg, pi, &problem_given, err) != 0) {
                rc = -1;
                break;
            }
            for (int ki = 0; ki < cfg->n_kernels && rc == 0 && !mctx.stop; ++ki) {
                const rt_kernel_cfg *kc = &cfg->kernels[ki];
                const rt_kernel_desc *kd = rt_registry_find_kernel(reg, kc->name);
                if (!kd) {
                    rc = rt_err_set(err, "kernel '%s' is not registered", kc->name);
                    break;
                }
                if (kd->unavailable) {
                    if (mi == 0 && pi == 0) {
                        sum->unavailable_kernels++;
                        logf_rank0(opt, rank, "kernel %s skipped: %s\n", kd->name, kd->unavailable);
                    }
                    continue;
                }
                const rt_family_desc *fam = rt_registry_find_family(reg, kd->family);
                rt_params problem;
                if (rt_problem_for_family(fam, &problem_given, &problem, err) != 0) {
                    rc = rt_err_prefix(err, "kernel %s", kd->name);
                    break;
                }
                const rt_device_info *dev = rt_backend_device(be, kd->backend);
                rt_space *space = NULL;
                if (rt_space_build(kc, kd, &problem, ms.full_shape.rows, ms.full_shape.cols,
                                   ms.full_shape.nnz, dev, &space, err) != 0) {
                    rc = -1;
                    break;
                }
                /* With pruning a pruned candidate uses no budget (as in replay): the search may
                 * yield the whole space, and the sweep ends after `budget` points that were not
                 * pruned (the budget rt_search_create would have set). */
                rt_search *search = NULL;
                rt_search_cfg search_cfg = cfg->search;
                int64_t budget = -1;
                if (cfg->search.prune_bound) {
                    if (rt_search_create(&cfg->search, space, &search, err) != 0) {
                        rt_space_free(space);
                        rc = -1;
                        break;
                    }
                    budget = rt_search_budget(search);
                    rt_search_free(search);
                    search = NULL;
                    search_cfg.budget = INT32_MAX;
                }
                if (rt_search_create(&search_cfg, space, &search, err) != 0) {
                    rt_space_free(space);
                    rc = -1;
                    break;
                }
                int64_t counted = 0;
                const rt_csr *share =
                    (fam->wants_whole_matrix && ms.whole.rowptr) ? &ms.whole : &ms.local;
                /* Pruning is per sweep (this kernel, matrix and problem point): the tuning table
                 * keeps each kernel's best, so a kernel's candidates compete with its own. */
                rt_prune prune;
                rt_prune_init(&prune, cfg->search.prune_bound, cfg->search.stop_within);
                rt_measure_target tgt = {.matrix = mc,
                                         .local = share,
                                         .rows_total = ms.full_shape.rows,
                                         .cols_total = ms.full_shape.cols,
                                         .nnz_total = ms.full_shape.nnz,
                                         .kernel_cfg = kc,
                                         .kernel = kd,
                                         .family = fam,
                                         .device = dev,
                                         .problem = &problem,
                                         .prune = cfg->search.prune_bound ? &prune : NULL};
                int64_t index;
                while (rc == 0 && !mctx.stop && (budget < 0 || counted < budget) &&
                       rt_search_next(search, &index) == 1) {
                    rt_params params;
                    int feasible = 1;
                    char why[512] = "";
                    if (rt_space_point(space, index, &params, &feasible, why, sizeof why, err) !=
                        0) {
                        rc = -1;
                        break;
                    }
                    double objective = INFINITY;
                    const int64_t pruned_before = prune.pruned;
                    if (progress.out) {
                        char current[256], shown[160];
                        rt_params_to_json(&params, shown, sizeof shown);
                        snprintf(current, sizeof current, "%s %s %s", kd->name, mc->name, shown);
                        rt_progress_begin(&progress, current, rt_clock_now());
                    }
                    if (rt_measure_point(&mctx, &tgt, &params, feasible, why, &objective, sum,
                                         err) != 0) {
                        rc = -1;
                        break;
                    }
                    rt_progress_done(&progress);
                    rt_search_report(search, index, objective);
                    counted += feasible && prune.pruned == pruned_before;
                    if (rt_prune_done(&prune)) {
                        sum->stopped_within++;
                        logf_rank0(opt, rank,
                                   "  %s %s: stopped, the best point (%.4g ms) is within %.3g of "
                                   "its roofline bound (%.4g ms)\n",
                                   kd->name, mc->name, prune.best * 1e3, prune.stop_within,
                                   prune.best_bound * 1e3);
                        break;
                    }
                }
                rt_search_free(search);
                rt_space_free(space);
            }
            /* Inputs and the reference depend on the problem point: drop them before the next. */
            rt_measure_release_inputs(&mctx);
        }
        rt_measure_release_inputs(&mctx);
        rt_csr_free(&ms.local);
        rt_csr_free(&ms.whole);
    }

    rt_progress_clear(&progress);
    rt_measure_finish(&mctx, sum);
    if (rank == 0 && store) {
        rt_err end_err;
        const char *status = rc != 0 || rank_failed ? "failed"
                             : mctx.stop            ? "interrupted"
                                                    : "complete";
        if (rt_store_end_run(store, run_id, status, &end_err) != 0 && rc == 0) {
            *err = end_err;
            rc = -1;
        }
        rt_store_close(store);
    }
    rt_store_lock_release(lock);
    sum->interrupted_by = mctx.interrupted_by;
    sum->kept = mctx.new_points;
    rt_measure_free(&mctx);
    return rc;
}
