/* rt_cli_common: set-up shared by the subcommands: the registry with every built-in kernel and
 * the backend of this process, and small helpers for option parsing. */
#ifndef RT_CLI_COMMON_H
#define RT_CLI_COMMON_H

#include <stdio.h>

#include "rt_backend.h"
#include "rt_error.h"
#include "rt_registry.h"

struct rt_user_set;

typedef struct rt_cli_env {
    rt_registry registry;
    rt_backend backend;
    int backend_open;
    struct rt_user_set *user; /* the config's kernel specs (rt_cli_env_user_kernels), or NULL */
} rt_cli_env;

/* Writes a warning to log (when not NULL) if the config's measure.max_reps is below what its
 * stopping criterion needs to judge a point (every timed point would be recorded noisy); returns
 * 1 when it warned. */
struct rt_config;
int rt_cli_reps_warn(const struct rt_config *cfg, FILE *log);

/* Registers the built-in families and kernels and opens the backend (CUDA when a device is
 * present and cpu_only is 0). local_rank picks the GPU. */
int rt_cli_env_open(rt_cli_env *env, int cpu_only, int local_rank, int verbose, rt_err *err);
void rt_cli_env_close(rt_cli_env *env);
struct rt_config;
/* Registers the kernels of the kernel specs the config names (user_kernels:, kernels/user), after
 * rt_cli_env_open and before rt_config_check, and folds the specs' hash (their text and every
 * source they name) into the config's hash, so a run resumes only points measured with the same
 * code. Errors name the config's file:line:col and the spec's. */
int rt_cli_env_user_kernels(rt_cli_env *env, struct rt_config *cfg, rt_err *err);
/* Parses a non-negative integer option value; fails with a message naming the option. */
int rt_cli_parse_int(const char *option, const char *text, long min, long max, long *out,
                     rt_err *err);

/* Parses a long long option value in [min, max] (decimal, no trailing text, overflow refused);
 * the message names the option and the range. */
int rt_cli_parse_ll(const char *option, const char *text, long long min, long long max,
                    long long *out, rt_err *err);
/* Parses a finite real option value in [min, max]; NaN, infinities and trailing text are refused
 * with a message naming the option and the range. */
int rt_cli_parse_real(const char *option, const char *text, double min, double max, double *out,
                      rt_err *err);
/* Checks an --arch value: "cpu" or "sm_" and a compute capability of two or three digits
 * (sm_60 ... sm_120). */
int rt_cli_check_arch(const char *option, const char *arch, rt_err *err);

struct rt_comm;
/* MPI_Init, then the job's topology with the node/socket emulation of --ranks-per-node and
 * --ranks-per-socket (0: real). With defer, a process no MPI launcher started is a job of one
 * rank made without MPI_Init (rt_comm_create_alone: MPI starts only if something asks for a
 * communicator). On failure prints "rooftune CMD: reason", finalises MPI and returns -1; the
 * caller then exits with RT_EXIT_USAGE. The caller ends with rt_comm_mpi_end. */
int rt_cli_mpi_start(const char *cmd, long ranks_per_node, long ranks_per_socket, int defer,
                     struct rt_comm **comm);

struct sqlite3;
/* Draws the roofline figure of an experiment into out_dir against machine_path, or, when it is
 * NULL, the machine file `machine: auto` picks for the device the newest run recorded. Prints one
 * line saying what it drew. */
int rt_cli_roofline_figure(struct sqlite3 *db, const char *experiment, const char *machine_path,
                           const char *out_dir, rt_err *err);

#endif
