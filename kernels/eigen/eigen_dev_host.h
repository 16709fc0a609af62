/* eigen_dev_host: the host-memory "device" (CBLAS arithmetic, memcpy transfers). CI runs the
 * out-of-core solvers on it with a small budget; the family's reference runs on it in-core. */
#ifndef EIGEN_DEV_HOST_H
#define EIGEN_DEV_HOST_H

#include "eigen_dev.h"

/* The host device; it has no state of its own. */
eg_dev eg_dev_host(void);

#endif
