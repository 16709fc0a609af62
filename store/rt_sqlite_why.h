/* rt_sqlite_why: why SQLite could not open a database file. SQLite says only "unable to open
 * database file"; the user needs the cause: a missing folder, no permission, a path longer than
 * SQLite accepts, or the system error behind it. */
#ifndef RT_SQLITE_WHY_H
#define RT_SQLITE_WHY_H

#include <stddef.h>

struct sqlite3;

/* Writes into buf SQLite's message for db (or for rc when db is NULL) followed by the cause found
 * for path, e.g. "unable to open database file: the folder 'x' does not exist". */
void rt_sqlite_open_why(const char *path, struct sqlite3 *db, int rc, char *buf, size_t len);

#endif
