/* rooftune run: the whole pipeline for one config, under mpirun or alone. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <signal.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_cli.h"
#include "rt_cli_common.h"
#include "rt_cli_model.h"
#include "rt_cli_oversub.h"
#include "rt_cli_space.h"
#include "rt_clock.h"
#include "rt_comm.h"
#include "rt_config.h"
#include "rt_interrupt.h"
#include "rt_path.h"
#include "rt_phases.h"
#include "rt_plot.h"
#include "rt_roofline_glue.h"
#include "rt_runner.h"
#include "rt_store.h"
#include "rt_store_read.h"
#include "rt_trace.h"
#include "rt_wire.h"
#include "rt_prefetch.h"
#include "rt_worker_procs.h"

#define MAX_SETS 64

static void run_usage(FILE *f)
{
    fprintf(
        f,
        "usage: rooftune run CONFIG [options]\n"
        "       mpirun -np N rooftune run CONFIG [options]\n"
        "\n"
        "Runs every point of the experiment: verify against the reference, time with adaptive\n"
        "repetitions, record in the store, check against the roofline. Points already measured by\n"
        "the same build and config are skipped (resume).\n"
        "\n"
        "options:\n"
        "  --db FILE              SQLite store (default results/<experiment>.db)\n"
        "  --set KEY=VALUE        override a config key (YAML value), e.g. --set problem.K=[64]\n"
        "  --dry-run              list the points that would run; measure and store nothing\n"
        "  --max-points N         stop after measuring N new points (resume later)\n"
        "  --plots DIR            draw the experiment's figures into DIR after the run\n"
        "  --ranks-per-node N     treat every N consecutive ranks as one node (emulation)\n"
        "  --ranks-per-socket N   treat every N consecutive ranks of a node as one socket\n"
        "  --cpu                  do not load the CUDA backend even if a GPU is present\n"
        "  --model-only           no measurement, no mpirun: the distributed SpMM's plan and\n"
        "                         per-tier volumes (and times, with a machine) for --ranks N\n"
        "  --ranks N              the job size the model plans for (with --model-only)\n"
        "  --machine FILE         machine file whose tiers time the model (with --model-only)\n"
        "  --out DIR              where --model-only writes <experiment>-model.csv/.json\n"
        "                         (default: the --db file's folder, else the current folder)\n"
        "  --parallel MODE        measure whole points in parallel (search.parallel): ranks\n"
        "                         (each MPI rank on its own GPU, from a queue rank 0 serves) or\n"
        "                         gpus (this process starts a worker process per GPU)\n"
        "  --workers N            with --parallel gpus: N worker processes (search.workers)\n"
        "  --timeline FILE        record the GPU activity (kernels and copies, CUPTI) of every\n"
        "                         point's timed repetitions into FILE (CSV; FILE.rank<r>.csv\n"
        "                         per rank under mpirun); draw it with `rooftune figures\n"
        "                         --timeline FILE`. Needs a GPU; not with GPU counters or\n"
        "                         --parallel\n"
        "  --quiet                print only the summary (no per-point lines, no progress)\n"
        "  --help                 this text\n"
        "\n"
        "exit status: 0 all points fine; 1 some point is wrong, in error, above its roofline or\n"
        "below an expectation; 2 bad config or options; 3 the run could not complete.\n");
}

/* --timeline traces the points this process measures, apart from anything else CUPTI does. */
static int timeline_allowed(const rt_config *cfg, const char *timeline, rt_err *err)
{
    /* GPU counters go to CUPTI's range profiler; PAPI's and LIKWID's do not touch CUPTI. */
    for (int k = 0; k < cfg->n_counters; ++k)
        if (rt_roofline_glue_gpu_counter(cfg->counters[k]))
            return rt_err_set(err,
                              "--timeline %s: the config reads GPU counters (%s): CUPTI's activity "
                              "trace and its range profiler are not run together in one process; "
                              "trace the run without them",
                              timeline, cfg->counters[k]);
    int parallel = cfg->search.parallel != RT_PARALLEL_NONE;
    for (int k = 0; k < cfg->n_kernels; ++k)
        parallel |= cfg->kernels[k].parallel == RT_KERNEL_PARALLEL_RANKS;
    if (parallel)
        return rt_err_set(err,
                          "--timeline %s: the config spreads points over ranks or worker "
                          "processes (search.parallel or kernels[i].parallel): trace a run that "
                          "measures every point in every rank",
                          timeline);
    return 0;
}

