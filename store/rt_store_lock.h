/* rt_store_lock: one writer per store. `rooftune run` (and `tune`) hold an exclusive lock on the
 * store's database file itself for as long as they write it, so two runs into one store never
 * measure and record the same points twice; the second one stops at once, naming the process that
 * holds the lock. The lock belongs to the file, not to the name it was given: a symbolic link, a
 * hard link, a relative and an absolute path all reach the same lock.
 *
 * The lock is the kernel's flock() on the database file. On Linux it is independent of the POSIX
 * record locks SQLite takes on the same file (readers are never blocked by it), it goes away with
 * its process however that ends (kill -9 included), and it needs no lock file beside the store.
 * It must be released after the store is closed (rt_store_close), never before: closing the
 * lock's descriptor while SQLite still has the file open would drop SQLite's own record locks
 * (POSIX ties them to the process and the file, not to a descriptor). */
#ifndef RT_STORE_LOCK_H
#define RT_STORE_LOCK_H

#include "rt_error.h"

typedef struct rt_store_lock rt_store_lock;

/* Takes the lock of the store at db_path without waiting, creating the (empty) file when it does
 * not exist yet. Fails, with err naming the store, when another process holds the lock (its pid
 * when the system says), when the path is not a regular file (/dev/null, a folder, a FIFO), or
 * when the file cannot be made. */
int rt_store_lock_acquire(const char *db_path, rt_store_lock **out, rt_err *err);
/* Releases and frees the lock (NULL is fine). A file the lock created that is still empty (the
 * store was never written) is removed. */
void rt_store_lock_release(rt_store_lock *lock);

#endif
