#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen, pthread_cond_timedwait */

#include "rt_cuda_nvrtc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

#include "rt_clock.h"
#include "rt_path.h"
#include "rt_strutil.h"

/* Options every variant is compiled with. They are part of the cache key: changing them here
 * invalidates every cached image. No --use_fast_math: results must pass the same verification
 * gate as the CPU reference. -lineinfo keeps source lines for profilers at no run-time cost. */
static const char *const fixed_options[] = {"-default-device", "-std=c++17", "-lineinfo"};
#define N_FIXED_OPTIONS ((int)(sizeof fixed_options / sizeof fixed_options[0]))

static const char cache_magic[8] = {'R', 'T', 'C', 'U', 'B', 'I', 'N', '1'};
/* A cache file claiming a larger image than this is corrupt, not a kernel. */
#define MAX_IMAGE_BYTES ((uint64_t)1 << 30)

/* ---------------------------------------------------------------------------------------------
 * Keys */

static int define_is_valid(const char *d, char *why, size_t whylen)
{
    if (!d || !*d) {
        snprintf(why, whylen, "an empty define");
        return 0;
    }
    if (strlen(d) >= RT_CUDA_DEFINE_MAX) {
        snprintf(why, whylen, "define '%.40s...' is longer than %d characters", d,
                 RT_CUDA_DEFINE_MAX - 1);
        return 0;
    }
    const char *eq = strchr(d, '=');
    if (!eq || eq == d || eq[1] == '\0') {
        snprintf(why, whylen, "define '%s' is not NAME=VALUE", d);
        return 0;
    }
    if (!(isalpha((unsigned char)d[0]) || d[0] == '_')) {
        snprintf(why, whylen, "define '%s' does not start with a letter or '_'", d);
        return 0;
    }
    for (const char *c = d; c < eq; ++c)
        if (!(isalnum((unsigned char)*c) || *c == '_')) {
            snprintf(why, whylen, "define '%s' has '%c' in its name", d, *c);
            return 0;
        }
    for (const char *c = eq + 1; *c; ++c)
        if (!(isalnum((unsigned char)*c) || strchr("_.+-", *c))) {
            snprintf(why, whylen, "define '%s' has '%c' in its value", d, *c);
            return 0;
        }
    return 1;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int check_request(const rt_cuda_compile_request *req, rt_err *err)
{
    if (!req || !req->source || !req->source_name || !req->entry || !*req->entry)
        return rt_err_set(err, "NVRTC request without a source, a source name or an entry point");
    if (req->n_defines < 0 || req->n_defines > RT_CUDA_MAX_DEFINES ||
        (req->n_defines > 0 && !req->defines))
        return rt_err_set(err, "%s: %d defines (at most %d)", req->source_name, req->n_defines,
                          RT_CUDA_MAX_DEFINES);
    if (req->cc_major <= 0 || req->cc_minor < 0)
        return rt_err_set(err, "%s: invalid compute capability %d.%d", req->source_name,
                          req->cc_major, req->cc_minor);
    char why[256];
    for (int i = 0; i < req->n_defines; ++i)
        if (!define_is_valid(req->defines[i], why, sizeof why))
            return rt_err_set(err, "%s (%s): %s", req->source_name, req->entry, why);
    return 0;
}

int rt_cuda_nvrtc_version(int *major, int *minor, rt_err *err)
{
    const nvrtcResult r = nvrtcVersion(major, minor);
    if (r != NVRTC_SUCCESS)
        return rt_err_set(err, "nvrtcVersion failed: %s", nvrtcGetErrorString(r));
    return 0;
}

/* Appends formatted text at *pos; fails (returns -1) instead of truncating. */
static int append(char *buf, size_t len, size_t *pos, const char *text)
{
    const size_t n = strlen(text);
    if (*pos + n + 1 > len)
        return -1;
    memcpy(buf + *pos, text, n + 1);
    *pos += n;
    return 0;
}

int rt_cuda_variant_key(const rt_cuda_compile_request *req, char *key, size_t len, rt_err *err)
{
    if (check_request(req, err) != 0)
        return -1;
    int vmajor = 0, vminor = 0;
    if (rt_cuda_nvrtc_version(&vmajor, &vminor, err) != 0)
        return -1;
    const char *sorted[RT_CUDA_MAX_DEFINES];
    for (int i = 0; i < req->n_defines; ++i)
        sorted[i] = req->defines[i];
    qsort(sorted, (size_t)req->n_defines, sizeof sorted[0], compare_strings);

    const size_t srclen = strlen(req->source);
    char h1[17], h2[17];
    rt_hash_hex(rt_hash64(req->source, srclen, 0x9e3779b97f4a7c15ULL), h1);
    rt_hash_hex(rt_hash64(req->source, srclen, 0xc2b2ae3d27d4eb4fULL), h2);

    char line[512];
    size_t pos = 0;
    key[0] = '\0';
    snprintf(line, sizeof line,
             "rooftune-variant-v1\nsource=%s\nsource_hash=%s%s\nsource_bytes=%zu\nentry=%s\n"
             "cc=%d.%d\nnvrtc=%d.%d\noptions=",
             req->source_name, h1, h2, srclen, req->entry, req->cc_major, req->cc_minor, vmajor,
             vminor);
    int bad = append(key, len, &pos, line);
    for (int i = 0; i < N_FIXED_OPTIONS; ++i) {
        bad |= append(key, len, &pos, fixed_options[i]);
        bad |= append(key, len, &pos, " ");
    }
    bad |= append(key, len, &pos, "\ndefines=");
    for (int i = 0; i < req->n_defines; ++i) {
        bad |= append(key, len, &pos, sorted[i]);
        bad |= append(key, len, &pos, " ");
    }
    bad |= append(key, len, &pos, "\n");
    if (bad)
        return rt_err_set(err, "%s (%s): the variant key is longer than %zu bytes",
                          req->source_name, req->entry, len);
    return 0;
}

int rt_cuda_cache_path(const rt_cuda_compile_request *req, char *path, size_t len, rt_err *err)
{
    if (!req || !req->cache_dir || !*req->cache_dir)
        return rt_err_set(err, "no cache directory given");
    char key[RT_CUDA_KEY_MAX];
    if (rt_cuda_variant_key(req, key, sizeof key, err) != 0)
        return -1;
    char h1[17], h2[17];
    rt_hash_hex(rt_hash64(key, strlen(key), 0x243f6a8885a308d3ULL), h1);
    rt_hash_hex(rt_hash64(key, strlen(key), 0x13198a2e03707344ULL), h2);
    const int n = snprintf(path, len, "%s/%s%s.cubin", req->cache_dir, h1, h2);
    if (n < 0 || (size_t)n >= len)
        return rt_err_set(err, "cache path under '%s' is too long", req->cache_dir);
    return 0;
}

int rt_cuda_cache_dir_default(char *out, size_t len, rt_err *err)
{
    const char *explicit_dir = getenv("ROOFTUNE_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (explicit_dir && *explicit_dir)
        n = snprintf(out, len, "%s", explicit_dir);
    else if (xdg && *xdg)
        n = snprintf(out, len, "%s/rooftune", xdg);
    else if (home && *home)
        n = snprintf(out, len, "%s/.cache/rooftune", home);
    else
        return rt_err_set(err, "no cache directory for compiled kernels: set ROOFTUNE_CACHE_DIR "
                               "(neither XDG_CACHE_HOME nor HOME is set)");
    if (n < 0 || (size_t)n >= len)
        return rt_err_set(err, "the cache directory path is longer than %zu characters", len - 1);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Disk cache. File: magic[8], u64 key length, key text, u32 is_ptx, u32 zero, u64 image size,
 * u64 checksum of the image, image bytes. Native byte order: a cache belongs to one host type. */

static uint64_t image_checksum(const void *data, size_t size)
{
    return rt_hash64(data, size, 0x452821e638d01377ULL);
}

/* Returns 1 and fills out on a valid hit; 0 on a miss or a corrupt file (note says which). */
static int cache_read(const char *path, const char *key, rt_cuda_image *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno != ENOENT) {
            char note[PATH_MAX + 160];
            snprintf(note, sizeof note, "cannot read %s: %s", path, strerror(errno));
            rt_path_fit_text(note, out->cache_note, sizeof out->cache_note);
        }
        return 0;
    }
    char magic[8];
    uint64_t key_len = 0, size = 0, sum = 0;
    uint32_t is_ptx = 0, zero = 0;
    char *stored_key = NULL;
    unsigned char *data = NULL;
    int ok = fread(magic, 1, sizeof magic, f) == sizeof magic &&
             memcmp(magic, cache_magic, sizeof magic) == 0 &&
             fread(&key_len, sizeof key_len, 1, f) == 1 && key_len == strlen(key);
    if (ok) {
        stored_key = malloc(key_len + 1);
        ok = stored_key && fread(stored_key, 1, key_len, f) == key_len;
        if (ok) {
            stored_key[key_len] = '\0';
            ok = strcmp(stored_key, key) == 0;
        }
    }
    ok = ok && fread(&is_ptx, sizeof is_ptx, 1, f) == 1 && fread(&zero, sizeof zero, 1, f) == 1 &&
         is_ptx <= 1 && zero == 0 && fread(&size, sizeof size, 1, f) == 1 && size > 0 &&
         size <= MAX_IMAGE_BYTES && fread(&sum, sizeof sum, 1, f) == 1;
    if (ok) {
        data = malloc((size_t)size);
        ok = data && fread(data, 1, (size_t)size, f) == size && fgetc(f) == EOF &&
             image_checksum(data, (size_t)size) == sum;
        /* PTX must stay a C string for the driver. */
        ok = ok && (!is_ptx || data[size - 1] == '\0');
    }
    fclose(f);
    free(stored_key);
    if (!ok) {
        free(data);
        /* a deep cache folder must not push "corrupt" out of the note */
        char note[PATH_MAX + 160];
        snprintf(note, sizeof note, "cache file %s is corrupt or stale; compiled again", path);
        rt_path_fit_text(note, out->cache_note, sizeof out->cache_note);
        return 0;
    }
    out->data = data;
    out->size = (size_t)size;
    out->is_ptx = (int)is_ptx;
    out->from_cache = 1;
    out->compile_s = 0.0;
    return 1;
}

/* mkdir -p; returns 0 or -1 with errno set. */
static int make_dirs(const char *dir)
{
    char path[4096];
    const int n = snprintf(path, sizeof path, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; ++p) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* Best effort: a cache that cannot be written costs a recompile next time, nothing else. */
static void cache_write(const char *dir, const char *path, const char *key,
                        const rt_cuda_image *img, char *note, size_t notelen)
{
    if (make_dirs(dir) != 0) {
        snprintf(note, notelen, "cannot create cache directory %s: %s", dir, strerror(errno));
        return;
    }
    char tmp[4200];
    const int n = snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        snprintf(note, notelen, "cache path %s is too long", path);
        return;
    }
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        snprintf(note, notelen, "cannot create a file in %s: %s", dir, strerror(errno));
        return;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        snprintf(note, notelen, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return;
    }
    const uint64_t key_len = strlen(key);
    const uint32_t is_ptx = (uint32_t)img->is_ptx, zero = 0;
    const uint64_t size = img->size;
    const uint64_t sum = image_checksum(img->data, img->size);
    int ok = fwrite(cache_magic, 1, sizeof cache_magic, f) == sizeof cache_magic &&
             fwrite(&key_len, sizeof key_len, 1, f) == 1 &&
             fwrite(key, 1, (size_t)key_len, f) == key_len &&
             fwrite(&is_ptx, sizeof is_ptx, 1, f) == 1 && fwrite(&zero, sizeof zero, 1, f) == 1 &&
             fwrite(&size, sizeof size, 1, f) == 1 && fwrite(&sum, sizeof sum, 1, f) == 1 &&
             fwrite(img->data, 1, img->size, f) == img->size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(note, notelen, "cannot write cache file %s: %s", path, strerror(errno));
        unlink(tmp);
    }
}

