/* runner_util: what the runner tests share: a config written from text and run through the real
 * runner with the built-in registry plus the synthetic-time family (tests/rt_fake_timed.h), on
 * the CPU backend, into a fresh store; and one number read back from a store. */
#ifndef RUNNER_UTIL_H
#define RUNNER_UTIL_H

#include <stddef.h>

#include "rt_comm.h"
#include "rt_config.h"
#include "rt_registry.h"
#include "rt_run_types.h"

/* Writes yaml to WORK/NAME.yaml, removes WORK/NAME.db and runs the config into it (the store's
 * path in db). On failure the error is printed with name and -1 returned; a config that does not
 * load returns -2 with the message in why (for tests of bad input). */
int runner_util_run(rt_comm *comm, const char *work, const char *name, const char *yaml,
                    rt_run_summary *sum, char *db, size_t db_len, char *why, size_t why_len);

/* runner_util_run with a hook called once the registry is built (the built-in families and the
 * synthetic-time one) and before the config is read: it may add kernels to reg and set options
 * of the run in ro (a tracer, say). A hook that fails (-1, err set) fails the run. */
typedef int (*runner_util_prepare)(void *ctx, rt_registry *reg, rt_run_options *ro, rt_err *err);
int runner_util_run_prepared(rt_comm *comm, const char *work, const char *name, const char *yaml,
                             runner_util_prepare prepare, void *ctx, rt_run_summary *sum, char *db,
                             size_t db_len, char *why, size_t why_len);

/* The main of a runner test: MPI, the job's rt_comm, the work folder (argv[1], made if missing),
 * then body; returns 0, or 2 on bad usage or setup (the test's checks count in its own file:
 * return RT_TEST_RESULT() after a 0). */
int runner_util_main(int argc, char **argv, const char *name,
                     void (*body)(rt_comm *comm, const char *work));

/* The first column of the first row of sql in db as a double (NAN when there is none). */
double runner_util_sql(const char *db, const char *sql);

#endif
