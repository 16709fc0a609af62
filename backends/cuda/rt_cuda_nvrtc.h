/* rt_cuda_nvrtc: compiles kernel variants at run time with NVRTC and keeps them in a disk cache.
 *
 * A variant is (source text, "NAME=VALUE" defines, entry point) compiled for one device's exact
 * compute capability. Its cache key covers everything that changes the machine code: a hash of
 * the source, the sorted defines, the entry, the compute capability, the NVRTC version and the
 * fixed compiler options; so a sweep compiles each variant once and a second run compiles
 * nothing. Cache files are written to a temporary name and renamed into place (concurrent ranks
 * never see half a file), carry their own key and a checksum, and one that is unreadable or
 * corrupt is compiled again and rewritten, never trusted and never fatal.
 *
 * This module needs NVRTC only, no driver and no device, so it is tested on machines without a
 * GPU. Loading the image into a CUDA context is rt_cuda_ctx's job. */
#ifndef RT_CUDA_NVRTC_H
#define RT_CUDA_NVRTC_H

#include <stddef.h>

#include "rt_error.h"

#define RT_CUDA_MAX_DEFINES 32
#define RT_CUDA_DEFINE_MAX  96 /* longest "NAME=VALUE" */
#define RT_CUDA_KEY_MAX     4096

typedef struct rt_cuda_compile_request {
    const char *source_name;    /* e.g. "spmm_tiled.cu": names the program in logs and errors */
    const char *source;         /* the complete source text */
    const char *const *defines; /* "NAME=VALUE", NAME an identifier, VALUE without spaces/quotes */
    int n_defines;
    const char *entry;      /* extern "C" kernel name */
    int cc_major, cc_minor; /* target device's compute capability */
    const char *cache_dir;  /* NULL or "": no disk cache */
    int skip_cache_read;    /* 1: compile even when a cache file exists (a cached image failed
                               to load), then overwrite it */
    double time_limit_s; /* > 0: a compile that takes longer is abandoned (see rt_cuda_compile) */
} rt_cuda_compile_request;

/* rt_cuda_compile's return when it abandoned a compile over req->time_limit_s. */
#define RT_CUDA_TIMED_OUT 2

typedef struct rt_cuda_image {
    unsigned char *data;  /* CUBIN, or NUL-terminated PTX when is_ptx */
    size_t size;          /* bytes of data (for PTX including the NUL) */
    int is_ptx;           /* 1 when NVRTC does not know the device's architecture: PTX for the
                             newest one it knows below it, which the driver compiles on load */
    int from_cache;       /* 1: read from the disk cache, 0: compiled now */
    double compile_s;     /* NVRTC wall time (0 for a cache hit) */
    char arch[24];        /* NVRTC target, "sm_90" or "compute_90" */
    char cache_note[256]; /* why the cache was not read or written, "" when it was fine */
} rt_cuda_image;

/* Returns the image of the variant (cache hit or fresh compile). Errors name the source, entry,
 * defines and architecture, and carry the end of NVRTC's log.
 *
 * With req->time_limit_s > 0 the compile runs on a thread of its own, since NVRTC has no way to
 * stop a compile: when the limit passes first, the call returns RT_CUDA_TIMED_OUT with err saying
 * so and leaves the thread to finish on its own copy of the request. The abandoned compile still
 * writes its image to the disk cache (same key, same atomic rename), so a later request for the
 * same variant, in this run or the next, is a cache hit; a failed one writes nothing. Until it
 * finishes it occupies a CPU core; a process that exits first ends it. */
int rt_cuda_compile(const rt_cuda_compile_request *req, rt_cuda_image *out, rt_err *err);
void rt_cuda_image_free(rt_cuda_image *img);

/* A request that owns copies of everything it points at, so it can outlive the caller's buffers
 * (a compile on another thread: the time limit's, the compile-ahead queue's). */
typedef struct rt_cuda_owned_request {
    rt_cuda_compile_request req; /* points into the copies below */
    char *source, *source_name, *entry, *cache_dir;
    char *defines[RT_CUDA_MAX_DEFINES];
} rt_cuda_owned_request;

/* Copies req into out (the caller checks the request first). 0, or -1 when memory ran out (out
 * then holds nothing to release). */
int rt_cuda_request_copy(const rt_cuda_compile_request *req, rt_cuda_owned_request *out);
void rt_cuda_request_release(rt_cuda_owned_request *o);

/* The canonical key text of a variant (also the in-memory key of loaded modules). Fails on
 * malformed defines, a missing source or entry, or a key longer than len. */
int rt_cuda_variant_key(const rt_cuda_compile_request *req, char *key, size_t len, rt_err *err);

/* The cache file of a variant: <cache_dir>/<32 hex digits>.cubin. */
int rt_cuda_cache_path(const rt_cuda_compile_request *req, char *path, size_t len, rt_err *err);

/* Default cache directory: $ROOFTUNE_CACHE_DIR, else $XDG_CACHE_HOME/rooftune, else
 * $HOME/.cache/rooftune. Fails when none of the three variables is set. */
int rt_cuda_cache_dir_default(char *out, size_t len, rt_err *err);

/* NVRTC's version (e.g. 13.0). */
int rt_cuda_nvrtc_version(int *major, int *minor, rt_err *err);

#endif