/* ---------------------------------------------------------------------------------------------
 * NVRTC */

/* The newest architecture NVRTC supports that the device can run: the device's own (CUBIN), or
 * the newest older one (PTX, compiled by the driver) when NVRTC predates the device. */
static int pick_arch(const rt_cuda_compile_request *req, char *arch, size_t len, int *is_ptx,
                     rt_err *err)
{
    int count = 0;
    nvrtcResult r = nvrtcGetNumSupportedArchs(&count);
    if (r != NVRTC_SUCCESS || count <= 0 || count > 256)
        return rt_err_set(err, "nvrtcGetNumSupportedArchs failed: %s",
                          r != NVRTC_SUCCESS ? nvrtcGetErrorString(r) : "no architectures");
    int archs[256];
    r = nvrtcGetSupportedArchs(archs);
    if (r != NVRTC_SUCCESS)
        return rt_err_set(err, "nvrtcGetSupportedArchs failed: %s", nvrtcGetErrorString(r));
    const int want = req->cc_major * 10 + req->cc_minor;
    int best = -1;
    for (int i = 0; i < count; ++i) {
        if (archs[i] == want) {
            snprintf(arch, len, "sm_%d", want);
            *is_ptx = 0;
            return 0;
        }
        if (archs[i] < want && archs[i] > best)
            best = archs[i];
    }
    if (best < 0)
        return rt_err_set(err,
                          "NVRTC supports no architecture at or below the device's compute "
                          "capability %d.%d (oldest it knows: sm_%d)",
                          req->cc_major, req->cc_minor, archs[0]);
    snprintf(arch, len, "compute_%d", best);
    *is_ptx = 1;
    return 0;
}

