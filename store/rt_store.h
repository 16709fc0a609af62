/* rt_store: the SQLite result store (WAL mode, versioned schema, one transaction per point).
 *
 * Tables (schema version in PRAGMA user_version; see docs/reference/store.md):
 *   runs     one row per `rooftune run`: provenance (git revision, dirty flag, compiler, CUDA and
 *            driver versions, device, host, MPI library, topology, config path, text and hash,
 *            build id, start/end time, command line)
 *   points   one row per measured point: experiment, kernel, backend, family, matrix, params
 *            (canonical JSON), problem (canonical JSON), ranks, device, status, reason, verified,
 *            rel_error, summary statistics, gflops, gnnz_s, bound_s, efficiency, point_key
 *   metrics  one row per (point, name): value or NULL with the reason it is unavailable
 *   samples  one row per timed repetition: point_id, rep, seconds (max over ranks), min/avg over
 * ranks matrices one row per (run, matrix): rows, cols, nnz, generator, arguments, source file
 *
 * Only MPI rank 0 opens the store. */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_metrics.h"

#define RT_STORE_SCHEMA_VERSION 2

typedef struct rt_store rt_store;

typedef enum rt_point_status {
    RT_POINT_OK = 0,         /* verified and timed */
    RT_POINT_WRONG = 1,      /* failed the verification gate: never timed or ranked */
    RT_POINT_INFEASIBLE = 2, /* the device cannot run it (resources, spills, constraint) */
    RT_POINT_ERROR = 3,      /* setup or run failed (message in reason) */
    RT_POINT_TIMEOUT = 4,    /* one execution exceeded measure.point_timeout_s */
    RT_POINT_ABOVE_ROOFLINE =
        5,              /* timed faster than its bound allows: a measurement or model bug */
    RT_POINT_PRUNED = 6 /* never run: its roofline bound exceeds the best time already measured */
} rt_point_status;

const char *rt_point_status_name(rt_point_status s);

typedef struct rt_provenance {
    char git_revision[48];
    int git_dirty;
    char compiler[96];
    char cuda_runtime[32];
    char cuda_driver[32];
    char device[128];
    char host[128];
    char mpi_library[256];
    char topology[256]; /* e.g. "4 ranks: 2 nodes x 2 ranks/node (emulated)" */
    int nranks;
    char config_path[1024];
    const char *config_text;
    char config_hash[17];
    char build_id[64];       /* what "same build" means for resume: revision + dirty + compiler */
    char command_line[8192]; /* whole, or the run is refused (rt_cli_run) */
} rt_provenance;

/* Fills the fields the store can find itself (git, compiler, host, build id); the runner fills
 * the rest (device, MPI, topology, config). */
void rt_provenance_init(rt_provenance *p);

typedef struct rt_point_record {
    char experiment[64];
    char kernel[96];
    char backend[16];
    char family[32];
    char matrix[64];
    char params_json[1024]; /* canonical (rt_params_to_json) */
    char problem_json[512]; /* canonical */
    char device[128];
    int ranks;
    char point_key[17]; /* hash of kernel, matrix, params, problem, ranks */
    rt_point_status status;
    char reason[512];
    int verified;     /* 1: passed the verification gate */
    double rel_error; /* NAN when not verified */
    double tolerance;
    int n_samples;
    const double *samples;          /* seconds, max over ranks, n_samples entries */
    const double *samples_rank_min; /* may be NULL */
    const double *samples_rank_avg; /* may be NULL */
    double time_median_s, time_min_s, time_max_s, time_mean_s, time_stddev_s;
    double ci_rel; /* achieved relative half-width of the median's confidence interval */
    double flops;  /* nominal */
    double gflops; /* flops / median */
    double gnnz_s;
    double bound_s;            /* NAN until the roofline fills it */
    double efficiency;         /* bound_s / time_median_s, NAN when no bound */
    double setup_s;            /* preprocessing + compilation time of the point */
    const rt_metrics *metrics; /* may be NULL */
} rt_point_record;

typedef struct rt_matrix_record {
    char name[64];
    int64_t rows, cols, nnz;
    char generator[32];
    char args_json[512];
    char file[1024];
    char ordering[32];
    double load_s;
} rt_matrix_record;

/* Opens (creating if needed) the store at path; enables WAL; creates or checks the schema.
 * A file that is not a rooftune store, or of a newer schema, is an error naming the path. */
int rt_store_open(const char *path, rt_store **out, rt_err *err);
void rt_store_close(rt_store *st);
/* Starts a run row; returns its id. */
int rt_store_begin_run(rt_store *st, const rt_provenance *prov, const char *experiment,
                       int64_t *run_id, rt_err *err);
int rt_store_end_run(rt_store *st, int64_t run_id, const char *status, rt_err *err);
/* Marks every run still 'running' as 'interrupted' (ended now) and says how many there were. Call
 * it only while holding the store's lock (rt_store_lock.h): then no live process writes those
 * runs, and 'running' is what a killed run (kill -9, power loss) left behind. */
int rt_store_mark_stale_runs(rt_store *st, int *n_marked, rt_err *err);
int rt_store_add_matrix(rt_store *st, int64_t run_id, const rt_matrix_record *m, rt_err *err);
/* 1 when a point with this key was already measured (any status) by a run with the same build id
 * and config hash: the resume check. */
int rt_store_point_done(rt_store *st, const char *build_id, const char *config_hash,
                        const char *point_key, int *done, rt_err *err);
/* The resume check with what the search needs to replay its path: *done as above; *pruned when
 * the stored point was pruned; for a stored point of status ok its median time in *time_s
 * (INFINITY otherwise: failed and pruned points have no objective) and its roofline bound in
 * *bound_s (NAN when none). */
int rt_store_point_resume(rt_store *st, const char *build_id, const char *config_hash,
                          const char *point_key, int *done, int *pruned, double *time_s,
                          double *bound_s, rt_err *err);
/* Writes the point, its metrics and samples in one transaction. */
int rt_store_add_point(rt_store *st, int64_t run_id, const rt_point_record *pt, int64_t *point_id,
                       rt_err *err);
/* Updates bound_s, efficiency and status of a stored point (used by the roofline check). */
int rt_store_set_bound(rt_store *st, int64_t point_id, double bound_s, double efficiency,
                       rt_point_status status, const char *reason, rt_err *err);
/* The underlying handle, for export/plot/compare queries. */
struct sqlite3 *rt_store_db(rt_store *st);
/* Checks that a handle opened elsewhere (read-only by export, plot, compare) is a rooftune
 * store this build can read: a SQLite file, rooftune's application id, a schema version not
 * newer than RT_STORE_SCHEMA_VERSION. The message leaves naming the file to the caller. */
int rt_store_check(struct sqlite3 *db, rt_err *err);
/* The experiment names found in the store's runs and points, sorted; writes at most max names
 * and sets *n to the number written. */
int rt_store_experiments(struct sqlite3 *db, char (*names)[64], int max, int *n, rt_err *err);

#endif
