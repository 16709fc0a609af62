/* rt_schema: reading one parameter of a point through a schema table, for every kernel and family.
 *
 * The value set in the point's parameters, or the schema default when it is not set; checked
 * against the schema's domain, so a hook never works with an out-of-domain value even when a
 * caller skipped validation. `owner` (kernel or family name) starts the error message. */
#ifndef RT_SCHEMA_H
#define RT_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"

/* Reads integer parameter `name` of a schema table into out. */
int rt_schema_int(const rt_param_schema *schema, int n_schema, const char *owner,
                  const rt_params *p, const char *name, int64_t *out, rt_err *err);

/* Same for a string parameter; copies the value into out (outlen bytes). */
int rt_schema_str(const rt_param_schema *schema, int n_schema, const char *owner,
                  const rt_params *p, const char *name, char *out, size_t outlen, rt_err *err);

#endif
