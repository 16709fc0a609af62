/* rt_config_domain: the values one parameter takes, as a config writes them: one value, a list,
 * {range: [lo, hi]} / {range: [lo, hi, step]} or {pow2: [lo, hi]} (docs/guides/config.md,
 * Domains), expanded into the list later stages sweep. Used for the config's problem and for
 * every kernel's params. */
#ifndef RT_CONFIG_DOMAIN_H
#define RT_CONFIG_DOMAIN_H

#include "rt_config_types.h"
#include "rt_error.h"
#include "rt_yaml.h"

/* map is "name: domain, ..."; section names it in messages ("problem", "kernels[0].params").
 * *out is allocated (n_out entries; NULL and 0 for an empty map); on failure it may hold the
 * entries read so far, for the caller's rt_config_free. */
int rt_cfg_read_domains(const rt_yaml_node *map, const char *section, rt_param_domain **out,
                        int *n_out, rt_err *err);

#endif
