/* rt_space: the tuning space of one kernel for one problem point and matrix on one device.
 *
 * The space is the Cartesian product of the kernel's parameter domains: the parameters the config
 * sweeps, in the order the config lists them (first parameter slowest, last fastest), followed by
 * every other schema parameter at its default (a domain of one value). Points are addressed by an
 * index in [0, size) in that mixed-radix order, so enumeration is deterministic and a search can
 * move between neighbours through coordinates.
 *
 * A point is feasible when every value passes its schema domain (rt_param_check) and every
 * constraint of the config evaluates to true (non-zero). Constraints are rt_expr expressions over:
 *   - the kernel's parameters at the point (numbers only),
 *   - the problem parameters (numbers only), e.g. K,
 *   - matrix.rows, matrix.cols, matrix.nnz (the whole matrix, not a rank's share),
 *   - device.<field> for every numeric field of rt_device_info (device.warp_size,
 *     device.max_shared_per_block_optin, device.cc_major, ...; the list is
 *     rt_config_device_fields, shared with the config checker).
 * Unknown identifiers and string-valued parameters are rejected when the space is built, with the
 * config location of the constraint; evaluation errors at a point (division by zero, ...) are
 * errors naming that location too. */
#ifndef RT_SPACE_H
#define RT_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_config.h"
#include "rt_device.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

/* Spaces larger than this are refused: enumerating them is never what a user meant. */
#define RT_SPACE_MAX_POINTS ((int64_t)10000000)

typedef struct rt_space rt_space;

/* Builds the space. kcfg->name need not equal kernel->name (the registry lookup is the caller's),
 * but every parameter of kcfg must be in kernel's schema. problem may be NULL (no problem
 * parameters); device may be NULL (then constraints may not use device.*). */
int rt_space_build(const rt_kernel_cfg *kcfg, const rt_kernel_desc *kernel,
                   const rt_params *problem, int64_t rows, int64_t cols, int64_t nnz,
                   const rt_device_info *device, rt_space **out, rt_err *err);

/* Number of points: the product of the domain sizes (feasible or not). */
int64_t rt_space_size(const rt_space *space);

/* The kernel parameters of point `index` (every schema parameter, typed as its schema says) in
 * out_params. *feasible is 1, or 0 with the first reason in why (e.g. "register_tile = 64 is
 * outside its domain 1..32" or "constraint 'row_block * col_block <= 4096' is false"). Returns -1
 * on an index outside [0, size) or a constraint that cannot be evaluated (err names the config
 * file:line:col of the constraint). why may be NULL. */
int rt_space_point(const rt_space *space, int64_t index, rt_params *out_params, int *feasible,
                   char *why, size_t whylen, rt_err *err);

/* Dimensions, for searches that move through the grid. */
int rt_space_n_dims(const rt_space *space);
const char *rt_space_dim_name(const rt_space *space, int dim);
int64_t rt_space_dim_size(const rt_space *space, int dim);
/* The value of a dimension at a coordinate, or NULL when out of range. */
const rt_value *rt_space_dim_value(const rt_space *space, int dim, int64_t coord);
/* index <-> coordinates (coords has rt_space_n_dims entries). Return -1 when out of range. */
int rt_space_coords(const rt_space *space, int64_t index, int64_t *coords);
int rt_space_index(const rt_space *space, const int64_t *coords, int64_t *index);

void rt_space_free(rt_space *space);

#endif
