#include "rt_cuda_ctx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "rt_cuda_defines.h"
#include "rt_cuda_embedded.h"
#include "rt_cuda_nvml.h"
#include "rt_cuda_nvrtc.h"
#include "rt_registry.h"

/* A block may use more than this much dynamic shared memory only after opting in per function. */
#define DEFAULT_DYNAMIC_SHARED_LIMIT (48 * 1024)

typedef struct loaded_variant {
    char *key;
    CUmodule module;
    rt_cuda_variant variant;
} loaded_variant;

struct rt_cuda_ctx {
    int ordinal;
    CUdevice device;
    CUcontext context; /* the device's primary context, shared with the runtime API */
    int context_retained;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush_buffer;
    size_t flush_bytes;
    rt_device_info info;
    char cache_dir[1024];
    double compile_limit_s; /* measure.compile_timeout_s: 0 = none */
    rt_cuda_ahead *ahead;   /* measure.compile_ahead's pool; NULL: none */
    rt_cuda_nvml *nvml;     /* the energy counter, opened on first use */
    int nvml_tried;
    char nvml_why[256]; /* why it could not be opened */
    int compiles;
    int cache_hits;
    loaded_variant *loaded;
    int n_loaded, cap_loaded;
    struct {
        char key[RT_CUDA_MEMO_KEY_MAX]; /* "" while the slot is free */
        void *data;
        void (*release)(void *);
    } memo[RT_CUDA_MEMO_SLOTS];
    int abandoned; /* rt_cuda_ctx_abandon: the device must not be waited for again */
    char abandoned_why[400];
};

/* ---------------------------------------------------------------------------------------------
 * Error helpers */

static int cu_fail(rt_err *err, const char *what, const char *call, CUresult r)
{
    const char *name = NULL, *text = NULL;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return rt_err_set(err, "%s%s%s failed: %s: %s", what ? what : "", what ? ": " : "", call,
                      name ? name : "unknown CUresult", text ? text : "");
}

static int rt_fail(rt_err *err, const char *what, const char *call, cudaError_t e)
{
    return rt_err_set(err, "%s%s%s failed: %s: %s", what ? what : "", what ? ": " : "", call,
                      cudaGetErrorName(e), cudaGetErrorString(e));
}

#define CU_CHECK(call, what)                                                                       \
    do {                                                                                           \
        const CUresult rt_cu_result_ = (call);                                                     \
        if (rt_cu_result_ != CUDA_SUCCESS)                                                         \
            return cu_fail(err, (what), #call, rt_cu_result_);                                     \
    } while (0)

#define RT_CHECK_CUDA(call, what)                                                                  \
    do {                                                                                           \
        const cudaError_t rt_rt_result_ = (call);                                                  \
        if (rt_rt_result_ != cudaSuccess)                                                          \
            return rt_fail(err, (what), #call, rt_rt_result_);                                     \
    } while (0)

/* ---------------------------------------------------------------------------------------------
 * Creation */

static int device_attribute(CUdevice dev, CUdevice_attribute attr, const char *name, int *value,
                            rt_err *err)
{
    const CUresult r = cuDeviceGetAttribute(value, attr, dev);
    if (r != CUDA_SUCCESS)
        return cu_fail(err, "reading device facts", name, r);
    return 0;
}

static void version_text(int version, char *out, size_t len)
{
    /* CUDA encodes 13.0 as 13000 and 12.4 as 12040. */
    snprintf(out, len, "%d.%d", version / 1000, (version % 1000) / 10);
}

static int fill_device_info(rt_cuda_ctx *ctx, rt_err *err)
{
    rt_device_info *d = &ctx->info;
    memset(d, 0, sizeof *d);
    snprintf(d->backend, sizeof d->backend, "cuda");
    d->ordinal = ctx->ordinal;
    CU_CHECK(cuDeviceGetName(d->name, (int)sizeof d->name, ctx->device), "reading device facts");
    size_t total = 0;
    CU_CHECK(cuDeviceTotalMem(&total, ctx->device), "reading device facts");
    d->global_mem_bytes = (int64_t)total;

    static const struct {
        CUdevice_attribute attr;
        const char *name;
    } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "COMPUTE_CAPABILITY_MAJOR"},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "COMPUTE_CAPABILITY_MINOR"},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "MULTIPROCESSOR_COUNT"},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "MAX_SHARED_MEMORY_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
         "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
         "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, "MAX_REGISTERS_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, "MAX_REGISTERS_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK"},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "MAX_THREADS_PER_MULTIPROCESSOR"},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "WARP_SIZE"},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, "CLOCK_RATE"},
        {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, "MEMORY_CLOCK_RATE"},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, "GLOBAL_MEMORY_BUS_WIDTH"},
    };
    int v[sizeof attrs / sizeof attrs[0]];
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i)
        if (device_attribute(ctx->device, attrs[i].attr, attrs[i].name, &v[i], err) != 0)
            return -1;
    d->cc_major = v[0];
    d->cc_minor = v[1];
    d->sm_count = v[2];
    d->l2_bytes = v[3];
    d->max_shared_per_block = v[4];
    d->max_shared_per_block_optin = v[5];
    d->max_shared_per_sm = v[6];
    d->regs_per_block = v[7];
    d->regs_per_sm = v[8];
    d->max_threads_per_block = v[9];
    d->max_threads_per_sm = v[10];
    d->warp_size = v[11];
    d->sm_clock_mhz = v[12] / 1000.0; /* the attributes are in kHz */
    d->mem_clock_mhz = v[13] / 1000.0;
    d->mem_bus_bits = v[14];

    int driver = 0, runtime = 0;
    CU_CHECK(cuDriverGetVersion(&driver), "reading versions");
    RT_CHECK_CUDA(cudaRuntimeGetVersion(&runtime), "reading versions");
    version_text(driver, d->driver_version, sizeof d->driver_version);
    version_text(runtime, d->runtime_version, sizeof d->runtime_version);
    return 0;
}

