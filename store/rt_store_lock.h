/* rt_store_lock: one writer per store. `rooftune run` holds an exclusive lock on DB.lock (beside
 * the store) for the whole run, so two runs into one store never measure and record the same
 * points twice; the second one stops at once, naming the process that holds the lock. The lock
 * is the kernel's (flock), so it goes away with its process however that ends (kill -9 included)
 * and never needs cleaning up. */
#ifndef RT_STORE_LOCK_H
#define RT_STORE_LOCK_H

#include "rt_error.h"

typedef struct rt_store_lock rt_store_lock;

/* Takes the lock of the store at db_path without waiting. Fails (err names the lock file and, when
 * it can, the holder's pid and host) when another process holds it or the file cannot be made. */
int rt_store_lock_acquire(const char *db_path, rt_store_lock **out, rt_err *err);
/* Releases and frees the lock (the lock file stays; NULL is fine). */
void rt_store_lock_release(rt_store_lock *lock);

#endif
