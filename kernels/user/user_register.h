/* user_register: the user family in the family list, and the kernel specs a config names.
 *
 * rt_user_register (the family list's entry) registers the family `user` itself, which only holds
 * the CUDA engine (user_kernel.h). The kernels users write come from kernel specs: the app reads
 * the config's `user_kernels:` and hands the paths to rt_user_set_load after the built-in families
 * and the backend are registered and before the config's kernels are checked. Each spec becomes a
 * family of its own (named by the spec) with its kernels; its CUDA kernels take the engine's hooks
 * when the CUDA plugin is loaded, and are registered unavailable, with the engine's reason, when
 * it is not. */
#ifndef USER_REGISTER_H
#define USER_REGISTER_H

#include "rt_error.h"
#include "rt_registry.h"

int rt_user_register(rt_registry *reg, rt_err *err);

/* At most this many specs in one process (each is a family; the registry holds 16 in all). */
#define RT_USER_MAX_SPECS 8

typedef struct rt_user_options {
    const char *cache_dir;   /* where C kernels are built (the NVRTC cache's folder) */
    const char *worker_path; /* the rooftune-user-worker program */
    double timeout_s;        /* measure.point_timeout_s */
} rt_user_options;

typedef struct rt_user_set rt_user_set;

/* Loads the specs and registers their families and kernels. On failure nothing stays registered
 * and err names the spec's file:line:col. */
int rt_user_set_load(const char *const *paths, int n, const rt_user_options *opt, rt_registry *reg,
                     rt_user_set **out, rt_err *err);
/* A hash of every spec's text and of every source they name (16 hex digits), so a run can tell
 * that what it measures changed. */
const char *rt_user_set_hash(const rt_user_set *set);
/* Removes the set's families and kernels from reg and frees it. NULL is fine. */
void rt_user_set_free(rt_user_set *set, rt_registry *reg);

#endif