static int ctx_init(rt_cuda_ctx *ctx, int ordinal, const char *cache_dir, rt_err *err)
{
    ctx->ordinal = ordinal;
    CU_CHECK(cuInit(0), "initialising the CUDA driver");
    int count = 0;
    CU_CHECK(cuDeviceGetCount(&count), "counting CUDA devices");
    if (count <= 0)
        return rt_err_set(err, "no CUDA device on this host");
    if (ordinal < 0 || ordinal >= count)
        return rt_err_set(err, "device ordinal %d is out of range: this host has %d CUDA device%s",
                          ordinal, count, count == 1 ? "" : "s");
    CU_CHECK(cuDeviceGet(&ctx->device, ordinal), "selecting the device");
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx->context, ctx->device), "retaining the primary context");
    ctx->context_retained = 1;
    CU_CHECK(cuCtxSetCurrent(ctx->context), "making the primary context current");
    /* The runtime API (streams, events, memory, cuSPARSE) binds to the same primary context. */
    RT_CHECK_CUDA(cudaSetDevice(ordinal), "selecting the device");
    if (fill_device_info(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaStreamCreateWithFlags(&ctx->stream, cudaStreamNonBlocking),
                  "creating the stream");
    RT_CHECK_CUDA(cudaEventCreate(&ctx->start), "creating timing events");
    RT_CHECK_CUDA(cudaEventCreate(&ctx->stop), "creating timing events");
    ctx->flush_bytes = (size_t)(ctx->info.l2_bytes > 0 ? 2 * ctx->info.l2_bytes : 64 << 20);
    const cudaError_t e = cudaMalloc(&ctx->flush_buffer, ctx->flush_bytes);
    if (e != cudaSuccess) {
        ctx->flush_buffer = NULL;
        (void)cudaGetLastError();
        return rt_err_set(err, "allocating the %zu-byte L2 flush buffer failed: %s",
                          ctx->flush_bytes, cudaGetErrorString(e));
    }
    snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", cache_dir ? cache_dir : "");
    if (cache_dir && strlen(cache_dir) >= sizeof ctx->cache_dir)
        return rt_err_set(err, "cache directory path is longer than %zu characters",
                          sizeof ctx->cache_dir - 1);
    int vmajor, vminor;
    return rt_cuda_nvrtc_version(&vmajor, &vminor, err);
}

int rt_cuda_ctx_create(int ordinal, const char *cache_dir, rt_cuda_ctx **out, rt_err *err)
{
    *out = NULL;
    rt_cuda_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return rt_err_set(err, "out of memory creating the CUDA context");
    if (ctx_init(ctx, ordinal, cache_dir, err) != 0) {
        rt_cuda_ctx_destroy(ctx);
        return rt_err_prefix(err, "CUDA backend on device %d", ordinal);
    }
    *out = ctx;
    return 0;
}

