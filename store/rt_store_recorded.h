/* rt_store_recorded: a fully measured sweep of a rooftune store as a recorded tuning space, for
 * replay (the store's side of harness/replay/rt_recorded.h), and the loader of any recorded space
 * (store, Kernel Tuner cache or T4 file). */
#ifndef RT_STORE_RECORDED_H
#define RT_STORE_RECORDED_H

#include "rt_error.h"
#include "rt_recorded.h"

/* One sweep of the store at path, chosen by sel (kernel, matrix, problem), as a recorded space. */
int rt_recorded_load_store(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                           rt_err *err);

/* A rooftune store (by its SQLite header) or else a Kernel Tuner cache / T4 file. */
int rt_store_recorded_load(const char *path, const rt_recorded_select *sel, rt_recorded **out,
                           rt_err *err);

#endif
