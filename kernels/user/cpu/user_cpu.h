/* user_cpu: the hooks of a user's C kernel (<family>.cpu.<name>): setup builds the object (or
 * finds it in the cache), lays the arguments out with guard zones in a block shared with a fresh
 * worker process and starts it; run asks the worker for one execution (stopped at the point
 * timeout); output checks every guard and reads the outputs. */
#ifndef USER_CPU_H
#define USER_CPU_H

#include "rt_registry.h"
#include "user_kernel.h"

/* Fills a descriptor for the C kernel uk (which must outlive it). */
void user_cpu_describe(user_kernel *uk, rt_kernel_desc *d);

#endif
