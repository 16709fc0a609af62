/* rt_config_types: the typed experiment an rt_config_load fills (rt_config.h describes the YAML
 * it comes from). Apart from the functions so that the modules that read a config (the key table,
 * its readers and hooks) can fill these types without using rt_config itself. */
#ifndef RT_CONFIG_TYPES_H
#define RT_CONFIG_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "rt_params.h"
#include "rt_strategy_types.h"

typedef struct rt_src_loc {
    char file[512];
    int line; /* 1-based */
    int col;  /* 1-based */
} rt_src_loc;

typedef enum rt_domain_kind {
    RT_DOMAIN_LIST = 0,  /* explicit values: [1, 2, 4] or a scalar */
    RT_DOMAIN_RANGE = 1, /* {range: [lo, hi]} or {range: [lo, hi, step]}, inclusive */
    RT_DOMAIN_POW2 = 2   /* {pow2: [lo, hi]}: powers of two in [lo, hi], inclusive */
} rt_domain_kind;

/* The values one parameter takes. Expanded lists are what later stages use; the kind and bounds
 * are kept so `validate` and `list` can print what the user wrote. */
typedef struct rt_param_domain {
    char name[RT_NAME_MAX];
    rt_domain_kind kind;
    double lo, hi, step; /* RANGE and POW2 */
    int n_values;
    rt_value *values; /* expanded, in order */
    rt_src_loc loc;
} rt_param_domain;

typedef struct rt_matrix_cfg {
    char name[64];
    char generator[32];  /* "" when the matrix comes from a file */
    char file[1024];     /* resolved relative to the config file that names it */
    char ordering[32];   /* "natural" (default), "hilbert", "rcm", "random", "random:SEED",
                            "metis" or "metis:PARTS" */
    int64_t metis_parts; /* as given (0: not given); also in ordering ("metis:PARTS") */
    rt_params gen;       /* generator arguments (rows, seed, bandwidth, scale, ...) */
    rt_src_loc loc;
    /* Added by config: where `generator:` or `file:` is written, and where each generator
     * argument is (gen_locs[i] belongs to gen.item[i]), so checks point at the exact line. */
    rt_src_loc source_loc;
    rt_src_loc gen_locs[RT_MAX_PARAMS];
} rt_matrix_cfg;

typedef struct rt_kernel_cfg {
    char name[96]; /* registry name, e.g. "spmm.cpu.csr" */
    int n_params;
    rt_param_domain *params;
    int n_constraints;
    char (*constraints)[512]; /* expressions, e.g. "register_tile * block <=
                                 device.max_threads_per_block" */
    rt_src_loc *constraint_locs;
    rt_src_loc loc;
    rt_src_loc name_loc; /* added by config: where the kernel's name is written */
    /* kernels.#.parallel: an rt_kernel_parallel, how this entry's points are spread over the
     * ranks (search: as search.parallel says) */
    int parallel;
    /* kernels.#.abort_group: entries of one group share the best time early abort compares
     * with, per matrix and problem point ("": the entry's own sweep) */
    char abort_group[64];
    rt_src_loc abort_group_loc;
} rt_kernel_cfg;

/* kernels.#.parallel: one entry's points spread differently from the run's search.parallel, so
 * one MPI run can measure kernels that span the ranks (every rank in each point) beside
 * single-device ones spread over the ranks (one point per rank at a time). */
typedef enum rt_kernel_parallel {
    RT_KERNEL_PARALLEL_SEARCH = 0, /* as search.parallel */
    RT_KERNEL_PARALLEL_NONE = 1,   /* every rank takes part in every point of this entry */
    RT_KERNEL_PARALLEL_RANKS = 2   /* each rank measures whole points of this entry */
} rt_kernel_parallel;

/* measure.mode: cold flushes caches before each repetition. */
typedef enum rt_measure_mode { RT_MEASURE_HOT = 0, RT_MEASURE_COLD = 1 } rt_measure_mode;

typedef struct rt_measure_cfg {
    rt_measure_mode mode;
    int warmup;             /* untimed executions before sampling */
    int min_reps;           /* at least this many samples */
    int max_reps;           /* at most this many samples */
    double max_time_s;      /* stop sampling a point after this much measured time */
    double target_rel_ci;   /* stop: confidence: once the median's CI half-width / median falls
                               below this */
    double confidence;      /* of that interval, e.g. 0.95 */
    double point_timeout_s; /* a single execution longer than this records the point as timeout */
    int stop;               /* the stopping criterion: an index of rt_criterion.h's table */
    double max_noise; /* stop: noise: once the samples' relative standard deviation is below this */
    double min_time_s; /* never stop sampling before this much measured time */
    /* Early abort: a point whose fastest repetition so far, after abort_reps of them, is slower
     * than abort_factor x the best time of its sweep (or of its kernels[].abort_group) stops
     * sampling (0: never); abort_reps 0: the verification execution's time decides first. */
    double abort_factor;
    int abort_reps;
    double compile_timeout_s; /* an NVRTC compile longer than this is abandoned (0: no limit) */
    int energy;               /* 1: read the device's energy counter around the repetitions */
    /* CPU threads that compile the next points' kernel variants while the current one is
     * measured (the backend's compile-ahead pool; 0: every point compiles on its own path). */
    int compile_ahead;
} rt_measure_cfg;