void rt_cuda_ctx_destroy(rt_cuda_ctx *ctx)
{
    if (!ctx)
        return;
    /* Its threads touch no device, but they read the context's cache path: they end first. */
    rt_cuda_ahead_destroy(ctx->ahead);
    ctx->ahead = NULL;
    if (ctx->abandoned) {
        /* Unloading, freeing and releasing would wait for the kernel that never ends. */
        for (int i = 0; i < ctx->n_loaded; ++i)
            free(ctx->loaded[i].key);
        free(ctx->loaded);
        free(ctx);
        return;
    }
    if (ctx->context)
        cuCtxSetCurrent(ctx->context);
    for (int i = 0; i < RT_CUDA_MEMO_SLOTS; ++i)
        if (ctx->memo[i].data && ctx->memo[i].release)
            ctx->memo[i].release(ctx->memo[i].data);
    for (int i = 0; i < ctx->n_loaded; ++i) {
        if (ctx->loaded[i].module)
            cuModuleUnload(ctx->loaded[i].module);
        free(ctx->loaded[i].key);
    }
    free(ctx->loaded);
    rt_cuda_nvml_close(ctx->nvml);
    if (ctx->flush_buffer)
        cudaFree(ctx->flush_buffer);
    if (ctx->start)
        cudaEventDestroy(ctx->start);
    if (ctx->stop)
        cudaEventDestroy(ctx->stop);
    if (ctx->stream)
        cudaStreamDestroy(ctx->stream);
    if (ctx->context_retained)
        cuDevicePrimaryCtxRelease(ctx->device);
    free(ctx);
}

const rt_device_info *rt_cuda_ctx_device(const rt_cuda_ctx *ctx)
{
    return &ctx->info;
}
int rt_cuda_ctx_ordinal(const rt_cuda_ctx *ctx)
{
    return ctx->ordinal;
}
void *rt_cuda_ctx_stream(const rt_cuda_ctx *ctx)
{
    return (void *)ctx->stream;
}
void *rt_cuda_ctx_cu_context(const rt_cuda_ctx *ctx)
{
    return (void *)ctx->context;
}
const char *rt_cuda_ctx_cache_dir(const rt_cuda_ctx *ctx)
{
    return ctx->cache_dir;
}

void rt_cuda_ctx_abandon(rt_cuda_ctx *ctx, const char *why)
{
    ctx->abandoned = 1;
    snprintf(ctx->abandoned_why, sizeof ctx->abandoned_why, "%s", why ? why : "");
}

int rt_cuda_ctx_abandoned(const rt_cuda_ctx *ctx)
{
    return ctx->abandoned;
}

int rt_cuda_ctx_make_current(rt_cuda_ctx *ctx, rt_err *err)
{
    if (ctx->abandoned)
        return rt_err_set(err,
                          "the GPU cannot be used again in this process: %s (run again: the "
                          "store resumes after that point)",
                          ctx->abandoned_why);
    CU_CHECK(cuCtxSetCurrent(ctx->context), "making the CUDA context current");
    return 0;
}

int rt_cuda_ctx_energy(rt_cuda_ctx *ctx, double *joules, char *why, size_t whylen)
{
    if (!ctx->nvml_tried) {
        ctx->nvml_tried = 1;
        char bus[32] = "";
        const CUresult r = cuDeviceGetPCIBusId(bus, (int)sizeof bus, ctx->device);
        if (r != CUDA_SUCCESS) {
            const char *name = NULL;
            cuGetErrorName(r, &name);
            snprintf(ctx->nvml_why, sizeof ctx->nvml_why, "cuDeviceGetPCIBusId failed: %s",
                     name ? name : "unknown CUresult");
        } else {
            rt_cuda_nvml_open(NULL, bus, &ctx->nvml, ctx->nvml_why, sizeof ctx->nvml_why);
        }
    }
    if (!ctx->nvml) {
        snprintf(why, whylen, "%s", ctx->nvml_why);
        return -1;
    }
    return rt_cuda_nvml_energy(ctx->nvml, joules, why, whylen);
}

