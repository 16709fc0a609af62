/* rt_cli_space: the whole sweep of a config checked the way `run` walks it, before anything is
 * measured or stored. For every matrix (built exactly as the run builds it), every problem point
 * and every kernel: the family's problem (domains), the kernel's space (its parameters'
 * domains, its constraints resolved against the matrix, the problem and the device), then every
 * point's domains and constraints evaluated. An error at any point (a constraint that divides by
 * zero, a string parameter in a constraint) is reported with the config location, the matrix,
 * the problem and the point; a config none of whose kernels has a point that satisfies
 * the domains and constraints is an error too (the run would measure nothing). A kernel with no
 * feasible point anywhere is noted (it may not apply to this device: its points are recorded
 * infeasible), and a sweep that is empty for one problem point or matrix is counted: a
 * constraint may keep a kernel to some problems on purpose. With inputs, each family also builds
 * its inputs and its reference output for every matrix and problem (the checks that need the
 * matrix's values: eigen's nev against the matrix and its Lanczos steps, ...), which takes as long
 * as a run's set-up.
 *
 * Kernels whose backend is not available here (CUDA kernels on a machine without a GPU) have
 * their spaces built (identifiers, parameter kinds) but their points are not judged: the
 * constraints that read device.* would be evaluated against the wrong device.
 *
 * Matrices are built only when something depends on them: a constraint that reads matrix.*, or
 * inputs. Otherwise a sweep is the same for every matrix and is evaluated once per problem point
 * and kernel. With build_matrices 0 (a run's check before it starts: the run builds the matrices
 * itself), the kernels whose constraints read matrix.* are left to the run. */
#ifndef RT_CLI_SPACE_H
#define RT_CLI_SPACE_H

#include <stdint.h>
#include <stdio.h>

#include "rt_backend.h"
#include "rt_config.h"
#include "rt_error.h"
#include "rt_registry.h"

#define RT_CLI_SPACE_MAX_NOTES 8

typedef struct rt_cli_space_totals {
    int64_t points;      /* points evaluated */
    int64_t feasible;    /* of them, those that pass domains and constraints */
    int sweeps;          /* (matrix, problem, kernel) sweeps evaluated */
    int empty_sweeps;    /* of them, those with no feasible point */
    int unjudged;        /* sweeps of kernels whose backend is not here */
    int deferred;        /* kernels left to the run (their constraints read matrix.*) */
    int n_empty_kernels; /* judged kernels with no feasible point anywhere, described below */
    char empty_kernels[RT_CLI_SPACE_MAX_NOTES][1800];
} rt_cli_space_totals;

/* Returns 0, or -1 with err saying what fails where. */
int rt_cli_check_spaces(const rt_config *cfg, const rt_registry *reg, const rt_backend *be,
                        int build_matrices, int with_inputs, rt_cli_space_totals *totals,
                        rt_err *err);

#endif