static void describe_defines(const rt_cuda_compile_request *req, char *buf, size_t len)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < req->n_defines; ++i) {
        const int n = snprintf(buf + pos, len - pos, "%s%s", i ? " " : "", req->defines[i]);
        if (n < 0 || (size_t)n >= len - pos)
            break;
        pos += (size_t)n;
    }
}

static int nvrtc_compile(const rt_cuda_compile_request *req, rt_cuda_image *out, rt_err *err)
{
    int is_ptx = 0;
    if (pick_arch(req, out->arch, sizeof out->arch, &is_ptx, err) != 0)
        return rt_err_prefix(err, "compiling %s (%s)", req->source_name, req->entry);
    char defs[RT_CUDA_MAX_DEFINES * (RT_CUDA_DEFINE_MAX + 1) + 1];
    describe_defines(req, defs, sizeof defs);

    char arch_opt[48];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s", out->arch);
    char define_opts[RT_CUDA_MAX_DEFINES][RT_CUDA_DEFINE_MAX + 3];
    const char *options[N_FIXED_OPTIONS + 1 + RT_CUDA_MAX_DEFINES];
    int n_options = 0;
    options[n_options++] = arch_opt;
    for (int i = 0; i < N_FIXED_OPTIONS; ++i)
        options[n_options++] = fixed_options[i];
    for (int i = 0; i < req->n_defines; ++i) {
        snprintf(define_opts[i], sizeof define_opts[i], "-D%s", req->defines[i]);
        options[n_options++] = define_opts[i];
    }

    const double t0 = rt_clock_now();
    nvrtcProgram prog;
    nvrtcResult r = nvrtcCreateProgram(&prog, req->source, req->source_name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return rt_err_set(err, "nvrtcCreateProgram failed for %s: %s", req->source_name,
                          nvrtcGetErrorString(r));
    r = nvrtcCompileProgram(prog, n_options, options);
    if (r != NVRTC_SUCCESS) {
        size_t log_size = 0;
        char *log = NULL;
        if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1 &&
            (log = malloc(log_size)) != NULL && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) {
            free(log);
            log = NULL;
        }
        /* The end of the log holds the errors that stopped the compile. */
        const char *tail = log ? log : "(no log)";
        const size_t keep = 1200;
        if (log && strlen(log) > keep)
            tail = log + strlen(log) - keep;
        rt_err_set(err, "NVRTC failed to compile %s (entry %s, defines %s) for %s: %s: %s",
                   req->source_name, req->entry, defs, out->arch, nvrtcGetErrorString(r), tail);
        free(log);
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    size_t size = 0;
    r = is_ptx ? nvrtcGetPTXSize(prog, &size) : nvrtcGetCUBINSize(prog, &size);
    if (r != NVRTC_SUCCESS || size == 0) {
        rt_err_set(err, "%s failed for %s (%s, defines %s): %s",
                   is_ptx ? "nvrtcGetPTXSize" : "nvrtcGetCUBINSize", req->source_name, req->entry,
                   defs, r != NVRTC_SUCCESS ? nvrtcGetErrorString(r) : "empty image");
        nvrtcDestroyProgram(&prog);
        return -1;
    }
    unsigned char *data = malloc(size);
    if (!data) {
        nvrtcDestroyProgram(&prog);
        return rt_err_set(err, "out of memory holding a %zu-byte image of %s", size,
                          req->source_name);
    }
    r = is_ptx ? nvrtcGetPTX(prog, (char *)data) : nvrtcGetCUBIN(prog, (char *)data);
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS) {
        free(data);
        return rt_err_set(err, "%s failed for %s (%s, defines %s): %s",
                          is_ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN", req->source_name, req->entry,
                          defs, nvrtcGetErrorString(r));
    }
    out->data = data;
    out->size = size;
    out->is_ptx = is_ptx;
    out->from_cache = 0;
    out->compile_s = rt_clock_now() - t0;
    return 0;
}

