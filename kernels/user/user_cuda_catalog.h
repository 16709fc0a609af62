/* user_cuda_catalog: the user family's one CUDA catalog entry, the engine (user_kernel.h). */
#ifndef USER_CUDA_CATALOG_H
#define USER_CUDA_CATALOG_H

#include "rt_cuda_catalog.h"

const rt_cuda_catalog_entry *rt_user_cuda_catalog(int *n);

#endif
