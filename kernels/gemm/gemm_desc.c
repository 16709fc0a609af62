#include "gemm_desc.h"

#include "gemm_family.h"
#include "gemm_model_only.h"

static const rt_family_desc gemm_desc = {
    .name = "gemm",
    .summary = "dense C = A * B (M x K times K x N), tiled and distributed over a process grid",
    .problem_params = gemm_problem,
    .n_problem_params = GEMM_N_PROBLEM,
    .make_inputs = gemm_make_inputs,
    .free_inputs = gemm_free_inputs,
    .output_elems = gemm_output_elems,
    .tolerance = gemm_tolerance,
    .reference = gemm_reference,
    .reference_scale = gemm_reference_scale,
    .footprint = gemm_footprint,
    .flops = gemm_flops,
    .nonzeros = NULL,
    .wants_whole_matrix = 1,
    .model = &gemm_model,
};

const rt_family_desc *rt_gemm_family(void)
{
    return &gemm_desc;
}