/* Compiles and, with a cache, writes the image to its file (the note says why it could not). */
static int compile_and_store(const rt_cuda_compile_request *req, const char *path, const char *key,
                             rt_cuda_image *out, rt_err *err)
{
    char note[sizeof out->cache_note];
    snprintf(note, sizeof note, "%s", out->cache_note);
    if (nvrtc_compile(req, out, err) != 0)
        return -1;
    snprintf(out->cache_note, sizeof out->cache_note, "%s", note);
    if (path[0]) {
        char write_note[sizeof out->cache_note] = "";
        cache_write(req->cache_dir, path, key, out, write_note, sizeof write_note);
        if (write_note[0])
            snprintf(out->cache_note, sizeof out->cache_note, "%s", write_note);
    }
    return 0;
}

/* A compile on a thread of its own, which the caller may abandon. The job owns copies of
 * everything the request points at; the caller and the thread each hold a reference and the
 * last to let go frees it. */
typedef struct compile_job {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs, done, rc;
    rt_cuda_owned_request own;
    char path[4096];
    char key[RT_CUDA_KEY_MAX];
    rt_cuda_image img;
    rt_err err;
} compile_job;

static void job_release(compile_job *job)
{
    pthread_mutex_lock(&job->mu);
    const int left = --job->refs;
    pthread_mutex_unlock(&job->mu);
    if (left > 0)
        return;
    rt_cuda_image_free(&job->img);
    rt_cuda_request_release(&job->own);
    pthread_cond_destroy(&job->cv);
    pthread_mutex_destroy(&job->mu);
    free(job);
}

