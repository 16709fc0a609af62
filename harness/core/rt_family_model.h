/* rt_family_model: a family's model-only mode (`rooftune run CONFIG --model-only --ranks N`) as a
 * per-point hook. The app walks the config as a run does (matrices x problem points x kernels x
 * every point of each space; app/runner/rt_model_run.h), runs nothing, and for each point asks
 * the family's hook for one row of its table: what the family's model says the point would do in
 * a virtual job of N ranks. The app writes every family's rows the same way (CSV and JSON, and a
 * line per point on the terminal); the family names its columns and fills their values.
 *
 * The columns the app knows (experiment, matrix, kernel, the job's shape, the status and its
 * reason, the machine) are placed by the family's table but filled by the app. */
#ifndef RT_FAMILY_MODEL_H
#define RT_FAMILY_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_matrix.h"
#include "rt_params.h"
#include "rt_registry.h"

/* The job a family's model plans for: a virtual job of nranks ranks that is never launched, and
 * the machine's tier ceilings for predicted times. */
typedef struct rt_model_job {
    int nranks;               /* the virtual job */
    int ranks_per_node;       /* 0: one node */
    int ranks_per_socket;     /* 0: one socket per node */
    const char *machine_name; /* "" without a machine file (volumes only) */
    int have_tiers;           /* every tier has a ceiling: times can be predicted */
    double tier_gbs[RT_TIER_COUNT];
    double tier_latency_us[RT_TIER_COUNT];
} rt_model_job;

typedef enum rt_model_kind {
    RT_MODEL_INT,  /* an integer */
    RT_MODEL_REAL, /* a number; not finite: empty in the CSV, null in the JSON */
    RT_MODEL_TEXT, /* a string (quoted in the CSV when it must be) */
    RT_MODEL_INTS, /* a list of integers: in the CSV `width` columns <name>_l0, <name>_l1, ...
                      (empty beyond the list), in the JSON an array */
} rt_model_kind;

/* Where a column's value comes from. */
typedef enum rt_model_source {
    RT_MODEL_OWN = 0,          /* the family's hook fills it */
    RT_MODEL_EXPERIMENT,       /* the app: the config's experiment name */
    RT_MODEL_MATRIX,           /* the matrix's name */
    RT_MODEL_KERNEL,           /* the kernel's name */
    RT_MODEL_RANKS,            /* the job's ranks */
    RT_MODEL_RANKS_PER_NODE,   /* its ranks per node (0: one node) */
    RT_MODEL_RANKS_PER_SOCKET, /* its ranks per socket (0: one socket per node) */
    RT_MODEL_STATUS,           /* "ok", or "infeasible" for a point that cannot run in the job */
    RT_MODEL_REASON,           /* why not ("" for ok) */
    RT_MODEL_MACHINE,          /* the machine file's name ("" without one) */
} rt_model_source;

typedef struct rt_model_column {
    const char *name;
    rt_model_kind kind;
    rt_model_source source;
    int result; /* 1: known only for a point that can run: empty in the CSV and left out of the
                   JSON for an infeasible one (the JSON lists a row's other columns first) */
    int width;  /* RT_MODEL_INTS: CSV columns */
} rt_model_column;

/* The app's columns, for a family's table to place. */
#define RT_MODEL_COLUMN_EXPERIMENT                                                                 \
    {                                                                                              \
        "experiment", RT_MODEL_TEXT, RT_MODEL_EXPERIMENT, 0, 0                                     \
    }
#define RT_MODEL_COLUMN_MATRIX                                                                     \
    {                                                                                              \
        "matrix", RT_MODEL_TEXT, RT_MODEL_MATRIX, 0, 0                                             \
    }
#define RT_MODEL_COLUMN_KERNEL                                                                     \
    {                                                                                              \
        "kernel", RT_MODEL_TEXT, RT_MODEL_KERNEL, 0, 0                                             \
    }
#define RT_MODEL_COLUMNS_JOB                                                                       \
    {"ranks", RT_MODEL_INT, RT_MODEL_RANKS, 0, 0},                                                 \
        {"ranks_per_node", RT_MODEL_INT, RT_MODEL_RANKS_PER_NODE, 0, 0},                           \
    {                                                                                              \
        "ranks_per_socket", RT_MODEL_INT, RT_MODEL_RANKS_PER_SOCKET, 0, 0                          \
    }
#define RT_MODEL_COLUMNS_STATUS                                                                    \
    {"status", RT_MODEL_TEXT, RT_MODEL_STATUS, 0, 0},                                              \
    {                                                                                              \
        "reason", RT_MODEL_TEXT, RT_MODEL_REASON, 0, 0                                             \
    }
#define RT_MODEL_COLUMN_MACHINE                                                                    \
    {                                                                                              \
        "machine", RT_MODEL_TEXT, RT_MODEL_MACHINE, 0, 0                                           \
    }

#define RT_MODEL_MAX_COLUMNS 64
#define RT_MODEL_MAX_LIST    8
#define RT_MODEL_TEXT_MAX    512 /* as long as a reason */

typedef struct rt_model_cell {
    int64_t i;
    double r;
    char s[RT_MODEL_TEXT_MAX];
    int n; /* RT_MODEL_INTS: entries of list */
    int64_t list[RT_MODEL_MAX_LIST];
} rt_model_cell;

/* One point's row. The app presets ok and reason from the space's constraints (an infeasible
 * point keeps them); the hook may find the point infeasible in the job too. */
typedef struct rt_model_row {
    int ok;
    char reason[512];
    /* The point in one line for the terminal: what identifies it, then (when ok) what the model
     * says; the app prints it indented, and " infeasible: <reason>" after it when not ok. */
    char line[512];
    rt_model_cell cell[RT_MODEL_MAX_COLUMNS]; /* by column index; the app fills its own */
} rt_model_row;

/* One point of a sweep, as the hook sees it. */
typedef struct rt_model_point {
    const rt_csr *matrix;         /* the whole matrix */
    const char *matrix_name;      /* as the config names it */
    const rt_params *problem;     /* the family's problem point */
    const rt_kernel_desc *kernel; /* a kernel of the family */
    const rt_params *params;      /* its parameters at this point */
    const rt_model_job *job;
} rt_model_point;

/* A family's model-only mode: its table's columns and the hook that fills a row. */
typedef struct rt_family_model rt_family_model;
struct rt_family_model {
    const rt_model_column *columns;
    int n_columns;
    /* Optional: whether the model covers a kernel of the family (0: the kernel is listed as
     * skipped, e.g. a baseline with no plan to model); NULL: every kernel. */
    int (*covers)(const rt_kernel_desc *kernel);
    /* Fills row's own cells (and row->line); sets row->ok = 0 with row->reason when the point
     * cannot run in the job. Returns 0, or -1 on an error that must stop the mode. */
    int (*point)(const rt_model_point *pt, rt_model_row *row, rt_err *err);
};

#endif
