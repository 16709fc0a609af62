/* rt_store_tuning: the tuning database, a `tuning` table in a rooftune store. One entry per
 * (kernel, device, architecture, input class): the best verified configuration found, its time,
 * where it came from (provenance: run, git revision, config, time) and the evidence (every
 * verified point of that sweep with its time). `rooftune tune` fills it, `rooftune best` queries
 * it with fallbacks and exports it as YAML and as a C header.
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

/* The architecture of a device by name (sm_90 for an H100, ...), or "" when unknown. */
const char *rt_tuning_arch_of(const char *device);

/* For every (kernel, device, matrix, problem) sweep in src with a verified point, records its
 * fastest verified point in dst's tuning table (replacing an entry only with a faster one).
 * arch overrides the architecture derived from the device name (NULL: derive; a device whose
 * architecture is unknown is an error naming it). *recorded counts entries added or improved. */
int rt_tuning_harvest(struct sqlite3 *src, struct sqlite3 *dst, const char *source_path,
                      const char *arch, int *recorded, rt_err *err);

typedef struct rt_tuning_query {
    const char *kernel;          /* required */
    const char *device;          /* exact device name, or NULL */
    const char *arch;            /* sm_XY, or NULL (derived from device when given) */
    double rows, nnz_per_row, k; /* 0 = not given */
} rt_tuning_query;

typedef struct rt_tuning_entry {
    int64_t id;
    char kernel[128], device[128], arch[16], matrix[128];
    double rows, nnz_per_row, k;
    char params[1024]; /* JSON object */
    double time_s, gflops;
    int evidence_points;
    char fallback[160]; /* which match answered: "device", "architecture sm_90", ... */
} rt_tuning_entry;

/* The nearest entry: same device; else same architecture; else the architecture family (the
 * nearest lower sm_X0, e.g. sm_90 -> sm_80); else the nearest architecture. Returns 0 with the
 * entry, 1 when the table has no entry for the kernel, -1 on error. */
int rt_tuning_lookup(struct sqlite3 *db, const rt_tuning_query *q, rt_tuning_entry *out,
                     rt_err *err);

/* Every entry as YAML, or as a C header declaring a table a user's code can include. */
int rt_tuning_export_yaml(struct sqlite3 *db, FILE *out, rt_err *err);
int rt_tuning_export_header(struct sqlite3 *db, FILE *out, rt_err *err);

#endif