static void *job_main(void *arg)
{
    compile_job *job = arg;
    rt_err_clear(&job->err);
    const int rc = compile_and_store(&job->own.req, job->path, job->key, &job->img, &job->err);
    pthread_mutex_lock(&job->mu);
    job->rc = rc;
    job->done = 1;
    pthread_cond_signal(&job->cv);
    pthread_mutex_unlock(&job->mu);
    job_release(job);
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void rt_cuda_request_release(rt_cuda_owned_request *o)
{
    if (!o)
        return;
    free(o->source);
    free(o->source_name);
    free(o->entry);
    free(o->cache_dir);
    for (int i = 0; i < RT_CUDA_MAX_DEFINES; ++i)
        free(o->defines[i]);
    memset(o, 0, sizeof *o);
}

int rt_cuda_request_copy(const rt_cuda_compile_request *req, rt_cuda_owned_request *out)
{
    memset(out, 0, sizeof *out);
    out->req = *req;
    out->source = dup_or_null(req->source);
    out->source_name = dup_or_null(req->source_name);
    out->entry = dup_or_null(req->entry);
    out->cache_dir = dup_or_null(req->cache_dir);
    int ok = out->source && out->source_name && out->entry && (out->cache_dir || !req->cache_dir);
    for (int i = 0; ok && i < req->n_defines; ++i)
        ok = (out->defines[i] = strdup(req->defines[i])) != NULL;
    out->req.source = out->source;
    out->req.source_name = out->source_name;
    out->req.entry = out->entry;
    out->req.cache_dir = out->cache_dir;
    out->req.defines = (const char *const *)out->defines;
    if (!ok) {
        rt_cuda_request_release(out);
        return -1;
    }
    return 0;
}

static compile_job *job_new(const rt_cuda_compile_request *req, const char *path, const char *key)
{
    compile_job *job = calloc(1, sizeof *job);
    if (!job)
        return NULL;
    if (rt_cuda_request_copy(req, &job->own) != 0) {
        free(job);
        return NULL;
    }
    pthread_mutex_init(&job->mu, NULL);
    pthread_cond_init(&job->cv, NULL);
    job->refs = 2;
    snprintf(job->path, sizeof job->path, "%s", path);
    snprintf(job->key, sizeof job->key, "%s", key);
    return job;
}

/* The compile on its own thread, waited for until the limit. */
static int compile_with_limit(const rt_cuda_compile_request *req, const char *path, const char *key,
                              rt_cuda_image *out, rt_err *err)
{
    compile_job *job = job_new(req, path, key);
    if (!job)
        return rt_err_set(err, "out of memory preparing the compile of %s", req->source_name);
    /* Why the cache was not read, if it was not, travels with the image. */
    snprintf(job->img.cache_note, sizeof job->img.cache_note, "%s", out->cache_note);
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    const int started = pthread_create(&thread, &attr, job_main, job) == 0;
    pthread_attr_destroy(&attr);
    if (!started) {
        job->refs = 1;
        job_release(job);
        return rt_err_set(err, "cannot start a thread to compile %s", req->source_name);
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    const double whole = (double)(time_t)req->time_limit_s;
    until.tv_sec += (time_t)whole;
    until.tv_nsec += (long)((req->time_limit_s - whole) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&job->mu);
    int waited = 0;
    while (!job->done && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&job->cv, &job->mu, &until);
    const int done = job->done;
    int rc = RT_CUDA_TIMED_OUT;
    if (done) {
        rc = job->rc;
        *out = job->img; /* the image moves to the caller */
        memset(&job->img, 0, sizeof job->img);
        if (rc != 0)
            *err = job->err;
    }
    pthread_mutex_unlock(&job->mu);
    job_release(job);
    if (!done) {
        char defs[RT_CUDA_MAX_DEFINES * (RT_CUDA_DEFINE_MAX + 1) + 1];
        describe_defines(req, defs, sizeof defs);
        rt_err_set(err,
                   "NVRTC compile of %s (entry %s, defines %s) still running after the limit of "
                   "%g s (measure.compile_timeout_s): abandoned; it finishes in the background "
                   "and its image goes to the variant cache%s",
                   req->source_name, req->entry, defs, req->time_limit_s,
                   path[0] ? "" : " (none: the cache is off)");
    }
    return rc;
}

int rt_cuda_compile(const rt_cuda_compile_request *req, rt_cuda_image *out, rt_err *err)
{
    memset(out, 0, sizeof *out);
    char key[RT_CUDA_KEY_MAX];
    if (rt_cuda_variant_key(req, key, sizeof key, err) != 0)
        return -1;
    const int use_cache = req->cache_dir && *req->cache_dir;
    char path[4096] = "";
    if (use_cache && rt_cuda_cache_path(req, path, sizeof path, err) != 0)
        return -1;
    if (use_cache && !req->skip_cache_read && cache_read(path, key, out)) {
        /* The architecture is a function of the key (compute capability, NVRTC version). */
        int is_ptx = 0;
        if (pick_arch(req, out->arch, sizeof out->arch, &is_ptx, err) != 0) {
            rt_cuda_image_free(out);
            return -1;
        }
        return 0;
    }
    if (req->time_limit_s > 0)
        return compile_with_limit(req, path, key, out, err);
    return compile_and_store(req, path, key, out, err);
}

void rt_cuda_image_free(rt_cuda_image *img)
{
    if (!img)
        return;
    free(img->data);
    img->data = NULL;
    img->size = 0;
}