void rt_cuda_ctx_set_compile_limit(rt_cuda_ctx *ctx, double seconds)
{
    ctx->compile_limit_s = seconds > 0 ? seconds : 0;
}

void rt_cuda_ctx_stats(const rt_cuda_ctx *ctx, int *compiles, int *cache_hits)
{
    if (compiles)
        *compiles = ctx->compiles;
    if (cache_hits)
        *cache_hits = ctx->cache_hits;
}

int rt_cuda_ctx_set_compile_ahead(rt_cuda_ctx *ctx, int threads, rt_err *err)
{
    rt_cuda_ahead_destroy(ctx->ahead);
    ctx->ahead = NULL;
    if (threads <= 0)
        return 0;
    if (!ctx->cache_dir[0])
        return rt_err_set(err, "compile ahead needs the variant cache, which is off");
    return rt_cuda_ahead_create(threads, &ctx->ahead, err);
}

void rt_cuda_ctx_ahead_stats(const rt_cuda_ctx *ctx, rt_cuda_ahead_stats *out)
{
    rt_cuda_ahead_get_stats(ctx->ahead, out);
}

static int memo_find(const rt_cuda_ctx *ctx, const char *key)
{
    for (int i = 0; i < RT_CUDA_MEMO_SLOTS; ++i)
        if (ctx->memo[i].key[0] && strcmp(ctx->memo[i].key, key) == 0)
            return i;
    return -1;
}

void *rt_cuda_ctx_memo(const rt_cuda_ctx *ctx, const char *key)
{
    const int i = key ? memo_find(ctx, key) : -1;
    return i < 0 ? NULL : ctx->memo[i].data;
}

