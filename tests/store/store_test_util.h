/* Helpers shared by the store tests: a scratch directory, provenance, one-value queries (point
 * records: rt_test_point.h). */
#ifndef STORE_TEST_UTIL_H
#define STORE_TEST_UTIL_H

#define _XOPEN_SOURCE 700 /* mkdtemp, nftw-free directory cleanup with opendir */

#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_store.h"
#include "rt_test.h"
#include "rt_test_point.h"

typedef struct scratch {
    char dir[512];
} scratch;

static inline int scratch_make(scratch *s)
{
    const char *base = getenv("TMPDIR");
    snprintf(s->dir, sizeof s->dir, "%s/rooftune-store-XXXXXX", base && base[0] ? base : "/tmp");
    return mkdtemp(s->dir) ? 0 : -1;
}

static inline void scratch_path(const scratch *s, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", s->dir, name);
}

/* The tests create only plain files in the scratch directory. */
static inline void scratch_remove(scratch *s)
{
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", s->dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(s->dir);
}

static inline void test_provenance(rt_provenance *p, const char *build_id, const char *config_hash)
{
    rt_provenance_init(p);
    if (build_id)
        snprintf(p->build_id, sizeof p->build_id, "%s", build_id);
    snprintf(p->config_hash, sizeof p->config_hash, "%s", config_hash ? config_hash : "cafe");
    snprintf(p->config_path, sizeof p->config_path, "configs/test.yaml");
    p->config_text = "experiment: {name: test}\n";
    snprintf(p->device, sizeof p->device, "cpu");
    snprintf(p->command_line, sizeof p->command_line, "rooftune run configs/test.yaml");
}

/* One integer from a query; -12345 when the query fails or returns no row. */
static inline long long sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    long long v = -12345;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* One real; NAN when NULL, -12345 when the query fails. */
static inline double sql_real(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s = NULL;
    double v = -12345;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_type(s, 0) == SQLITE_NULL ? NAN : sqlite3_column_double(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* One text value into out; "<NULL>" for NULL, "<ERROR>" when the query fails. */
static inline const char *sql_text(sqlite3 *db, const char *sql, char *out, size_t cap)
{
    sqlite3_stmt *s = NULL;
    snprintf(out, cap, "<ERROR>");
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(s, 0);
        snprintf(out, cap, "%s", t ? (const char *)t : "<NULL>");
    }
    sqlite3_finalize(s);
    return out;
}

static inline int sql_exec(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

#endif
