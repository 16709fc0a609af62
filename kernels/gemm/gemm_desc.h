/* gemm_desc: the gemm family's descriptor: gemm_family.h's problem and hooks, and the model-only
 * mode (gemm_model_only.h), kept apart so that the inputs do not depend on the model. */
#ifndef GEMM_DESC_H
#define GEMM_DESC_H

#include "rt_registry.h"

const rt_family_desc *rt_gemm_family(void);

#endif