int rt_cuda_ctx_set_memo(rt_cuda_ctx *ctx, const char *key, void *data, void (*release)(void *),
                         rt_err *err)
{
    if (!key || !key[0] || strlen(key) >= RT_CUDA_MEMO_KEY_MAX)
        return rt_err_set(err, "CUDA context memo: key '%s' is empty or longer than %d bytes",
                          key ? key : "(null)", RT_CUDA_MEMO_KEY_MAX - 1);
    int i = memo_find(ctx, key);
    for (int j = 0; i < 0 && j < RT_CUDA_MEMO_SLOTS; ++j)
        if (!ctx->memo[j].key[0])
            i = j;
    if (i < 0)
        return rt_err_set(err, "CUDA context memo: all %d keys are taken, none left for '%s'",
                          RT_CUDA_MEMO_SLOTS, key);
    if (ctx->memo[i].data && ctx->memo[i].release && ctx->memo[i].data != data)
        ctx->memo[i].release(ctx->memo[i].data);
    snprintf(ctx->memo[i].key, sizeof ctx->memo[i].key, "%s", key);
    ctx->memo[i].data = data;
    ctx->memo[i].release = release;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Variants */

const char *rt_cuda_source(const char *name)
{
    if (!name)
        return NULL;
    const size_t n = sizeof rt_cuda_embedded_sources / sizeof rt_cuda_embedded_sources[0];
    for (size_t i = 0; i < n; ++i)
        if (strcmp(rt_cuda_embedded_sources[i].name, name) == 0)
            return rt_cuda_embedded_sources[i].text;
    return NULL;
}

static int read_function_facts(CUfunction fn, rt_cuda_variant *v, const char *what, rt_err *err)
{
    CU_CHECK(cuFuncGetAttribute(&v->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, fn), what);
    CU_CHECK(cuFuncGetAttribute(&v->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn), what);
    CU_CHECK(cuFuncGetAttribute(&v->static_shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
             what);
    CU_CHECK(
        cuFuncGetAttribute(&v->max_threads_per_block, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn),
        what);
    return 0;
}

static int remember(rt_cuda_ctx *ctx, const char *key, CUmodule module, const rt_cuda_variant *v,
                    rt_err *err)
{
    if (ctx->n_loaded == ctx->cap_loaded) {
        const int cap = ctx->cap_loaded ? 2 * ctx->cap_loaded : 16;
        loaded_variant *grown = realloc(ctx->loaded, (size_t)cap * sizeof *grown);
        if (!grown)
            return rt_err_set(err, "out of memory recording a loaded kernel variant");
        ctx->loaded = grown;
        ctx->cap_loaded = cap;
    }
    char *copy = malloc(strlen(key) + 1);
    if (!copy)
        return rt_err_set(err, "out of memory recording a loaded kernel variant");
    strcpy(copy, key);
    ctx->loaded[ctx->n_loaded].key = copy;
    ctx->loaded[ctx->n_loaded].module = module;
    ctx->loaded[ctx->n_loaded].variant = *v;
    ++ctx->n_loaded;
    return 0;
}

/* The request rt_cuda_get_variant compiles, and the compile-ahead pool is handed: built in one
 * place (rt_cuda_variant_compile_request with this context's target), so both have one key. */
static void ctx_request(const rt_cuda_ctx *ctx, const char *source_name, const char *source,
                        const char *const *defines, int n_defines, const char *entry,
                        rt_cuda_compile_request *req)
{
    const rt_cuda_target target = {.cc_major = ctx->info.cc_major,
                                   .cc_minor = ctx->info.cc_minor,
                                   .cache_dir = ctx->cache_dir,
                                   .time_limit_s = ctx->compile_limit_s};
    rt_cuda_variant_compile_request(&target, source_name, source, defines, n_defines, entry, req);
}

static const loaded_variant *find_loaded(const rt_cuda_ctx *ctx, const char *key)
{
    for (int i = 0; i < ctx->n_loaded; ++i)
        if (strcmp(ctx->loaded[i].key, key) == 0)
            return &ctx->loaded[i];
    return NULL;
}

int rt_cuda_ctx_compile_ahead(rt_cuda_ctx *ctx, const char *source_name, const char *source,
                              const char *const *defines, int n_defines, const char *entry,
                              rt_err *err)
{
    if (!ctx->ahead)
        return 0;
    rt_cuda_compile_request req;
    ctx_request(ctx, source_name, source, defines, n_defines, entry, &req);
    char key[RT_CUDA_KEY_MAX];
    if (rt_cuda_variant_key(&req, key, sizeof key, err) != 0)
        return -1;
    if (find_loaded(ctx, key)) /* this process has it: its point compiles nothing */
        return 0;
    /* In the disk cache already (a warm run, another worker's compile): nothing to do ahead. */
    char path[4096];
    struct stat st;
    if (rt_cuda_cache_path(&req, path, sizeof path, err) != 0)
        return -1;
    if (stat(path, &st) == 0)
        return 0;
    return rt_cuda_ahead_submit(ctx->ahead, &req, err);
}

int rt_cuda_get_variant(rt_cuda_ctx *ctx, const char *source_name, const char *source,
                        const char *const *defines, int n_defines, const char *entry,
                        rt_cuda_variant *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    rt_cuda_compile_request req;
    ctx_request(ctx, source_name, source, defines, n_defines, entry, &req);
    char key[RT_CUDA_KEY_MAX];
    if (rt_cuda_variant_key(&req, key, sizeof key, err) != 0)
        return -1;
    const loaded_variant *known = find_loaded(ctx, key);
    if (known) {
        *out = known->variant;
        out->from_cache = 1;
        out->compile_s = 0.0;
        out->compiled_ahead = 0;
        out->ahead_s = out->ahead_wait_s = 0.0;
        ++ctx->cache_hits;
        return 0;
    }
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;

    /* Compiled ahead: the pool's image is in the cache now (a compile still running is waited
     * for, a queued one is taken back and compiled below, as without the pool). */
    double ahead_s = 0.0, ahead_wait_s = 0.0;
    const int ahead = rt_cuda_ahead_claim(ctx->ahead, &req, &ahead_s, &ahead_wait_s);

    char what[256];
    snprintf(what, sizeof what, "loading %s (%s)", source_name, entry);
    for (int attempt = 0; attempt < 2; ++attempt) {
        rt_cuda_image img;
        const int compiled = rt_cuda_compile(&req, &img, err);
        if (compiled != 0)
            return compiled == RT_CUDA_TIMED_OUT ? RT_TIMED_OUT : -1;
        CUmodule module = NULL;
        const CUresult r = cuModuleLoadData(&module, img.data);
        if (r != CUDA_SUCCESS && img.from_cache && attempt == 0) {
            /* A cached image the driver rejects is stale (say, a driver change): compile anew. */
            rt_cuda_image_free(&img);
            req.skip_cache_read = 1;
            continue;
        }
        const int from_cache = img.from_cache;
        const double compile_s = img.compile_s;
        rt_cuda_image_free(&img);
        if (r != CUDA_SUCCESS)
            return cu_fail(err, what, "cuModuleLoadData", r);
        CUfunction fn = NULL;
        const CUresult rf = cuModuleGetFunction(&fn, module, entry);
        if (rf != CUDA_SUCCESS) {
            cuModuleUnload(module);
            return cu_fail(err, what, "cuModuleGetFunction", rf);
        }
        rt_cuda_variant v = {.function = (void *)fn,
                             .from_cache = from_cache,
                             .compile_s = compile_s,
                             /* the pool compiled it (not found it cached), and the load
                                ahead found that image */
                             .compiled_ahead = ahead && from_cache && ahead_s > 0,
                             .ahead_s = ahead && from_cache ? ahead_s : 0.0,
                             .ahead_wait_s = ahead_wait_s};
        if (read_function_facts(fn, &v, what, err) != 0 ||
            remember(ctx, key, module, &v, err) != 0) {
            cuModuleUnload(module);
            return -1;
        }
        if (from_cache)
            ++ctx->cache_hits;
        else
            ++ctx->compiles;
        *out = v;
        return 0;
    }
    return rt_err_set(err, "%s: the variant could not be loaded", what);
}

/* ---------------------------------------------------------------------------------------------
 * Launches and timing */

int rt_cuda_launch(rt_cuda_ctx *ctx, const rt_cuda_variant *v, const rt_cuda_launch_cfg *cfg,
                   void **args, double *seconds, const char *what, rt_err *err)
{
    if (seconds)
        *seconds = -1.0;
    const CUfunction fn = (CUfunction)v->function;
    if (!fn)
        return rt_err_set(err, "%s: launch of a variant that was never loaded", what);
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    const unsigned long long threads =
        (unsigned long long)cfg->block[0] * cfg->block[1] * cfg->block[2];
    if (threads == 0 || threads > (unsigned long long)v->max_threads_per_block)
        return rt_err_set(err, "%s: a block of %llu threads, the variant allows %d", what, threads,
                          v->max_threads_per_block);
    const size_t shared_total = cfg->dynamic_shared_bytes + (size_t)v->static_shared_bytes;
    if (shared_total > (size_t)ctx->info.max_shared_per_block_optin)
        return rt_err_set(err, "%s: %zu bytes of shared memory per block, the device allows %lld",
                          what, shared_total, (long long)ctx->info.max_shared_per_block_optin);
    if (cfg->dynamic_shared_bytes > DEFAULT_DYNAMIC_SHARED_LIMIT)
        CU_CHECK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)cfg->dynamic_shared_bytes),
                 what);
    const int empty = cfg->grid[0] == 0 || cfg->grid[1] == 0 || cfg->grid[2] == 0;
    if (seconds)
        RT_CHECK_CUDA(cudaEventRecord(ctx->start, ctx->stream), what);
    if (cfg->zero_bytes > 0)
        RT_CHECK_CUDA(cudaMemsetAsync(cfg->zero_first, 0, cfg->zero_bytes, ctx->stream), what);
    if (!empty)
        CU_CHECK(cuLaunchKernel(fn, cfg->grid[0], cfg->grid[1], cfg->grid[2], cfg->block[0],
                                cfg->block[1], cfg->block[2], (unsigned)cfg->dynamic_shared_bytes,
                                (CUstream)ctx->stream, args, NULL),
                 what);
    if (seconds) {
        RT_CHECK_CUDA(cudaEventRecord(ctx->stop, ctx->stream), what);
        /* Errors of the kernel itself (illegal address, ...) surface here. */
        RT_CHECK_CUDA(cudaEventSynchronize(ctx->stop), what);
        float ms = 0.0f;
        RT_CHECK_CUDA(cudaEventElapsedTime(&ms, ctx->start, ctx->stop), what);
        *seconds = ms * 1e-3;
        return 0;
    }
    RT_CHECK_CUDA(cudaStreamSynchronize(ctx->stream), what);
    return 0;
}

