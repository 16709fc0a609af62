/* rt_kernels: registration of the kernel families and host-side kernels built into rooftune, and
 * the parameter accessors every kernel uses to read one point of its schema.
 *
 * The CUDA plugin registers its own kernels (rt_plugin.h); everything that runs on the host is
 * registered here, so `main` makes one call and the registry knows every built-in kernel. */
#ifndef RT_KERNELS_H
#define RT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

/* Registers every built-in family (spmm, ...) and every CPU kernel into reg. Fails (err filled)
 * when the registry is full or a name is already taken. */
int rt_kernels_register_builtin(rt_registry *reg, rt_err *err);

/* Reads integer parameter `name` of a schema table: the value in p, or the schema default when p
 * does not set it. The value is checked against the schema domain, so a hook never works with an
 * out-of-domain value even when a caller skipped validation. `owner` (kernel or family name)
 * starts the error message. */
int rt_kernels_param_int(const rt_param_schema *schema, int n_schema, const char *owner,
                         const rt_params *p, const char *name, int64_t *out, rt_err *err);

/* Same for a string parameter; copies the value into out (outlen bytes). */
int rt_kernels_param_str(const rt_param_schema *schema, int n_schema, const char *owner,
                         const rt_params *p, const char *name, char *out, size_t outlen,
                         rt_err *err);

#endif
