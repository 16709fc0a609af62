#include <sqlite3.h>
#include <stdio.h>

#include "rt_fuzz.h"
#include "rt_readonly.h"
#include "rt_store.h"

void rt_fuzz_store(const uint8_t *data, size_t size)
{
    if (size > 262144)
        return;
    const char *path = rt_fuzz_write_file("s.db", data, size);
    if (!path)
        return;
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", path);
    /* A file in the way of the sidecar files of WAL mode must not be taken for them. */
    char side[4300];
    snprintf(side, sizeof side, "%s-wal", copy);
    remove(side);
    snprintf(side, sizeof side, "%s-shm", copy);
    remove(side);
    rt_err err;
    sqlite3 *db = NULL;
    if (rt_readonly_open(copy, &db, &err) == 0)
        sqlite3_close(db);
    rt_store *st = NULL;
    if (rt_store_open(copy, &st, &err) == 0)
        rt_store_close(st);
}