int rt_cuda_occupancy(rt_cuda_ctx *ctx, const rt_cuda_variant *v, int block_threads,
                      size_t dynamic_shared_bytes, double *occupancy, rt_err *err)
{
    *occupancy = 0.0;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    /* The occupancy calculator honours the function's dynamic shared-memory limit: raise it
     * first, as the launch will. */
    if (dynamic_shared_bytes > DEFAULT_DYNAMIC_SHARED_LIMIT)
        CU_CHECK(cuFuncSetAttribute((CUfunction)v->function,
                                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)dynamic_shared_bytes),
                 "computing occupancy");
    int blocks = 0;
    CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (CUfunction)v->function,
                                                         block_threads, dynamic_shared_bytes),
             "computing occupancy");
    if (ctx->info.max_threads_per_sm > 0 && ctx->info.warp_size > 0) {
        const int warps_per_block = (block_threads + ctx->info.warp_size - 1) / ctx->info.warp_size;
        const int max_warps = ctx->info.max_threads_per_sm / ctx->info.warp_size;
        *occupancy = (double)(blocks * warps_per_block) / max_warps;
    }
    return 0;
}

int rt_cuda_timer_start(rt_cuda_ctx *ctx, const char *what, rt_err *err)
{
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaEventRecord(ctx->start, ctx->stream), what);
    return 0;
}

