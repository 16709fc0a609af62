/* rt_readonly: opening a result store for reading only (compare, figures, report).
 *
 * Stores are written in WAL mode, and SQLite creates <store>-wal and <store>-shm beside a WAL
 * database whenever it is opened, even read-only. For a committed baseline that would leave
 * untracked files in the source tree. So a store with no -wal file beside it (fully checkpointed:
 * nobody is writing it) is opened as immutable, which creates nothing; a store with a -wal file
 * (a run may be writing it) is opened read-only the ordinary way, so that it is read consistently.
 * Either way the handle cannot modify the store. */
#ifndef RT_READONLY_H
#define RT_READONLY_H

#include "rt_error.h"

struct sqlite3;

/* Opens path for reading and checks that it is a rooftune store this build can read
 * (rt_store_check). A missing file, a file that is not SQLite or another program's database is an
 * error naming the path; *db is NULL then. Close with rt_store_read_close (rt_store_read.h). */
int rt_readonly_open(const char *path, struct sqlite3 **db, rt_err *err);

#endif