typedef struct rt_search_cfg {
    char strategy[16]; /* a name of the strategy table (harness/search/rt_strategy_table.h) */
    int budget;        /* points per (kernel, matrix, problem); 0 = all */
    uint64_t seed;
    double max_time_s;  /* rt_strategy.h strategies: no new point after this long; 0 = no limit */
    int prune_bound;    /* search.prune (none: 0, bound: 1): skip a candidate whose roofline bound
                           exceeds the best time measured in its sweep (rt_prune.h) */
    double stop_within; /* search.stop_within: with prune_bound, end a sweep once its best point
                           is within this fraction of its own bound; 0 = never */
    int parallel;       /* search.parallel: an rt_parallel_mode, how points are spread */
    int workers;        /* search.workers: worker processes of parallel: gpus (0: one per GPU) */
    rt_strategy_opts options; /* search.options, checked against the strategy's table */
} rt_search_cfg;

/* search.parallel: where the points of a sweep are measured. */
typedef enum rt_parallel_mode {
    RT_PARALLEL_NONE = 0,  /* every rank takes part in every point (the default) */
    RT_PARALLEL_RANKS = 1, /* each MPI rank measures whole points from a queue rank 0 serves */
    RT_PARALLEL_GPUS = 2   /* one process starts a worker per GPU and serves them points */
} rt_parallel_mode;

#define RT_PLOT_STACK_MAX    8
#define RT_PLOT_WHERE_MAX    4 /* fields a figure's `where` may restrict */
#define RT_PLOT_WHERE_VALUES 8 /* values each of them may take */

/* One condition of a figure's `where`: the points whose field (a word as x or series take it:
 * kernel, matrix, a parameter, a problem parameter, a metric) has one of the values. */
typedef struct rt_plot_where {
    char field[48];
    int n_values;
    char values[RT_PLOT_WHERE_VALUES][96];
} rt_plot_where;

typedef struct rt_plot_cfg {
    char name[64];   /* file stem; defaults to type-x-y */
    char type[16];   /* "line", "bars", "stacked", "box", "heatmap", "scaling"
                        (docs/guides/figures.md) */
    char x[48];      /* a parameter, problem parameter, "matrix" or "kernel" (bars, stacked, box:
                        "matrix"; scaling: "ranks"; heatmap: none) */
    char y[48];      /* an export column or metric, e.g. "gflops" (default), "time_median_s";
                        scaling: "time_median_s"; heatmap: a metric family, "comm_bytes" */
    char series[48]; /* one series per value of this column ("" = one series) */
    char title[160]; /* "" when not given: the plot stage makes one */
    int logx, logy;  /* 0: not given (the plot stage decides), 1: log axis, -1: linear */
    /* Added for the regression/figures issue: */
    char
        baseline[96]; /* bars: label each bar with its speedup over this series value ("" = none) */
    int n_stack;      /* stacked: how many values each bar stacks */
    char stack[RT_PLOT_STACK_MAX][48]; /* stacked: the stacked values, bottom first */
    int n_where;                       /* conditions every drawn point meets (all of them) */
    rt_plot_where where[RT_PLOT_WHERE_MAX];
    rt_src_loc loc;
} rt_plot_cfg;

typedef struct rt_config {
    char path[1024];
    char *text;    /* the text of the file and its includes, as read, for provenance */
    char hash[17]; /* hex hash of text plus applied overrides */
    char name[64];
    char description[512];
    char machine[1024]; /* "auto" or a path */
    int n_matrices;
    rt_matrix_cfg *matrices;
    int n_problem;
    rt_param_domain *problem; /* swept problem parameters (K, precision, layout, ...) */
    int n_kernels;
    rt_kernel_cfg *kernels;
    rt_measure_cfg measure;
    rt_search_cfg search;
    int n_counters;
    char (*counters)[96];
    int n_plots;
    rt_plot_cfg *plots;
    double expect_min_efficiency; /* NAN when not set */
    /* user_kernels: kernel specs (kernels/user, docs/families/user.md), paths resolved against
     * the folder of the file that names each (absolute ones as written); the app registers
     * their kernels before the config is checked. */
    int n_user_kernels;
    char (*user_kernels)[1024];
    rt_src_loc *user_kernel_locs;
} rt_config;

#endif
