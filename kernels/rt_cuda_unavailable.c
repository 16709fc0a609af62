#include "rt_cuda_unavailable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_kernels.h"

/* ---------------------------------------------------------------------------------------------
 * Unavailable descriptors. The registry keeps pointers, so the descriptors and the copied reason
 * live in one heap block; each descriptor's backend_ctx points back at the block, and the block
 * holds the address of a private constant so unregister recognises its own blocks. The
 * descriptors come first: the registry's pointer to the first one is the block's own address,
 * which keeps the block reachable (not a leak) for as long as the registry holds it. */

static const char unavailable_marker[] = "cuda.unavailable";

typedef struct unavailable_block {
    rt_kernel_desc desc[RT_REGISTRY_MAX_KERNELS];
    const char *marker;
    char reason[512];
} unavailable_block;

static int unavailable_error(const rt_kernel_desc *self, rt_err *err)
{
    return rt_err_set(err, "kernel %s is unavailable on this host: %s", self->name,
                      self->unavailable ? self->unavailable : "no CUDA backend");
}

static int stub_check(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, char *why, size_t whylen, rt_err *err)
{
    if (why && whylen > 0)
        snprintf(why, whylen, "unavailable: %s", self->unavailable ? self->unavailable : "");
    return unavailable_error(self, err);
}

static int stub_setup(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                      const rt_kernel_env *env, void **state, rt_err *err)
{
    if (state)
        *state = NULL;
    return unavailable_error(self, err);
}

/* The per-state hooks get no descriptor; the state is always NULL because setup never succeeds. */
static int stub_run(void *state, double *seconds, rt_err *err)
{
    return rt_err_set(err, "a CUDA kernel was run although it is unavailable on this host");
}

static int stub_output(void *state, double *out, rt_err *err)
{
    return rt_err_set(err, "a CUDA kernel's output was read although it is unavailable on this "
                           "host");
}

static void stub_teardown(void *state) {}

static int stub_traffic(const rt_kernel_desc *self, const void *inputs, const rt_params *p,
                        const rt_kernel_env *env, rt_traffic *t, rt_err *err)
{
    return unavailable_error(self, err);
}

static int is_unavailable_block(const rt_kernel_desc *k)
{
    const unavailable_block *b = (const unavailable_block *)k->backend_ctx;
    return b && k->unavailable && strcmp(k->backend, "cuda") == 0 &&
           rt_kernels_cuda_find(k->name) && b->marker == unavailable_marker;
}

/* Removes every descriptor that belongs to block b (or, with b NULL, to any unavailable block)
 * and returns the blocks found, at most max of them, in found[]. */
static int remove_blocks(rt_registry *reg, const unavailable_block *only, unavailable_block **found,
                         int max)
{
    int nfound = 0;
    int kept = 0;
    for (int i = 0; i < reg->n_kernels; ++i) {
        const rt_kernel_desc *k = reg->kernels[i];
        unavailable_block *b = is_unavailable_block(k) ? (unavailable_block *)k->backend_ctx : NULL;
        if (b && (!only || b == only)) {
            int seen = 0;
            for (int j = 0; j < nfound; ++j)
                seen |= found[j] == b;
            if (!seen && nfound < max)
                found[nfound++] = b;
            continue;
        }
        reg->kernels[kept++] = k;
    }
    for (int i = kept; i < reg->n_kernels; ++i)
        reg->kernels[i] = NULL;
    reg->n_kernels = kept;
    return nfound;
}

int rt_cuda_register_unavailable(rt_registry *reg, const char *reason, rt_err *err)
{
    if (!reg)
        return rt_err_set(err, "rt_cuda_register_unavailable: no registry given");
    unavailable_block *b = calloc(1, sizeof *b);
    if (!b)
        return rt_err_set(err, "out of memory registering the unavailable CUDA kernels (%zu bytes)",
                          sizeof *b);
    b->marker = unavailable_marker;
    snprintf(b->reason, sizeof b->reason, "%s",
             reason && *reason ? reason : "the CUDA backend is not loaded");
    const int count = rt_kernels_cuda_count();
    int added = 0;
    for (int i = 0; i < count && i < RT_REGISTRY_MAX_KERNELS; ++i) {
        /* A kernel is listed where the registry has its family (a registry without the spdnn
         * family simply does not list spdnn kernels). */
        const rt_cuda_catalog_entry *e = rt_kernels_cuda_entry(i);
        if (!rt_registry_find_family(reg, e->family))
            continue;
        rt_kernel_desc *d = &b->desc[i];
        rt_cuda_catalog_describe(e, d);
        d->unavailable = b->reason;
        d->check = stub_check;
        d->setup = stub_setup;
        d->run = stub_run;
        d->output = stub_output;
        d->teardown = stub_teardown;
        d->traffic = stub_traffic;
        d->backend_ctx = b;
        if (rt_registry_add_kernel(reg, d, err) != 0) {
            unavailable_block *found[1];
            remove_blocks(reg, b, found, 1);
            free(b);
            return rt_err_prefix(err, "registering the unavailable CUDA kernels");
        }
        ++added;
    }
    if (added == 0 && count > 0) {
        free(b);
        return rt_err_set(err,
                          "registering the unavailable CUDA kernels: none of their families "
                          "(first: %s) is registered; register the families first",
                          rt_kernels_cuda_entry(0)->family);
    }
    return 0;
}

void rt_cuda_unregister_unavailable(rt_registry *reg)
{
    if (!reg)
        return;
    unavailable_block *found[RT_REGISTRY_MAX_KERNELS];
    const int n = remove_blocks(reg, NULL, found, RT_REGISTRY_MAX_KERNELS);
    for (int i = 0; i < n; ++i)
        free(found[i]);
}