int rt_cli_run(int argc, char **argv)
{
    return rt_cli_run_as("run", argc, argv, NULL);
}

/* parallel: gpus: the worker processes, started as soon as the config says how many and before
 * this process's backend, checks and store, so that their start (MPI, CUDA, the config) overlaps
 * this one's, and beside them the build of the first matrix, which the runner hands to them in
 * shared memory (rt_prefetch.h; a thread that cannot start leaves it to the runner). Their count:
 * search.workers, else the GPUs. Those are counted without the driver where CUDA_VISIBLE_DEVICES
 * or the NVIDIA driver's /proc folder says (rt_worker_procs_quick_gpus; *quick names which, and
 * check_gpu_count holds it against the backend's count once that is open), else by the driver
 * (cuInit alone, no plugin: a third of a second on an H200 host, before the workers could
 * start). Nothing is started for a count the runner will refuse (it says why). */
static int start_workers_early(const rt_config *cfg, int argc, char **argv, int cpu_only,
                               rt_phases *ph, rt_worker_procs *procs, rt_prefetch **ahead,
                               const char **quick, rt_err *err)
{
    const double t0 = rt_clock_epoch();
    const char *no_cuda = getenv("ROOFTUNE_NO_CUDA");
    const int disabled = cpu_only || (no_cuda && *no_cuda && strcmp(no_cuda, "0") != 0);
    int gpus = disabled ? -1
                        : rt_worker_procs_quick_gpus(getenv("CUDA_VISIBLE_DEVICES"),
                                                     "/proc/driver/nvidia/gpus", quick);
    if (gpus < 0) {
        *quick = NULL;
        char why[400];
        gpus = rt_backend_count_gpus(cpu_only, why, sizeof why);
    }
    const double t1 = rt_clock_epoch();
    (void)rt_phases_add(ph, "gpu count", NULL, t0, t1);
    const int n = cfg->search.workers > 0 ? cfg->search.workers : gpus;
    if (n <= 0 || n > RT_WIRE_MAX_SOCKETS)
        return 0;
    if (rt_worker_procs_start(argc, (const char *const *)argv, n, gpus, procs, err) != 0)
        return -1;
    (void)rt_phases_add(ph, "spawn", NULL, t1, rt_clock_epoch());
    rt_err ignored;
    if (cfg->n_matrices > 0)
        (void)rt_prefetch_start(&cfg->matrices[0], 0, ahead, &ignored);
    return 0;
}

/* The GPU count the workers were started by (counted from `quick`, a name, without the driver)
 * against the count the backend's driver reports: workers given GPUs by another count would
 * measure on the wrong devices or on none. Checked before the store is opened, so nothing is
 * recorded or lost; the workers, not yet released, end silently. */
static int check_gpu_count(const rt_worker_procs *procs, const char *quick, const rt_backend *be,
                           rt_err *err)
{
    if (procs->n == 0 || !quick || procs->gpus == be->gpu_count)
        return 0;
    return rt_err_set(err,
                      "parallel: gpus: %s says %d GPU(s), the CUDA driver reports %d; the %d "
                      "worker(s) were given GPUs by the first count: set CUDA_VISIBLE_DEVICES to "
                      "the GPUs to use",
                      quick, procs->gpus, be->gpu_count, procs->n);
}

/* This process's GPU as the phase record names it: a worker's from its coordinator, else the
 * visible device its backend opened (the CUDA_VISIBLE_DEVICES entry), "" without one. */
static void phase_gpu(rt_phases *ph, const rt_backend *be, const char *worker_gpu)
{
    char gpu[RT_WORKER_GPU_MAX] = "";
    rt_err ignored;
    if (worker_gpu)
        snprintf(gpu, sizeof gpu, "%s", worker_gpu);
    else if (be->cuda_loaded &&
             rt_worker_procs_gpu_of(getenv("CUDA_VISIBLE_DEVICES"), be->gpu_count, be->gpu.ordinal,
                                    gpu, sizeof gpu, &ignored) != 0)
        snprintf(gpu, sizeof gpu, "%d", be->gpu.ordinal);
    rt_phases_set_gpu(ph, gpu);
}

