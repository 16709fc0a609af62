/* rt_store_tuning: the tuning database, a `tuning` table in a rooftune store. One entry per
 * (kernel, device, architecture, input class): the best verified configuration found, its time,
 * the device's memory, where it came from (provenance: run, git revision, config, time) and the
 * evidence (every verified point of that sweep with its time). A table recorded before the memory
 * column is read as it is (the memory from the device's name) and migrated when next written.
 * `rooftune tune` fills it, `rooftune best` queries it with fallbacks and exports it as YAML and as
 * a C header.
 *
 * The input class of an entry is its matrix features: rows, nonzeros per row and the problem's K
 * (the nearest entry by log distance over the features a query gives answers the query). */
#ifndef RT_STORE_TUNING_H
#define RT_STORE_TUNING_H

#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"

struct sqlite3;

/* Creates the tuning table when missing. */
int rt_tuning_ensure(struct sqlite3 *db, rt_err *err);
/* Fails, saying so, when db (a checked rooftune store) has no tuning table. The readers below
 * (lookup, exports) check it and never create one: a query must not write. */
int rt_tuning_check(struct sqlite3 *db, rt_err *err);

/* The memory of a device by name in bytes: the size it states ("NVIDIA H100 80GB HBM3": 80e9),
 * else the size a model without one in its name is sold with (H200 141 GB, H100 NVL 94 GB, ...),
 * else 0 (unknown). Runs record the exact size (the metric device_memory_bytes), which wins. */
double rt_tuning_memory_of(const char *device);

/* The architecture of a device by name (sm_90 for an H100, ...), or "" when unknown. */
const char *rt_tuning_arch_of(const char *device);

/* For every (kernel, device, matrix, problem) sweep in src with a verified point, records its
 * fastest verified point in dst's tuning table (replacing an entry only with a faster one).
 * arch overrides the architecture derived from the device name (NULL: derive; a device whose
 * architecture is unknown is an error naming it). Then, when src has a tuning table of its own
 * (another device's tuning database), merges its entries as they were recorded (their
 * architecture and provenance kept; a faster entry of the same key wins). *recorded counts entries
 * added or improved. */
int rt_tuning_harvest(struct sqlite3 *src, struct sqlite3 *dst, const char *source_path,
                      const char *arch, int *recorded, rt_err *err);

typedef struct rt_tuning_query {
    const char *kernel;          /* required */
    const char *device;          /* exact device name, or NULL */
    const char *arch;            /* sm_XY, or NULL (derived from device when given) */
    double rows, nnz_per_row, k; /* 0 = not given */
    double memory_bytes;         /* the device's memory; 0: from the device's name, if any */
} rt_tuning_query;

typedef struct rt_tuning_entry {
    int64_t id;
    char kernel[128], device[128], arch[16], matrix[128];
    double rows, nnz_per_row, k;
    char params[1024]; /* JSON object */
    double time_s, gflops;
    int evidence_points;
    double memory_bytes; /* the device's memory; 0 when unknown */
    char problem[512];   /* the sweep's problem point (JSON object) */
    char fallback[200];  /* which match answered: "device", "architecture sm_90", ... */
} rt_tuning_entry;

/* Calls fn for every entry (of kernel; NULL: all), ordered by kernel, architecture, device and
 * input class. fn returning non-zero stops the walk, and that value is returned. */
int rt_tuning_each(struct sqlite3 *db, const char *kernel,
                   int (*fn)(void *ctx, const rt_tuning_entry *e), void *ctx, rt_err *err);

/* One parameter of an entry's configuration (its params JSON object, as json_each reads it). */
typedef struct rt_tuning_param {
    char name[64];
    char value[256]; /* the number as written, or the text */
    int is_text;
} rt_tuning_param;
/* The parameters of params_json (an object of numbers and strings), at most cap: 0 with *n, or
 * -1 when it is not such an object. */
int rt_tuning_params_split(struct sqlite3 *db, const char *params_json, rt_tuning_param *out,
                           int cap, int *n, rt_err *err);

/* The nearest entry: same device; else same architecture; else the architecture family (the
 * nearest lower sm_X0, e.g. sm_90 -> sm_80); else the nearest architecture. Among the entries of
 * other devices at that level, the nearest device memory (|log2| of the ratio; an H200 query
 * prefers an H100 NVL's 94 GB entry to an H100's 80 GB one), then the nearest input (the sum of
 * |log2| ratios of the features given). Returns 0 with the entry, 1 when the table has no entry
 * for the kernel, -1 on error. */
int rt_tuning_lookup(struct sqlite3 *db, const rt_tuning_query *q, rt_tuning_entry *out,
                     rt_err *err);

/* Every entry as YAML, or as a C header declaring a table a user's code can include. */
int rt_tuning_export_yaml(struct sqlite3 *db, FILE *out, rt_err *err);
int rt_tuning_export_header(struct sqlite3 *db, FILE *out, rt_err *err);

#endif
