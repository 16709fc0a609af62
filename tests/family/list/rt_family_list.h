/* The family list of the test build: the project's list plus the test family `rowsum`, whose
 * folder (tests/family/rowsum/) is built exactly as a family under kernels/ would be. */
#include "../../../kernels/rt_family_list.h"
RT_FAMILY_CUDA(rowsum)