int rt_cuda_timer_stop(rt_cuda_ctx *ctx, double *seconds, const char *what, rt_err *err)
{
    *seconds = -1.0;
    RT_CHECK_CUDA(cudaEventRecord(ctx->stop, ctx->stream), what);
    RT_CHECK_CUDA(cudaEventSynchronize(ctx->stop), what);
    float ms = 0.0f;
    RT_CHECK_CUDA(cudaEventElapsedTime(&ms, ctx->start, ctx->stop), what);
    *seconds = ms * 1e-3;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Memory */

int rt_cuda_alloc(rt_cuda_ctx *ctx, void **ptr, size_t bytes, const char *what, rt_err *err)
{
    *ptr = NULL;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    const size_t asked = bytes > 0 ? bytes : 16;
    const cudaError_t e = cudaMalloc(ptr, asked);
    if (e == cudaSuccess)
        return 0;
    *ptr = NULL;
    /* Out-of-memory is not sticky; clear it so later calls do not report it again. */
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) {
        size_t free_bytes = 0, total_bytes = 0;
        if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess)
            (void)cudaGetLastError();
        rt_err_set(err, "GPU out of memory allocating %zu bytes for %s (%zu of %zu bytes free)",
                   asked, what, free_bytes, total_bytes);
        return RT_INFEASIBLE;
    }
    return rt_fail(err, what, "cudaMalloc", e);
}

void rt_cuda_free(rt_cuda_ctx *ctx, void *ptr)
{
    if (!ptr || ctx->abandoned)
        return;
    cuCtxSetCurrent(ctx->context);
    cudaFree(ptr);
}

int rt_cuda_upload(rt_cuda_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what,
                   rt_err *err)
{
    if (bytes == 0)
        return 0;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, ctx->stream), what);
    RT_CHECK_CUDA(cudaStreamSynchronize(ctx->stream), what);
    return 0;
}

int rt_cuda_download(rt_cuda_ctx *ctx, void *dst, const void *src, size_t bytes, const char *what,
                     rt_err *err)
{
    if (bytes == 0)
        return 0;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, ctx->stream), what);
    RT_CHECK_CUDA(cudaStreamSynchronize(ctx->stream), what);
    return 0;
}

int rt_cuda_fill(rt_cuda_ctx *ctx, void *ptr, int byte, size_t bytes, const char *what, rt_err *err)
{
    if (bytes == 0)
        return 0;
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaMemsetAsync(ptr, byte, bytes, ctx->stream), what);
    RT_CHECK_CUDA(cudaStreamSynchronize(ctx->stream), what);
    return 0;
}

int rt_cuda_flush_l2(rt_cuda_ctx *ctx, rt_err *err)
{
    return rt_cuda_fill(ctx, ctx->flush_buffer, 0x5A, ctx->flush_bytes, "flushing the L2 cache",
                        err);
}

int rt_cuda_sync(rt_cuda_ctx *ctx, const char *what, rt_err *err)
{
    if (rt_cuda_ctx_make_current(ctx, err) != 0)
        return -1;
    RT_CHECK_CUDA(cudaStreamSynchronize(ctx->stream), what);
    return 0;
}