int rt_cli_run_as(const char *cmd, int argc, char **argv, int *owner)
{
    /* The phase record's zero: this process's start (rt_phases.h). */
    const double origin = rt_clock_epoch();
    if (owner)
        *owner = 1; /* one process until MPI says otherwise */
    static const struct option longopts[] = {{"db", required_argument, 0, 'd'},
                                             {"set", required_argument, 0, 's'},
                                             {"dry-run", no_argument, 0, 'n'},
                                             {"max-points", required_argument, 0, 'm'},
                                             {"plots", required_argument, 0, 'p'},
                                             {"ranks-per-node", required_argument, 0, 'N'},
                                             {"ranks-per-socket", required_argument, 0, 'S'},
                                             {"cpu", no_argument, 0, 'c'},
                                             {"quiet", no_argument, 0, 'q'},
                                             {"help", no_argument, 0, 'h'},
                                             {"model-only", no_argument, 0, 'M'},
                                             {"ranks", required_argument, 0, 'R'},
                                             {"machine", required_argument, 0, 'A'},
                                             {"out", required_argument, 0, 'O'},
                                             {"parallel", required_argument, 0, 'P'},
                                             {"workers", required_argument, 0, 'W'},
                                             {"timeline", required_argument, 0, 'T'},
                                             /* a worker process of --parallel gpus */
                                             {"worker-fd", required_argument, 0, 'F'},
                                             {"worker-index", required_argument, 0, 'I'},
                                             {"worker-gpu", required_argument, 0, 'G'},
                                             {0, 0, 0, 0}};
    const char *db = NULL, *plots_dir = NULL, *timeline = NULL;
    const char *sets[MAX_SETS];
    int n_sets = 0, dry_run = 0, cpu_only = 0, quiet = 0;
    long max_points = 0, rpn = 0, rps = 0, model_ranks = 0;
    int model_only = 0;
    const char *model_machine = NULL, *model_out = NULL;
    /* --parallel and --workers are the config's search keys, set like --set. */
    char parallel_set[96], workers_set[64];
    long worker_fd = 0, worker_index = -1;
    const char *worker_gpu = NULL;
    rt_err err;
    rt_err_clear(&err);
    int c;
    RT_CLI_FOR_EACH_OPTION (c, argc, argv, "", longopts) {
        switch (c) {
        case 'd': db = optarg; break;
        case 's':
            if (n_sets >= MAX_SETS) {
                fprintf(stderr, "rooftune %s: at most %d --set options\n", cmd, MAX_SETS);
                return RT_EXIT_USAGE;
            }
            sets[n_sets++] = optarg;
            break;
        case 'n': dry_run = 1; break;
        case 'm':
            if (rt_cli_parse_int("--max-points", optarg, 1, 1000000000, &max_points, &err) != 0)
                goto usage_error;
            break;
        case 'p': plots_dir = optarg; break;
        case 'T': timeline = optarg; break;
        case 'N':
            if (rt_cli_parse_int("--ranks-per-node", optarg, 1, 1000000, &rpn, &err) != 0)
                goto usage_error;
            break;
        case 'S':
            if (rt_cli_parse_int("--ranks-per-socket", optarg, 1, 1000000, &rps, &err) != 0)
                goto usage_error;
            break;
        case 'c': cpu_only = 1; break;
        case 'q': quiet = 1; break;
        case 'h': run_usage(stdout); return RT_EXIT_OK;
        case 'M': model_only = 1; break;
        case 'R':
            if (rt_cli_parse_int("--ranks", optarg, 1, 1000000, &model_ranks, &err) != 0)
                goto usage_error;
            break;
        case 'P':
        case 'W':
            if (n_sets >= MAX_SETS) {
                fprintf(stderr, "rooftune run: at most %d --set options\n", MAX_SETS);
                return RT_EXIT_USAGE;
            }
            if (c == 'P') {
                snprintf(parallel_set, sizeof parallel_set, "search.parallel=%.60s", optarg);
                sets[n_sets++] = parallel_set;
            } else {
                snprintf(workers_set, sizeof workers_set, "search.workers=%.40s", optarg);
                sets[n_sets++] = workers_set;
            }
            break;
        case 'F':
            if (rt_cli_parse_int("--worker-fd", optarg, 3, 1000000, &worker_fd, &err) != 0)
                goto usage_error;
            break;
        case 'I':
            if (rt_cli_parse_int("--worker-index", optarg, 0, 1000000, &worker_index, &err) != 0)
                goto usage_error;
            break;
        case 'G':
            if (!*optarg || strlen(optarg) >= RT_WORKER_GPU_MAX || strchr(optarg, ',')) {
                rt_err_set(&err,
                           "--worker-gpu expects one GPU (a CUDA_VISIBLE_DEVICES entry), "
                           "got '%s'",
                           optarg);
                goto usage_error;
            }
            worker_gpu = optarg;
            break;
        case 'A': model_machine = optarg; break;
        case 'O': model_out = optarg; break;
        default: run_usage(stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "rooftune %s: expected exactly one CONFIG file\n\n", cmd);
        run_usage(stderr);
        return RT_EXIT_USAGE;
    }
    const char *config_path = argv[optind];
    if (0) {
    usage_error:
        fprintf(stderr, "rooftune %s: %s\n", cmd, err.msg);
        return RT_EXIT_USAGE;
    }

    if (timeline && (model_only || dry_run)) {
        fprintf(stderr, "rooftune %s: --timeline %s: %s measures nothing to trace\n", cmd, timeline,
                model_only ? "--model-only" : "--dry-run");
        return RT_EXIT_USAGE;
    }
    /* The model runs in this one process for a virtual job: no MPI at all. */
    if (model_only || model_ranks || model_machine || model_out)
        return rt_cli_run_model_only(config_path, sets, n_sets, db, model_out, model_only,
                                     model_ranks, rpn, rps, model_machine, quiet);

    if ((worker_fd > 0) != (worker_index >= 0) || (worker_gpu && worker_fd <= 0)) {
        fprintf(stderr, "rooftune run: --worker-fd and --worker-index go together, and "
                        "--worker-gpu with them (they start a worker of --parallel gpus)\n");
        return RT_EXIT_USAGE;
    }
    if (worker_fd > 0)
        quiet = 1; /* its coordinator reports */
    if (worker_gpu) {
        /* The coordinator gives a worker its GPU twice: in CUDA_VISIBLE_DEVICES, which the CUDA
         * start reads, and here, for the record; a launcher that dropped the variable would let
         * every worker measure on the first GPU. */
        const char *visible = getenv("CUDA_VISIBLE_DEVICES");
        if (!visible || strcmp(visible, worker_gpu) != 0) {
            fprintf(stderr,
                    "rooftune run: --worker-gpu %s, but CUDA_VISIBLE_DEVICES is '%s': a worker "
                    "sees its own GPU alone\n",
                    worker_gpu, visible ? visible : "(unset)");
            return RT_EXIT_USAGE;
        }
    }
    /* Where this process's time goes (named by its rank once MPI says it); the run's main
     * process keeps every process's. */
    rt_phases phases;
    char process[32] = "main";
    if (worker_fd > 0)
        snprintf(process, sizeof process, "worker %ld", worker_index);
    if (rt_phases_init(&phases, process, origin, &err) != 0) {
        fprintf(stderr, "rooftune %s: %s\n", cmd, err.msg);
        return RT_EXIT_FAILURE;
    }
    rt_worker_procs procs;
    memset(&procs, 0, sizeof procs);
    rt_prefetch *ahead = NULL;      /* parallel: gpus: the first matrix, built beside the workers */
    const char *quick_count = NULL; /* parallel: gpus: what counted the GPUs, when not the driver */
    rt_trace *trace = NULL;         /* --timeline */
    rt_config cfg;
    memset(&cfg, 0, sizeof cfg);
    rt_cli_env env;
    memset(&env, 0, sizeof env);
    double t0 = rt_clock_epoch();
    int ok = rt_config_load(config_path, sets, n_sets, &cfg, &err) == 0;
    (void)rt_phases_add(&phases, "config", NULL, t0, rt_clock_epoch());
    int stage_status = RT_EXIT_USAGE;
    /* Before this process's own set-up (backend, checks, store), which the workers' start
     * overlaps. Under an MPI launcher the mode is refused (the runner says so), so nothing is
     * started there. */
    if (ok && !dry_run && worker_fd <= 0 && cfg.search.parallel == RT_PARALLEL_GPUS &&
        !rt_comm_launched() &&
        start_workers_early(&cfg, argc, argv, cpu_only, &phases, &procs, &ahead, &quick_count,
                            &err) != 0) {
        ok = 0;
        stage_status = RT_EXIT_FAILURE;
    }
    /* A process no MPI launcher started (a serial run, the coordinator and the workers of
     * parallel: gpus) is a job of one rank and starts no MPI unless a kernel asks for a
     * communicator (rt_comm.h: an Open MPI singleton's start took 1.5-2.1 s on the 4 x H200
     * host); the record says so ("mpi skipped", and "mpi" where it starts later). */
    const double mpi_t0 = rt_clock_epoch();
    rt_comm *comm = NULL;
    if (rt_cli_mpi_start(cmd, rpn, rps, 1, &comm) != 0) {
        rt_worker_procs_abandon(&procs);
        rt_prefetch_free(ahead);
        rt_phases_free(&phases);
        rt_config_free(&cfg);
        return RT_EXIT_USAGE;
    }
    if (rt_comm_mpi_started(comm))
        (void)rt_phases_add(&phases, "mpi", NULL, mpi_t0, rt_clock_epoch());
    else
        (void)rt_phases_add(&phases, "mpi skipped", NULL, mpi_t0, NAN);
    int status = RT_EXIT_OK;
    const int rank = rt_comm_world_rank(comm);
    if (owner)
        *owner = rank == 0 && worker_fd <= 0;
    if (rank > 0) {
        snprintf(process, sizeof process, "rank %d", rank);
        rt_phases_rename(&phases, process);
    }
    t0 = rt_clock_epoch();
    if (ok &&
        rt_cli_env_open(&env, cpu_only,
                        worker_index >= 0 ? (int)worker_index : rt_comm_rank(comm, RT_COMM_NODE),
                        !quiet, &err) != 0) {
        ok = 0;
        stage_status = RT_EXIT_FAILURE;
    }
    if (ok) {
        (void)rt_phases_add(&phases, "backend", NULL, t0, rt_clock_epoch());
        phase_gpu(&phases, &env.backend, worker_gpu);
        if (check_gpu_count(&procs, quick_count, &env.backend, &err) != 0) {
            ok = 0;
            /* a CUDA_VISIBLE_DEVICES the driver does not follow is the user's input */
            stage_status =
                strcmp(quick_count, "CUDA_VISIBLE_DEVICES") == 0 ? RT_EXIT_USAGE : RT_EXIT_FAILURE;
        }
    }
    t0 = rt_clock_epoch();
    if (ok && rt_cli_env_user_kernels(&env, &cfg, &err) != 0)
        ok = 0;
    /* Every point's domains and constraints before anything is measured or stored (the kernels
     * whose constraints read matrix.* are checked as their matrices are built). */
    rt_cli_space_totals space_totals;
    if (ok &&
        (rt_config_check(&cfg, &env.registry, &err) != 0 ||
         rt_cli_check_spaces(&cfg, &env.registry, &env.backend, 0, 0, &space_totals, &err) != 0))
        ok = 0;
    if (ok && timeline &&
        (timeline_allowed(&cfg, timeline, &err) != 0 ||
         rt_trace_open(timeline, &env.backend, rank, rt_comm_world_size(comm), &trace, &err) != 0))
        ok = 0;
    (void)rt_phases_add(&phases, "check", NULL, t0, rt_clock_epoch());
    if (worker_fd > 0) {
        /* A worker started before its coordinator's checks: it goes on (and reports its own
         * failure) only when the coordinator's passed and its store is open; otherwise the
         * coordinator has reported why not, once. */
        t0 = rt_clock_epoch();
        int released = 0;
        rt_err await_err;
        if (rt_worker_procs_await((int)worker_fd, &released, &await_err) != 0) {
            fprintf(stderr, "rooftune %s: worker %ld: %s\n", cmd, worker_index, await_err.msg);
            status = RT_EXIT_FAILURE;
            goto done;
        }
        if (!released) {
            status = RT_EXIT_USAGE;
            goto done;
        }
        (void)rt_phases_add(&phases, "go", NULL, t0, rt_clock_epoch());
    }
    int all_ok = ok, first_bad = -1;
    rt_comm_all_ok(comm, ok, &all_ok, &first_bad);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr, "rooftune %s: %s\n", cmd, err.msg);
        status = stage_status;
        goto done;
    }
    for (int k = 0; rank == 0 && k < space_totals.n_empty_kernels; ++k)
        fprintf(stderr, "rooftune %s: note: %s (its points are recorded infeasible)\n", cmd,
                space_totals.empty_kernels[k]);

    char db_default[1024];
    if (!db) {
        snprintf(db_default, sizeof db_default, "results/%s.db", cfg.name);
        db = db_default;
    }
    char machine_dir[PATH_MAX];
    /* The command line is kept whole in the provenance or the run is refused: a cut one would not
     * reproduce the run. */
    char cmdline[sizeof((rt_provenance *)0)->command_line] = "rooftune";
    ok = (rank != 0 || dry_run || rt_path_make_parent(db, &err) == 0) &&
         rt_cli_machine_dir(machine_dir, sizeof machine_dir, &err) == 0;
    for (int i = 0; ok && i < argc; ++i) {
        const size_t used = strlen(cmdline);
        if (rt_path_format(cmdline + used, sizeof cmdline - used, &err, " %s", argv[i]) != 0) {
            rt_err_set(&err,
                       "the command line is longer than the %zu characters the store keeps "
                       "as provenance",
                       sizeof cmdline - 1);
            ok = 0;
        }
    }
    rt_comm_all_ok(comm, ok, &all_ok, &first_bad);
    if (!all_ok) {
        if (!ok)
            fprintf(stderr, "rooftune %s: %s\n", cmd, err.msg);
        status = RT_EXIT_USAGE;
        goto done;
    }
    if (rank == 0 && !quiet) {
        printf("rooftune %s: experiment '%s' (%s), %d rank(s)\n", cmd, cfg.name, config_path,
               rt_comm_world_size(comm));
        printf("  %s\n", env.backend.cuda_status);
        char topo[256];
        rt_comm_describe(comm, topo, sizeof topo);
        printf("  topology: %s\n", topo);
        if (!dry_run)
            printf("  store: %s\n", db);
        fflush(stdout);
    }
    rt_run_options ro = {.db_path = db,
                         .dry_run = dry_run,
                         .max_points = (int)max_points,
                         .verbose = !quiet,
                         .machine_dir = machine_dir,
                         .command_line = cmdline,
                         .log = (rank == 0 && !quiet) ? stdout : NULL,
                         .progress = (rank == 0 && !quiet) ? stderr : NULL,
                         .argc = argc,
                         .argv = (const char *const *)argv,
                         .worker_fd = (int)worker_fd,
                         .trace = trace,
                         .procs = &procs,
                         .ahead = &ahead,
                         .phases = dry_run ? NULL : &phases};
    rt_cli_oversub_warn(comm, quiet ? NULL : stdout);
    if (rank == 0)
        rt_cli_reps_warn(&cfg, quiet ? NULL : stdout);
    rt_run_summary sum;
    rt_interrupt_install();
    if (rt_run_experiment(&cfg, &env.registry, &env.backend, comm, &ro, &sum, &err) != 0) {
        fprintf(stderr, "rooftune %s: rank %d: %s\n", cmd, rank, err.msg);
        status = RT_EXIT_FAILURE;
        goto done;
    }
    if (rank == 0 && worker_fd <= 0) {
        printf("summary: %d point(s): %d measured, %d resumed (already in the store), %d wrong, "
               "%d infeasible, %d error(s), %d timeout(s), %d above roofline",
               sum.points_seen, sum.measured, sum.resumed, sum.wrong, sum.infeasible, sum.errors,
               sum.timeouts, sum.above_roofline);
        if (sum.noisy)
            printf(", %d noisy (timed, the stopping criterion's target missed)", sum.noisy);
        if (sum.pruned)
            printf(", %d pruned (roofline bound above the best time, not run)", sum.pruned);
        if (sum.aborted)
            printf(", %d aborted early (%d repetition(s): slower than measure.abort_factor x "
                   "the best of their sweep or abort group)",
                   sum.aborted, sum.aborted_samples);
        if (sum.stopped_within)
            printf(", %d sweep(s) stopped within search.stop_within of the bound",
                   sum.stopped_within);
        if (sum.expect_failures)
            printf(", %d below expectations", sum.expect_failures);
        if (sum.unavailable_kernels)
            printf(", %d kernel(s) skipped (backend not available)", sum.unavailable_kernels);
        if (sum.compiles || sum.cache_hits)
            printf("; %d compile(s), %d cache hit(s)", sum.compiles, sum.cache_hits);
        if (sum.compiled_ahead)
            printf(" (%d compiled ahead)", sum.compiled_ahead);
        printf("\n");
        if (dry_run)
            printf("dry run: nothing was measured or stored\n");
        else if (sum.resumed > 0)
            printf("resumed: %d point(s) were already measured by this build and config\n",
                   sum.resumed);
        fflush(stdout);
    }
    if (sum.wrong || sum.errors || sum.above_roofline || sum.expect_failures)
        status = RT_EXIT_ATTENTION;
    if (trace) {
        long long n_records = 0;
        char written[4096];
        rt_trace *t = trace;
        trace = NULL;
        if (rt_trace_close(t, &n_records, &err) != 0) {
            fprintf(stderr, "rooftune %s: rank %d: %s\n", cmd, rank, err.msg);
            status = RT_EXIT_FAILURE;
        } else if (!quiet && rt_trace_path(timeline, rank, rt_comm_world_size(comm), written,
                                           sizeof written, &err) == 0) {
            printf("timeline: %lld record(s) in %s\n", n_records, written);
            /* Resumed points are not measured, so not traced: a re-run into the same store
             * writes a timeline without them (or an empty one). */
            if (sum.resumed > 0)
                printf("timeline: %d point(s) resumed from %s were not measured, so not traced "
                       "(a fresh --db traces them)\n",
                       sum.resumed, db);
            fflush(stdout);
        }
    }
    if (sum.interrupted_by) {
        if (rank == 0) {
            fprintf(stderr,
                    "rooftune %s: interrupted by %s: the run is marked 'interrupted'; its %d "
                    "point(s) are kept in %s, and running the same command again resumes\n",
                    cmd, sum.interrupted_by == SIGINT ? "SIGINT" : "SIGTERM", sum.kept, db);
        }
        status = RT_EXIT_FAILURE;
    }

    if (rank == 0 && plots_dir && !dry_run) {
        struct sqlite3 *db_handle = NULL;
        rt_err open_err;
        if (rt_store_read_open(db, &db_handle, &open_err) != 0) {
            fprintf(stderr, "rooftune %s: cannot reopen %s for plotting: %s\n", cmd, db,
                    open_err.msg);
            status = RT_EXIT_FAILURE;
        } else {
            rt_plot_result pr; /* rt_plot_experiment makes the folder (and its parents) */
            if (rt_plot_experiment(db_handle, cfg.name, cfg.plots, cfg.n_plots, plots_dir, &pr,
                                   &err) != 0) {
                fprintf(stderr, "rooftune %s: plotting: %s\n", cmd, err.msg);
                status = RT_EXIT_FAILURE;
            } else {
                printf("plots: %d figure(s) in %s%s%s\n", pr.n_figures, plots_dir,
                       pr.message[0] ? ": " : "", pr.message);
                const char *machine = strcmp(cfg.machine, "auto") == 0 ? NULL : cfg.machine;
                if (rt_cli_roofline_figure(db_handle, cfg.name, machine, plots_dir, &err) != 0) {
                    fprintf(stderr, "rooftune %s: roofline figure: %s\n", cmd, err.msg);
                    status = RT_EXIT_FAILURE;
                }
            }
        }
        rt_store_read_close(db_handle);
    }

done:
    rt_trace_free(trace);
    /* Workers the runner did not take over (a check or the run failed first) are ended. */
    rt_worker_procs_abandon(&procs);
    rt_prefetch_free(ahead); /* likewise the first matrix's build (it reads cfg: before its free) */
    rt_phases_free(&phases);
    rt_cli_env_close(&env);
    rt_config_free(&cfg);
    rt_comm_free(comm);
    rt_comm_mpi_end();
    return status;
}
